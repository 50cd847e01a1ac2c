package dev.oncepay.config;

import dev.oncepay.contract.DeploymentSettings;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.amazonaws.services.lambda.runtime.Context;
import com.amazonaws.services.lambda.runtime.RequestStreamHandler;
import dev.oncepay.testing.OpenApiContract;
import io.quarkus.funqy.Funq;
import io.quarkus.runtime.configuration.DurationConverter;
import io.smallrye.config.EnvConfigSource;
import io.smallrye.config.SmallRyeConfig;
import io.smallrye.config.SmallRyeConfigBuilder;
import io.smallrye.config.WithDefault;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * The constants that {@code infra/} deploys with are the ones the application reads: each
 * environment variable reaches the setting it names, and each timing fact equals the code.
 */
class DeploymentSettingsTest {
    private static final Set<String> HTTP_METHODS = Set.of("get", "put", "post", "delete", "options", "head", "patch", "trace");

    @Test
    void eachEnvironmentVariableReachesItsSetting() {
        SmallRyeConfig config = new SmallRyeConfigBuilder().addDefaultInterceptors()
                .withSources(new EnvConfigSource(Map.of(
                        DeploymentSettings.ENV_FUNQY_EXPORT, DeploymentSettings.FUNCTION_WEBHOOK,
                        DeploymentSettings.ENV_TABLE, "oncepay-prod",
                        DeploymentSettings.ENV_PROVIDER_URL, "https://psp.example",
                        DeploymentSettings.ENV_PROVIDER_ID, "acme",
                        DeploymentSettings.ENV_TENANT_CLAIM, "org_id",
                        DeploymentSettings.ENV_CHARGE_MAX_IN_FLIGHT, "7"), 300))
                // In production the API key comes from the secret (see SecretsManagerConfigSourceFactoryTest).
                .withDefaultValue("oncepay.provider.api-key", "from-the-secret")
                // Quarkus' duration format ("35S"), as Quarkus registers it.
                .withConverter(Duration.class, 100, new DurationConverter())
                .withMapping(OncepayConfig.class)
                .build();
        OncepayConfig oncepay = config.getConfigMapping(OncepayConfig.class);

        assertEquals(DeploymentSettings.FUNCTION_WEBHOOK, config.getValue("quarkus.funqy.export", String.class));
        assertEquals("oncepay-prod", oncepay.table());
        assertEquals("https://psp.example", oncepay.provider().url());
        assertEquals("acme", oncepay.provider().id());
        assertEquals("org_id", oncepay.tenant().claim());
        assertEquals(7, oncepay.provider().chargeCall().maxInFlight());
    }

    @Test
    void theDefaultTenantClaimIsTheConfiguredDefault() throws NoSuchMethodException {
        assertEquals(DeploymentSettings.DEFAULT_TENANT_CLAIM,
                TenantConfig.class.getMethod("claim").getAnnotation(WithDefault.class).value());
    }

    @Test
    void theDefaultAccountIsTheConfiguredDefault() throws NoSuchMethodException {
        assertEquals(DeploymentSettings.DEFAULT_ACCOUNT,
                ProviderConfig.class.getMethod("account").getAnnotation(WithDefault.class).value());
    }

    @Test
    void theSdkAttemptsAgreeWithTheDynamoDbClient() throws ReflectiveOperationException {
        Field attempts = Class.forName("dev.oncepay.store.DynamoDbClientProducer").getDeclaredField("MAX_ATTEMPTS");
        attempts.setAccessible(true);
        assertEquals(attempts.getInt(null), DeploymentSettings.AWS_MAX_ATTEMPTS);
    }

    @Test
    void theLeaseIsTheConfiguredDefault() throws NoSuchMethodException {
        String lease = IdempotencyConfig.class.getMethod("lease").getAnnotation(WithDefault.class).value();
        assertEquals(Duration.ofSeconds(DeploymentSettings.IDEMPOTENCY_LEASE_SECONDS), DurationConverter.parseDuration(lease));
    }

