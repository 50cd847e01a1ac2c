package dev.oncepay.config;

import dev.oncepay.contract.DeploymentSettings;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.quarkus.runtime.configuration.DurationConverter;
import io.smallrye.config.EnvConfigSource;
import io.smallrye.config.PropertiesConfigSource;
import io.smallrye.config.SmallRyeConfig;
import io.smallrye.config.SmallRyeConfigBuilder;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.eclipse.microprofile.config.spi.ConfigSource;
import org.junit.jupiter.api.Test;

/** The factory wired into a real SmallRye configuration, with a stand-in for Secrets Manager. */
class SecretsManagerConfigSourceFactoryTest {
    private static final String DEFAULT_KEYS = "arn:aws:secretsmanager:eu-west-1:123456789012:secret:oncepay/default/api-key-AbCdEf";
    private static final String STRIPE_KEYS = "arn:aws:secretsmanager:eu-west-1:123456789012:secret:oncepay/stripe-eu/api-key-GhIjKl";
    private static final String SIGNING = "arn:aws:secretsmanager:eu-west-1:123456789012:secret:oncepay/stripe-eu/signing-MnOpQr";

    private final List<List<String>> reads = new ArrayList<>();
    private final Map<String, String> secrets = new LinkedHashMap<>(Map.of(
            DEFAULT_KEYS, "{\"oncepay.provider.api-key\":\"sk_${live}\"}",
            STRIPE_KEYS, "{\"oncepay.provider.accounts.stripe-eu.api-key\":\"sk_stripe\"}",
            SIGNING, "{\"oncepay.webhook.secrets.stripe.stripe-eu\":[\"w1\",\"w2\"]}"));

    @Test
    void withoutSecretArnsNothingIsReadOrAdded() {
        SmallRyeConfig config = chargeConfig(Map.of("AWS_REGION", "eu-west-1",
                DeploymentSettings.ENV_LAMBDA_RUNTIME_API, "127.0.0.1:9001"));

        assertEquals(List.of(), reads);
        assertFalse(sources(config).stream().anyMatch(s -> s.getName().startsWith(SecretsManagerConfigSourceFactory.SOURCE_NAME)));
        assertEquals(Optional.of("local-sim-key"), config.getConfigMapping(OncepayConfig.class).provider().apiKey());
    }

    @Test
    void aBlankListCountsAsUnset() {
        config(onLambda(DeploymentSettings.FUNCTION_CHARGE, DeploymentSettings.ENV_SECRET_ARNS, " , "));
        assertEquals(List.of(), reads);
    }

    /** The Quarkus build runs configuration factories too: a secret must not reach the artifact. */
    @Test
    void outsideALambdaSandboxNoSecretIsRead() {
        SmallRyeConfig config = chargeConfig(Map.of(DeploymentSettings.ENV_SECRET_ARNS, DEFAULT_KEYS,
                DeploymentSettings.ENV_FUNQY_EXPORT, DeploymentSettings.FUNCTION_CHARGE));

        assertEquals(List.of(), reads);
        assertEquals(Optional.of("local-sim-key"), config.getConfigMapping(OncepayConfig.class).provider().apiKey());
    }

    @Test
    void chargeAndReconcileGetTheApiKeysOfEveryAccount() {
        for (String function : List.of(DeploymentSettings.FUNCTION_CHARGE, DeploymentSettings.FUNCTION_RECONCILE)) {
            reads.clear();
            SmallRyeConfig config = chargeConfig(onLambda(function,
                    DeploymentSettings.ENV_SECRET_ARNS, DEFAULT_KEYS + ", " + STRIPE_KEYS));

            assertEquals(List.of(List.of(DEFAULT_KEYS, STRIPE_KEYS)), reads, "one read of all secrets");
            assertEquals(Optional.of("sk_${live}"), config.getConfigMapping(OncepayConfig.class).provider().apiKey());
            assertEquals("sk_stripe", config.getRawValue("oncepay.provider.accounts.stripe-eu.api-key"));
        }
    }

    @Test
    void theWebhookGetsTheSigningSecrets() {
        SmallRyeConfig config = config(onLambda(DeploymentSettings.FUNCTION_WEBHOOK, DeploymentSettings.ENV_SECRET_ARNS, SIGNING));

        assertEquals(List.of("w1", "w2"), config.getValues("oncepay.webhook.secrets.stripe.stripe-eu", String.class));
        assertEquals(Optional.empty(), config.getOptionalValue("oncepay.provider.api-key", String.class));
    }

