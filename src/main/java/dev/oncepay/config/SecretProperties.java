package dev.oncepay.config;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.json.JsonMapper;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * Turns the deployment secret (a JSON object) into configuration properties. Only the secret
 * properties may appear in it, so the secret cannot silently reconfigure anything else:
 *
 * <pre>
 * {
 *   "oncepay.provider.api-key": "sk_live_…",
 *   "oncepay.webhook.secrets.sim": ["whsec_new", "whsec_old"]   // or "whsec_new,whsec_old"
 * }
 * </pre>
 *
 * Every error names the offending key, never a value.
 */
public final class SecretProperties {
    private static final JsonMapper JSON = JsonMapper.builder()
            .enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION)
            .build();
    private static final Pattern PROVIDER_ID = Pattern.compile("[A-Za-z0-9_-]{1,64}");

    private SecretProperties() {
    }

    /**
     * The properties in {@code secretString}, values escaped so that configuration expression
     * expansion ({@code ${…}}) hands them back exactly as stored.
     *
     * @throws IllegalArgumentException if the secret is not such an object
     */
    public static Map<String, String> fromJson(String secretString) {
        JsonNode root;
        try {
            root = secretString == null ? null : JSON.readTree(secretString);
        } catch (Exception notJson) {
            // The parser's message may quote the secret: do not pass it on.
            throw new IllegalArgumentException("the secret is not valid JSON");
        }
        if (root == null || !root.isObject()) {
            throw new IllegalArgumentException("the secret must be a JSON object of property names to values");
        }
        Map<String, String> properties = new TreeMap<>();
        for (Iterator<Map.Entry<String, JsonNode>> it = root.fields(); it.hasNext();) {
            Map.Entry<String, JsonNode> entry = it.next();
            String name = entry.getKey();
            properties.put(name, escape(value(name, entry.getValue())));
        }
        return properties;
    }

    private static String value(String name, JsonNode node) {
        if (name.equals(DeploymentSettings.PROVIDER_API_KEY_PROPERTY)) {
            return nonEmptyText(name, node);
        }
        if (name.startsWith(DeploymentSettings.WEBHOOK_SECRETS_PREFIX)) {
            String provider = name.substring(DeploymentSettings.WEBHOOK_SECRETS_PREFIX.length());
            if (!PROVIDER_ID.matcher(provider).matches()) {
                throw new IllegalArgumentException("secret key '" + name + "' does not end in a provider id");
            }
            List<String> secrets = new ArrayList<>();
            if (node.isArray()) {
                for (JsonNode element : node) {
                    String secret = nonEmptyText(name, element);
                    if (secret.contains(",")) {
                        throw new IllegalArgumentException("an element of '" + name + "' contains a comma");
                    }
                    secrets.add(secret);
                }
            } else {
                secrets.addAll(List.of(nonEmptyText(name, node).split(",", -1)));
            }
            if (secrets.isEmpty()) {
                throw new IllegalArgumentException("secret key '" + name + "' has no secrets");
            }
            for (String secret : secrets) {
                if (secret.isEmpty()) {
                    throw new IllegalArgumentException("secret key '" + name + "' has an empty entry in its list");
                }
                // A configuration list takes '\' as an escape: such a secret would not arrive intact.
                if (secret.contains("\\")) {
                    throw new IllegalArgumentException("an entry of '" + name + "' contains a backslash");
                }
            }
            return String.join(",", secrets);
        }
        throw new IllegalArgumentException("secret key '" + name + "' is not a secret property (allowed: "
                + DeploymentSettings.PROVIDER_API_KEY_PROPERTY + ", " + DeploymentSettings.WEBHOOK_SECRETS_PREFIX
                + "<provider>)");
    }

    private static String nonEmptyText(String name, JsonNode node) {
        if (node == null || !node.isTextual() || node.textValue().isEmpty()) {
            throw new IllegalArgumentException("secret key '" + name + "' must be a non-empty string"
                    + (name.startsWith(DeploymentSettings.WEBHOOK_SECRETS_PREFIX) ? " or an array of them" : ""));
        }
        return node.textValue();
    }

    /** SmallRye Config expands {@code ${…}} in every value; {@code \$} is taken literally. */
    static String escape(String value) {
        return value.replace("$", "\\$");
    }
}