    @Test
    void theQueuesKeepAMessageAsLongAsTheWorkerMayChargeIt() throws NoSuchMethodException {
        String horizon = QueueConfig.class.getMethod("horizon").getAnnotation(WithDefault.class).value();
        assertEquals(Duration.ofSeconds(DeploymentSettings.CHARGE_QUEUE_HORIZON_SECONDS), DurationConverter.parseDuration(horizon));
        String cap = QueueConfig.class.getMethod("retryDelayCap").getAnnotation(WithDefault.class).value();
        assertTrue(DurationConverter.parseDuration(cap).toSeconds() <= DeploymentSettings.SQS_MAX_DELAY_SECONDS);
        assertTrue(DeploymentSettings.CHARGE_WORKER_TIMEOUT_SECONDS < DeploymentSettings.CHARGE_QUEUE_VISIBILITY_TIMEOUT_SECONDS,
                "a message is never handed out again while its worker still runs");
    }

    @Test
    void theProviderDeadlineIsTheRetryBudgetWhichHoldsAWholeAttempt() {
        ProviderCallConfig charge = defaults().provider().chargeCall();
        assertEquals(Duration.ofSeconds(DeploymentSettings.PROVIDER_CHARGE_DEADLINE_SECONDS), charge.budget());
        assertTrue(charge.attemptTimeout().compareTo(charge.budget()) <= 0);
    }

    @Test
    void theLookupDeadlineIsTheRetryBudgetWhichHoldsAWholeAttempt() {
        ProviderCallConfig lookup = defaults().provider().lookupCall();
        assertEquals(Duration.ofSeconds(DeploymentSettings.PROVIDER_LOOKUP_DEADLINE_SECONDS), lookup.budget());
        assertTrue(lookup.attemptTimeout().compareTo(lookup.budget()) <= 0);
    }

    /** The settings a deployment gets when nothing overrides them (ProviderCalls decides each wait within them). */
    private static OncepayConfig defaults() {
        return new SmallRyeConfigBuilder().withConverter(Duration.class, 100, new DurationConverter())
                .withMapping(OncepayConfig.class).build().getConfigMapping(OncepayConfig.class);
    }

    private Properties applicationProperties() throws IOException {
        Properties properties = new Properties();
        try (InputStream in = getClass().getClassLoader().getResourceAsStream("application.properties")) {
            properties.load(in);
        }
        return properties;
    }

    /** The routes the stack and the SAM templates give the functions are the operations the OpenAPI document describes. */
    @Test
    void theDeployedRoutesAreTheDocumentedOperations() {
        Set<String> documented = new TreeSet<>();
        OpenApiContract.document().tree().get("paths").fields().forEachRemaining(path -> path.getValue().fieldNames()
                .forEachRemaining(field -> {
                    if (HTTP_METHODS.contains(field)) {
                        documented.add(field.toUpperCase(Locale.ROOT) + " " + path.getKey());
                    }
                }));
        Set<String> deployed = new TreeSet<>();
        DeploymentSettings.FUNCTIONS.forEach(function -> deployed.addAll(DeploymentSettings.routes(function)));

        assertEquals(documented, deployed);
        assertEquals(List.of(DeploymentSettings.WEBHOOK_ROUTE), DeploymentSettings.routes(DeploymentSettings.FUNCTION_WEBHOOK));
        assertEquals(List.of(), DeploymentSettings.routes(DeploymentSettings.FUNCTION_RECONCILE), "a schedule runs reconcile");
    }

    /** The JVM handler is Funqy's Lambda entry point, as the functions' class path has it. */
    @Test
    void theJvmHandlerIsFunqysStreamHandler() throws ReflectiveOperationException {
        String[] classAndMethod = DeploymentSettings.JVM_HANDLER.split("::");
        Class<?> handler = Class.forName(classAndMethod[0]);

        assertTrue(RequestStreamHandler.class.isAssignableFrom(handler), handler.getName());
        assertEquals("handleRequest", classAndMethod[1]);
        handler.getMethod(classAndMethod[1], InputStream.class, OutputStream.class, Context.class);
    }

    @Test
    void everyFunqFunctionIsOneThatInfraDeploys() {
        Set<String> deployed = Set.copyOf(DeploymentSettings.FUNCTIONS);
        Set<String> functions = new TreeSet<>();
        for (Class<?> type : CompiledClasses.main()) {
            for (Method method : type.getDeclaredMethods()) {
                Funq funq = method.getAnnotation(Funq.class);
                if (funq != null) {
                    functions.add(funq.value().isEmpty() ? method.getName() : funq.value());
                }
            }
        }
        assertTrue(functions.contains(DeploymentSettings.FUNCTION_CHARGE), functions.toString());
        assertTrue(deployed.containsAll(functions), "functions " + functions + " but infra deploys " + deployed);
    }
}