    /** Handed an API-key secret by mistake, the internet-facing function refuses to start. */
    @Test
    void theWebhookRefusesToStartWithAnApiKeyNamingSecretAndKeyNeverTheValue() {
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> config(onLambda(
                DeploymentSettings.FUNCTION_WEBHOOK, DeploymentSettings.ENV_SECRET_ARNS, SIGNING + "," + STRIPE_KEYS)));

        assertTrue(e.getMessage().contains(STRIPE_KEYS), e.getMessage());
        assertTrue(e.getMessage().contains("'oncepay.provider.accounts.stripe-eu.api-key'"), e.getMessage());
        assertTrue(e.getMessage().contains("webhook function"), e.getMessage());
        assertFalse(e.getMessage().contains("sk_stripe"), e.getMessage());
    }

    @Test
    void chargeAndReconcileRefuseToStartWithSigningSecrets() {
        for (String function : List.of(DeploymentSettings.FUNCTION_CHARGE, DeploymentSettings.FUNCTION_RECONCILE)) {
            IllegalStateException e = assertThrows(IllegalStateException.class, () -> config(onLambda(
                    function, DeploymentSettings.ENV_SECRET_ARNS, DEFAULT_KEYS + "," + SIGNING)));

            assertTrue(e.getMessage().contains(SIGNING), e.getMessage());
            assertTrue(e.getMessage().contains("'oncepay.webhook.secrets.stripe.stripe-eu'"), e.getMessage());
            assertTrue(e.getMessage().contains(function + " function"), e.getMessage());
            assertFalse(e.getMessage().contains("w1"), e.getMessage());
        }
    }

    @Test
    void aFunctionThatCannotBeToldRefusesSecrets() {
        Map<String, String> env = onLambda("sweep", DeploymentSettings.ENV_SECRET_ARNS, DEFAULT_KEYS);
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> config(env));
        assertTrue(e.getMessage().contains("'sweep'"), e.getMessage());
        env.remove(DeploymentSettings.ENV_FUNQY_EXPORT);
        e = assertThrows(IllegalStateException.class, () -> config(env));
        assertTrue(e.getMessage().contains(SecretsManagerConfigSourceFactory.FUNCTION_PROPERTY), e.getMessage());
        assertEquals(List.of(), reads);
    }

    @Test
    void theSecretsOutrankApplicationPropertiesButNotTheEnvironment() {
        secrets.put(SIGNING, "{\"oncepay.webhook.secrets.sim.default\":\"from-secret\",\"oncepay.webhook.secrets.stripe.stripe-eu\":\"from-secret\"}");
        SmallRyeConfig config = new SmallRyeConfigBuilder().addDefaultInterceptors()
                .withSources(new PropertiesConfigSource(Map.of(
                        "oncepay.webhook.secrets.sim.default", "from-properties",
                        "oncepay.webhook.secrets.stripe.stripe-eu", "from-properties"), "application.properties", 250))
                .withSources(new EnvConfigSource(onLambda(DeploymentSettings.FUNCTION_WEBHOOK, DeploymentSettings.ENV_SECRET_ARNS,
                        SIGNING, "ONCEPAY_WEBHOOK_SECRETS_SIM_DEFAULT", "from-env"), 300))
                .withSources(new SecretsManagerConfigSourceFactory(this::read))
                .build();

        assertEquals("from-secret", config.getRawValue("oncepay.webhook.secrets.stripe.stripe-eu"));
        assertEquals("from-env", config.getRawValue("oncepay.webhook.secrets.sim.default"));
    }

    @Test
    void aSecretOfTheWrongShapeStopsStartupNamingTheSecretNotItsValue() {
        secrets.put(STRIPE_KEYS, "VALUE-not-json");
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> config(onLambda(
                DeploymentSettings.FUNCTION_CHARGE, DeploymentSettings.ENV_SECRET_ARNS, DEFAULT_KEYS + "," + STRIPE_KEYS)));
        assertTrue(e.getMessage().contains(STRIPE_KEYS), e.getMessage());
        assertFalse(e.getMessage().contains("VALUE-"), e.getMessage());
    }

    @Test
    void aSecretThatCannotBeReadStopsStartup() {
        SecretsManagerConfigSourceFactory failing = new SecretsManagerConfigSourceFactory((ids, env) -> {
            throw new IllegalStateException("reading secret " + ids.get(0) + " failed: HTTP 400 AccessDeniedException");
        });
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> new SmallRyeConfigBuilder()
                .withSources(new EnvConfigSource(onLambda(DeploymentSettings.FUNCTION_CHARGE,
                        DeploymentSettings.ENV_SECRET_ARNS, DEFAULT_KEYS), 300))
                .withSources(failing).build());
        assertTrue(e.getMessage().contains("AccessDeniedException"), e.getMessage());
    }

    @Test
    void theReaderSeesTheEnvironment() {
        List<Optional<String>> seen = new ArrayList<>();
        new SmallRyeConfigBuilder()
                .withSources(new EnvConfigSource(onLambda(DeploymentSettings.FUNCTION_CHARGE,
                        DeploymentSettings.ENV_SECRET_ARNS, DEFAULT_KEYS, "AWS_REGION", "eu-west-1"), 300))
                .withSources(new SecretsManagerConfigSourceFactory((ids, env) -> {
                    seen.add(env.apply("AWS_REGION"));
                    seen.add(env.apply("AWS_ENDPOINT_URL_SECRETS_MANAGER"));
                    return Map.of();
                })).build();
        assertEquals(List.of(Optional.of("eu-west-1"), Optional.empty()), seen);
    }

    /**
     * The factory as deployed (ServiceLoader, the SDK client, the default credentials chain)
     * against a local Secrets Manager: every listed secret is read over its real API.
     */
    @Test
    void theDeployedFactoryReadsEachSecretOverTheSecretsManagerApi() throws Exception {
        Map<String, String> credentials = Map.of("aws.accessKeyId", "AKIDEXAMPLE", "aws.secretAccessKey", "secret");
        try (SecretsManagerStub stub = new SecretsManagerStub()) {
            secrets.forEach(stub::secret);
            credentials.forEach(System::setProperty);
            SmallRyeConfig config = new SmallRyeConfigBuilder().addDefaultInterceptors().addDiscoveredSources()
                    .withSources(new EnvConfigSource(onLambda(DeploymentSettings.FUNCTION_RECONCILE,
                            DeploymentSettings.ENV_SECRET_ARNS, DEFAULT_KEYS + "," + STRIPE_KEYS,
                            "AWS_ENDPOINT_URL_SECRETS_MANAGER", stub.endpoint().toString()), 300))
                    .build();

            assertEquals("sk_${live}", config.getRawValue("oncepay.provider.api-key"));
            assertEquals("sk_stripe", config.getRawValue("oncepay.provider.accounts.stripe-eu.api-key"));
            assertEquals(List.of(DEFAULT_KEYS, STRIPE_KEYS),
                    stub.requests.stream().map(r -> r.body().get("SecretId").asText()).toList());
        } finally {
            credentials.keySet().forEach(System::clearProperty);
        }
    }

    /** An environment as Lambda sets it up for {@code function}, plus the given variables. */
    private static Map<String, String> onLambda(String function, String... variables) {
        Map<String, String> env = new HashMap<>();
        env.put(DeploymentSettings.ENV_LAMBDA_RUNTIME_API, "127.0.0.1:9001");
        env.put(DeploymentSettings.ENV_FUNQY_EXPORT, function);
        for (int i = 0; i < variables.length; i += 2) {
            env.put(variables[i], variables[i + 1]);
        }
        return env;
    }

    private SmallRyeConfig config(Map<String, String> env) {
        return new SmallRyeConfigBuilder().addDefaultInterceptors()
                .withSources(new EnvConfigSource(env, 300))
                .withSources(new SecretsManagerConfigSourceFactory(this::read))
                .build();
    }

    /** With the charge configuration mapping, as the charge and reconcile functions read it. */
    private SmallRyeConfig chargeConfig(Map<String, String> env) {
        return new SmallRyeConfigBuilder().addDefaultInterceptors()
                .withSources(new EnvConfigSource(env, 300))
                .withSources(new SecretsManagerConfigSourceFactory(this::read))
                // Quarkus' duration format ("35S"), as Quarkus registers it.
                .withConverter(Duration.class, 100, new DurationConverter())
                .withMapping(OncepayConfig.class)
                // What the dev and test profiles set (production has no default: it must come from a secret).
                .withDefaultValue("oncepay.provider.api-key", "local-sim-key")
                // The second account's routing (production: ONCEPAY_PROVIDER_ROUTING); its key comes from a secret.
                .withDefaultValue("oncepay.provider.accounts.stripe-eu.provider", "stripe")
                .withDefaultValue("oncepay.provider.accounts.stripe-eu.url", "https://api.stripe.com")
                .withValidateUnknown(false)
                .build();
    }

    private Map<String, String> read(List<String> ids, java.util.function.Function<String, Optional<String>> env) {
        reads.add(ids);
        Map<String, String> found = new LinkedHashMap<>();
        ids.forEach(id -> found.put(id, secrets.get(id)));
        return found;
    }

    private static List<ConfigSource> sources(SmallRyeConfig config) {
        List<ConfigSource> all = new ArrayList<>();
        config.getConfigSources().forEach(all::add);
        return all;
    }
}
