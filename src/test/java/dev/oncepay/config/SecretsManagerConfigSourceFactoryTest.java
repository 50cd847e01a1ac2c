package dev.oncepay.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.smallrye.config.EnvConfigSource;
import io.smallrye.config.PropertiesConfigSource;
import io.smallrye.config.SmallRyeConfig;
import io.smallrye.config.SmallRyeConfigBuilder;
import io.quarkus.runtime.configuration.DurationConverter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import org.eclipse.microprofile.config.spi.ConfigSource;
import org.junit.jupiter.api.Test;

/** The factory wired into a real SmallRye configuration, with a stand-in for Secrets Manager. */
class SecretsManagerConfigSourceFactoryTest {
    private static final String ARN = "arn:aws:secretsmanager:eu-west-1:123456789012:secret:oncepay-AbCdEf";

    private final List<String> reads = new ArrayList<>();

    @Test
    void withoutTheSecretArnNothingIsReadOrAdded() {
        SmallRyeConfig config = config(Map.of("AWS_REGION", "eu-west-1"), "{\"oncepay.provider.api-key\":\"sk\"}");

        assertEquals(List.of(), reads);
        assertFalse(sources(config).stream().anyMatch(s -> s.getName().startsWith(SecretsManagerConfigSourceFactory.SOURCE_NAME)));
        assertEquals("local-sim-key", config.getConfigMapping(OncepayConfig.class).provider().apiKey());
    }

    @Test
    void aBlankSecretArnCountsAsUnset() {
        config(onLambda(DeploymentSettings.ENV_SECRET_ARN, "  "), "{}");
        assertEquals(List.of(), reads);
    }

    /** The Quarkus build runs configuration factories too: a secret must not reach the artifact. */
    @Test
    void outsideALambdaSandboxTheSecretIsNotRead() {
        SmallRyeConfig config = config(Map.of(DeploymentSettings.ENV_SECRET_ARN, ARN), "{\"oncepay.provider.api-key\":\"sk\"}");

        assertEquals(List.of(), reads);
        assertEquals("local-sim-key", config.getConfigMapping(OncepayConfig.class).provider().apiKey());
    }

    @Test
    void withTheSecretArnTheSecretsBecomeConfiguration() {
        SmallRyeConfig config = config(onLambda(DeploymentSettings.ENV_SECRET_ARN, ARN),
                "{\"oncepay.provider.api-key\":\"sk_${live}\",\"oncepay.webhook.secrets.sim\":[\"w1\",\"w2\"]}");

        assertEquals(List.of(ARN), reads);
        assertEquals("sk_${live}", config.getConfigMapping(OncepayConfig.class).provider().apiKey());
        assertEquals("w1,w2", config.getRawValue("oncepay.webhook.secrets.sim"));
        assertEquals(List.of("w1", "w2"), config.getValues("oncepay.webhook.secrets.sim", String.class));
    }

    @Test
    void theSecretOutranksApplicationPropertiesButNotTheEnvironment() {
        SmallRyeConfig config = new SmallRyeConfigBuilder().addDefaultInterceptors()
                .withSources(new PropertiesConfigSource(Map.of(
                        "oncepay.provider.api-key", "from-properties",
                        "oncepay.webhook.secrets.sim", "from-properties"), "application.properties", 250))
                .withSources(new EnvConfigSource(onLambda(DeploymentSettings.ENV_SECRET_ARN, ARN,
                        "ONCEPAY_WEBHOOK_SECRETS_SIM", "from-env"), 300))
                .withSources(new SecretsManagerConfigSourceFactory(read("{\"oncepay.provider.api-key\":\"from-secret\","
                        + "\"oncepay.webhook.secrets.sim\":\"from-secret\"}")))
                .build();

        assertEquals("from-secret", config.getRawValue("oncepay.provider.api-key"));
        assertEquals("from-env", config.getRawValue("oncepay.webhook.secrets.sim"));
    }

    @Test
    void aSecretOfTheWrongShapeStopsStartupNamingTheSecretNotItsValue() {
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> config(onLambda(DeploymentSettings.ENV_SECRET_ARN, ARN), "VALUE-not-json"));
        assertTrue(e.getMessage().contains(ARN), e.getMessage());
        assertFalse(e.getMessage().contains("VALUE-"), e.getMessage());
    }

    @Test
    void aSecretThatCannotBeReadStopsStartup() {
        SecretsManagerConfigSourceFactory failing = new SecretsManagerConfigSourceFactory((id, env) -> {
            throw new IllegalStateException("reading secret " + id + " failed: HTTP 400 AccessDeniedException");
        });
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> new SmallRyeConfigBuilder()
                .withSources(new EnvConfigSource(onLambda(DeploymentSettings.ENV_SECRET_ARN, ARN), 300))
                .withSources(failing).build());
        assertTrue(e.getMessage().contains("AccessDeniedException"), e.getMessage());
    }

    @Test
    void theReaderSeesTheEnvironment() {
        List<Optional<String>> seen = new ArrayList<>();
        new SmallRyeConfigBuilder()
                .withSources(new EnvConfigSource(onLambda(DeploymentSettings.ENV_SECRET_ARN, ARN, "AWS_REGION", "eu-west-1"), 300))
                .withSources(new SecretsManagerConfigSourceFactory((id, env) -> {
                    seen.add(env.apply("AWS_REGION"));
                    seen.add(env.apply("AWS_ENDPOINT_URL_SECRETS_MANAGER"));
                    return "{}";
                })).build();
        assertEquals(List.of(Optional.of("eu-west-1"), Optional.empty()), seen);
    }

    /** An environment as Lambda sets it up, plus the given variables. */
    private static Map<String, String> onLambda(String... variables) {
        Map<String, String> env = new java.util.HashMap<>();
        env.put(DeploymentSettings.ENV_LAMBDA_RUNTIME_API, "127.0.0.1:9001");
        for (int i = 0; i < variables.length; i += 2) {
            env.put(variables[i], variables[i + 1]);
        }
        return env;
    }

    private SmallRyeConfig config(Map<String, String> env, String secret) {
        return new SmallRyeConfigBuilder().addDefaultInterceptors()
                .withSources(new EnvConfigSource(env, 300))
                .withSources(new SecretsManagerConfigSourceFactory(read(secret)))
                // Quarkus' duration format ("35S"), as Quarkus registers it.
                .withConverter(Duration.class, 100, new DurationConverter())
                .withMapping(OncepayConfig.class)
                // What the dev and test profiles set (production has no default: it must come from the secret).
                .withDefaultValue("oncepay.provider.api-key", "local-sim-key")
                // The webhook settings are not mapped in this branch yet; don't fail on them.
                .withValidateUnknown(false)
                .build();
    }

    private java.util.function.BiFunction<String, Function<String, Optional<String>>, String> read(String secret) {
        return (id, env) -> {
            reads.add(id);
            return secret;
        };
    }

    private static List<ConfigSource> sources(SmallRyeConfig config) {
        List<ConfigSource> all = new ArrayList<>();
        config.getConfigSources().forEach(all::add);
        return all;
    }
}
