package dev.oncepay.config;

import dev.oncepay.contract.DeploymentSettings;

import io.smallrye.config.ConfigSourceContext;
import io.smallrye.config.ConfigSourceFactory;
import io.smallrye.config.ConfigValue;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import org.eclipse.microprofile.config.spi.ConfigSource;
import org.jboss.logging.Logger;

/**
 * Production secrets: when {@value DeploymentSettings#ENV_SECRET_ARNS} lists Secrets Manager
 * secrets, reads them once at startup and offers their properties as a configuration source;
 * each must be a JSON object of the secret properties this function may hold
 * ({@link SecretScope} of {@code quarkus.funqy.export}: the webhook function signing secrets
 * only, charge and reconcile API keys only; see {@link SecretProperties}). Without it, nothing is
 * read and nothing changes (tests, local runs). It is read only inside a Lambda sandbox
 * ({@value DeploymentSettings#ENV_LAMBDA_RUNTIME_API} set): the Quarkus build runs configuration
 * factories as well, and a secret must never reach the artifact.
 *
 * <p>The ordinal puts the secrets above {@code application.properties} (250) and below system
 * properties (400) and the environment (300), which stay an operator's explicit override.
 * A secret that cannot be read, has the wrong shape or holds what this function may not stops
 * startup, naming the secret and the key, never a value: running with the development defaults
 * instead would fail every payment later and more quietly.
 *
 * <p>The source it offers ({@link SecretsConfigSource}) keeps the way to read the same secrets
 * again, with the same checks: a sandbox restored from a SnapStart snapshot reloads them
 * ({@code dev.oncepay.startup.SnapStartHooks}), so a secret rotated since the snapshot is used.
 *
 * <p>Registered in {@code META-INF/services/io.smallrye.config.ConfigSourceFactory}. Not
 * static-init safe (not annotated), so a native image reads secrets at run time, never at
 * build time.
 */
public class SecretsManagerConfigSourceFactory implements ConfigSourceFactory {
    static final int ORDINAL = 275;
    static final String SOURCE_NAME = "oncepay-secrets";
    static final String FUNCTION_PROPERTY = "quarkus.funqy.export";
    private static final Logger LOG = Logger.getLogger(SecretsManagerConfigSourceFactory.class);

    /** Reads the {@code SecretString} of each secret id (in order), given a way to look up environment settings. */
    @FunctionalInterface
    interface SecretSource {
        Map<String, String> read(List<String> secretIds, Function<String, Optional<String>> env);
    }

    private final SecretSource source;

    public SecretsManagerConfigSourceFactory() {
        this(SecretsManagerReader::read);
    }

    SecretsManagerConfigSourceFactory(SecretSource source) {
        this.source = source;
    }

    @Override
    public Iterable<ConfigSource> getConfigSources(ConfigSourceContext context) {
        Function<String, Optional<String>> env = name -> value(context, name);
        List<String> secretIds = env.apply(DeploymentSettings.ENV_SECRET_ARNS)
                .map(ids -> Arrays.stream(ids.split(",")).map(String::trim).filter(id -> !id.isEmpty()).distinct().toList())
                .orElse(List.of());
        if (secretIds.isEmpty()) {
            return List.of();
        }
        if (env.apply(DeploymentSettings.ENV_LAMBDA_RUNTIME_API).isEmpty()) {
            // The Quarkus build runs configuration factories too, and may record what they supply
            // in the artifact: read secrets only where the function runs.
            LOG.warnf("%s is set but this is no Lambda sandbox (%s is not): not reading secrets",
                    DeploymentSettings.ENV_SECRET_ARNS, DeploymentSettings.ENV_LAMBDA_RUNTIME_API);
            return List.of();
        }
        String function = env.apply(FUNCTION_PROPERTY).orElse("");
        SecretScope scope;
        try {
            scope = SecretScope.ofFunction(function);
        } catch (IllegalArgumentException unknown) {
            throw new IllegalStateException(DeploymentSettings.ENV_SECRET_ARNS + " is set but " + unknown.getMessage()
                    + " (" + FUNCTION_PROPERTY + ")");
        }
        // A reload after a restore asks for the settings that the first read asked for, as they were
        // then: the context belongs to the building of the configuration, which is over by then.
        Map<String, Optional<String>> settings = new ConcurrentHashMap<>();
        Function<String, Optional<String>> remembered = name -> settings.computeIfAbsent(name, env);
        SecretsConfigSource secrets = new SecretsConfigSource(() -> read(secretIds, remembered, scope, function));
        LOG.infof("Loaded %s from secrets %s", secrets.getPropertyNames(), secretIds);
        return List.of(secrets);
    }

    /** The checked properties of {@code secretIds}, read afresh: at startup, and again after a SnapStart restore. */
    private Map<String, String> read(List<String> secretIds, Function<String, Optional<String>> env, SecretScope scope,
            String function) {
        SecretProperties properties = new SecretProperties(scope);
        source.read(secretIds, env).forEach((id, secret) -> {
            try {
                properties.add(id, secret);
            } catch (IllegalArgumentException refused) {
                throw new IllegalStateException("secret " + id + " (" + DeploymentSettings.ENV_SECRET_ARNS + ") refused by the "
                        + function + " function: " + refused.getMessage());
            }
        });
        return properties.properties();
    }

    static Optional<String> value(ConfigSourceContext context, String name) {
        ConfigValue value = context.getValue(name);
        return value == null || value.getValue() == null || value.getValue().isBlank()
                ? Optional.empty()
                : Optional.of(value.getValue().trim());
    }
}
