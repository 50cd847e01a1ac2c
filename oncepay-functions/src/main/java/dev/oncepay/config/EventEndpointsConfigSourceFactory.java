package dev.oncepay.config;

import com.fasterxml.jackson.databind.JsonNode;
import dev.oncepay.contract.DeploymentSettings;
import io.smallrye.config.ConfigSourceContext;
import io.smallrye.config.ConfigSourceFactory;
import io.smallrye.config.PropertiesConfigSource;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.eclipse.microprofile.config.spi.ConfigSource;

/**
 * The merchant endpoints' plain properties from {@value DeploymentSettings#ENV_EVENT_ENDPOINTS}: a
 * JSON object of {@code oncepay.events.endpoints."<tenant>"."<endpoint>".url} and {@code .types}
 * to their values, one variable for the reason {@link ProviderRoutingConfigSourceFactory} gives.
 * Signing secrets never appear in it; {@link dev.oncepay.events.MerchantEndpoints} checks the values.
 */
public class EventEndpointsConfigSourceFactory implements ConfigSourceFactory {
    static final String SOURCE_NAME = "oncepay-event-endpoints";

    @Override
    public Iterable<ConfigSource> getConfigSources(ConfigSourceContext context) {
        return SecretsManagerConfigSourceFactory.value(context, DeploymentSettings.ENV_EVENT_ENDPOINTS)
                .<Iterable<ConfigSource>>map(json -> {
                    try {
                        return List.of(new PropertiesConfigSource(fromJson(json), SOURCE_NAME,
                                SecretsManagerConfigSourceFactory.ORDINAL));
                    } catch (IllegalArgumentException refused) {
                        throw new IllegalStateException(DeploymentSettings.ENV_EVENT_ENDPOINTS + ": " + refused.getMessage());
                    }
                })
                .orElse(List.of());
    }

    static Map<String, String> fromJson(String json) {
        Map<String, String> properties = new TreeMap<>();
        for (Iterator<Map.Entry<String, JsonNode>> it = SecretProperties.object(json, "the event endpoints").fields(); it.hasNext();) {
            Map.Entry<String, JsonNode> entry = it.next();
            String name = entry.getKey();
            if (SecretScope.of(name).isPresent()) {
                throw new IllegalArgumentException("'" + name + "' is a secret: it belongs in a Secrets Manager secret");
            }
            boolean endpointSetting = name.startsWith(DeploymentSettings.EVENT_ENDPOINTS_PREFIX)
                    && (name.endsWith("." + DeploymentSettings.ENDPOINT_URL) || name.endsWith("." + DeploymentSettings.ENDPOINT_TYPES));
            if (!endpointSetting) {
                throw new IllegalArgumentException("'" + name + "' is not an endpoint's " + DeploymentSettings.ENDPOINT_URL
                        + " or " + DeploymentSettings.ENDPOINT_TYPES + " (" + DeploymentSettings.EVENT_ENDPOINTS_PREFIX
                        + "\"<tenant>\".\"<endpoint>\".<setting>)");
            }
            if (!entry.getValue().isTextual() || entry.getValue().textValue().isBlank()) {
                throw new IllegalArgumentException("'" + name + "' must be a non-empty string");
            }
            properties.put(name, SecretProperties.escape(entry.getValue().textValue()));
        }
        return properties;
    }
}
