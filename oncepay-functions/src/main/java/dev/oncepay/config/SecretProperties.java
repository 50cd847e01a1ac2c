package dev.oncepay.config;

import dev.oncepay.contract.DeploymentSettings;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * The configuration properties of a function's secrets: each secret a JSON object of secret
 * properties within the function's {@link SecretScope}, so a secret cannot reconfigure anything
 * else and no function holds another's secrets. One secret per provider account, for example:
 *
 * <pre>
 * { "oncepay.provider.accounts.stripe-eu.api-key": "sk_live_…" }          // charge, reconcile
 * { "oncepay.webhook.secrets.stripe.stripe-eu": ["whsec_new", "whsec_old"] }  // webhook ("a,b" also works)
 * </pre>
 *
 * Signing secrets of one account from several secrets are all active; an API key found in two
 * secrets is refused. Every error names the offending key, never a value.
 */
final class SecretProperties {
    private static final JsonMapper JSON = JsonMapper.builder()
            .enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION)
            .build();

    private final SecretScope scope;
    private final Map<String, String> apiKeys = new TreeMap<>();
    private final Map<String, Set<String>> signingSecrets = new TreeMap<>();
    /** Which secret each property came from, to name both when one repeats. */
    private final Map<String, String> origins = new HashMap<>();

    SecretProperties(SecretScope scope) {
        this.scope = scope;
    }

    /**
     * Adds the properties of the secret {@code secretId}.
     *
     * @throws IllegalArgumentException if it is not such an object, or holds what it may not
     */
    void add(String secretId, String secretString) {
        for (Iterator<Map.Entry<String, JsonNode>> it = object(secretString, "the secret").fields(); it.hasNext();) {
            Map.Entry<String, JsonNode> entry = it.next();
            String name = entry.getKey();
            SecretScope owner = SecretScope.of(name).orElseThrow(() -> new IllegalArgumentException(
                    "secret key '" + name + "' is not a secret property (" + scope.holders() + " may hold: " + scope.keys() + ")"));
            if (owner != scope) {
                throw new IllegalArgumentException("secret key '" + name + "' may be held only by " + owner.holders()
                        + ", not by " + scope.holders() + " (which may hold: " + scope.keys() + ")");
            }
            String first = origins.putIfAbsent(name, secretId);
            if (owner == SecretScope.SIGNING_SECRETS) {
                signingSecrets.computeIfAbsent(name, k -> new LinkedHashSet<>()).addAll(signingSecrets(name, entry.getValue()));
            } else if (first != null) {
                throw new IllegalArgumentException("secret key '" + name + "' is also in secret " + first);
            } else {
                apiKeys.put(name, nonEmptyText(name, entry.getValue()));
            }
        }
    }

    /** The properties so far, values escaped so that expression expansion ({@code ${…}}) hands them back as stored. */
    Map<String, String> properties() {
        Map<String, String> properties = new TreeMap<>();
        apiKeys.forEach((name, key) -> properties.put(name, escape(key)));
        signingSecrets.forEach((name, secrets) -> properties.put(name, escape(String.join(",", secrets))));
        return properties;
    }

    /**
     * {@code json} as a JSON object; {@code what} names it in errors, which never quote the text
     * (a parser's message may).
     */
    static ObjectNode object(String json, String what) {
        JsonNode root;
        try {
            root = json == null ? null : JSON.readTree(json);
        } catch (Exception notJson) {
            throw new IllegalArgumentException(what + " is not valid JSON");
        }
        if (root == null || !root.isObject()) {
            throw new IllegalArgumentException(what + " must be a JSON object of property names to values");
        }
        return (ObjectNode) root;
    }

    private static List<String> signingSecrets(String name, JsonNode node) {
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
        return secrets;
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
