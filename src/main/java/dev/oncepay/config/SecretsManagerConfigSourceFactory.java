package dev.oncepay.config;

import io.smallrye.config.ConfigSourceContext;
import io.smallrye.config.ConfigSourceFactory;
import io.smallrye.config.ConfigValue;
import io.smallrye.config.PropertiesConfigSource;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.BiFunction;
import java.util.function.Function;
import org.eclipse.microprofile.config.spi.ConfigSource;
import org.jboss.logging.Logger;

/**
 * Production secrets: when {@value DeploymentSettings#ENV_SECRET_ARN} is set, reads that Secrets
 * Manager secret once at startup and offers its properties ({@code oncepay.provider.api-key},
 * {@code oncepay.webhook.secrets.<provider>}, see {@link SecretProperties}) as a configuration
 * source. Without it, nothing is read and nothing changes (tests, local runs). It is read only
 * inside a Lambda sandbox ({@value DeploymentSettings#ENV_LAMBDA_RUNTIME_API} set): the Quarkus
 * build runs configuration factories as well, and a secret must never reach the artifact.
 *
 * <p>The ordinal puts the secret above {@code application.properties} (250) and below system
 * properties (400) and the environment (300), which stay an operator's explicit override.
 * A secret that cannot be read or has the wrong shape stops startup: running with the
 * development defaults instead would fail every payment later and more quietly.
 *
 * <p>Registered in {@code META-INF/services/io.smallrye.config.ConfigSourceFactory}. Not
 * static-init safe (not annotated), so a native image reads the secret at run time, never at
 * build time.
 */
public class SecretsManagerConfigSourceFactory implements ConfigSourceFactory {
    static final int ORDINAL = 275;
    static final String SOURCE_NAME = "oncepay-secret";
    private static final Logger LOG = Logger.getLogger(SecretsManagerConfigSourceFactory.class);

    /** Reads a secret's string given its id and a way to look up environment settings. */
    private final BiFunction<String, Function<String, Optional<String>>, String> reader;

    public SecretsManagerConfigSourceFactory() {
        this(SecretsManagerReader::read);
    }

    SecretsManagerConfigSourceFactory(BiFunction<String, Function<String, Optional<String>>, String> reader) {
        this.reader = reader;
    }

    @Override
    public Iterable<ConfigSource> getConfigSources(ConfigSourceContext context) {
        Function<String, Optional<String>> env = name -> value(context, name);
        Optional<String> secretId = env.apply(DeploymentSettings.ENV_SECRET_ARN);
        if (secretId.isEmpty()) {
            return List.of();
        }
        if (env.apply(DeploymentSettings.ENV_LAMBDA_RUNTIME_API).isEmpty()) {
            // The Quarkus build runs configuration factories too, and may record what they supply
            // in the artifact: read secrets only where the function runs.
            LOG.warnf("%s is set but this is no Lambda sandbox (%s is not): not reading the secret",
                    DeploymentSettings.ENV_SECRET_ARN, DeploymentSettings.ENV_LAMBDA_RUNTIME_API);
            return List.of();
        }
        Map<String, String> properties;
        try {
            properties = SecretProperties.fromJson(reader.apply(secretId.get(), env));
        } catch (IllegalArgumentException badShape) {
            throw new IllegalStateException("secret " + secretId.get() + " (" + DeploymentSettings.ENV_SECRET_ARN
                    + "): " + badShape.getMessage());
        }
        LOG.infof("Loaded %s from secret %s", properties.keySet(), secretId.get());
        return List.of(new PropertiesConfigSource(properties, SOURCE_NAME, ORDINAL));
    }

    private static Optional<String> value(ConfigSourceContext context, String name) {
        ConfigValue value = context.getValue(name);
        return value == null || value.getValue() == null || value.getValue().isBlank()
                ? Optional.empty()
                : Optional.of(value.getValue().trim());
    }
}
