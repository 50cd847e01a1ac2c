package dev.oncepay.config;

import dev.oncepay.contract.DeploymentSettings;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.smallrye.config.PropertiesConfigSource;
import io.smallrye.config.SmallRyeConfig;
import io.smallrye.config.SmallRyeConfigBuilder;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class SecretPropertiesTest {

    @Test
    void eachFunctionHasItsScope() {
        assertEquals(SecretScope.SIGNING_SECRETS, SecretScope.ofFunction(DeploymentSettings.FUNCTION_WEBHOOK));
        assertEquals(SecretScope.API_KEYS, SecretScope.ofFunction(DeploymentSettings.FUNCTION_CHARGE));
        assertEquals(SecretScope.API_KEYS, SecretScope.ofFunction(DeploymentSettings.FUNCTION_RECONCILE));
        assertThrows(IllegalArgumentException.class, () -> SecretScope.ofFunction("other"));

        assertEquals(Optional.of(SecretScope.API_KEYS), SecretScope.of("oncepay.provider.api-key"));
        assertEquals(Optional.of(SecretScope.API_KEYS), SecretScope.of("oncepay.provider.accounts.stripe-eu.api-key"));
        assertEquals(Optional.of(SecretScope.SIGNING_SECRETS), SecretScope.of("oncepay.webhook.secrets.stripe.stripe-eu"));
        for (String plain : List.of("oncepay.provider.url", "oncepay.provider.accounts.stripe-eu.url",
                "oncepay.provider.accounts.a.b.api-key", "oncepay.provider.accounts..api-key", "oncepay.webhook.secrets.",
                "oncepay.webhook.secrets.stripe", "oncepay.webhook.secrets.a.b.c", "oncepay.webhook.tolerance", "oncepay.provider.tenants.t")) {
            assertEquals(Optional.empty(), SecretScope.of(plain), plain);
        }
    }

    @Test
    void apiKeysOfEveryAccountBecomeProperties() {
        SecretProperties properties = new SecretProperties(SecretScope.API_KEYS);
        properties.add("default", "{\"oncepay.provider.api-key\": \"sk_live_1\"}");
        properties.add("stripe-eu", "{\"oncepay.provider.accounts.stripe-eu.api-key\": \"sk_live_2\"}");

        assertEquals(Map.of("oncepay.provider.api-key", "sk_live_1",
                "oncepay.provider.accounts.stripe-eu.api-key", "sk_live_2"), properties.properties());
    }

    /** Each account of a provider has its own endpoint secrets; one account's may come from several secrets. */
    @Test
    void signingSecretsOfEachAccountFromSeveralSecretsAreAllActive() {
        SecretProperties properties = new SecretProperties(SecretScope.SIGNING_SECRETS);
        properties.add("stripe-eu", "{\"oncepay.webhook.secrets.stripe.stripe-eu\": [\"whsec_new\", \"whsec_old\"],"
                + " \"oncepay.webhook.secrets.acme-pay.acme-eu\": \"a1,a2\"}");
        properties.add("stripe-eu-next", "{\"oncepay.webhook.secrets.stripe.stripe-eu\": \"whsec_next,whsec_new\"}");
        properties.add("stripe-us", "{\"oncepay.webhook.secrets.stripe.stripe-us\": \"whsec_us\"}");

        assertEquals(Map.of("oncepay.webhook.secrets.stripe.stripe-eu", "whsec_new,whsec_old,whsec_next",
                "oncepay.webhook.secrets.stripe.stripe-us", "whsec_us",
                "oncepay.webhook.secrets.acme-pay.acme-eu", "a1,a2"), properties.properties());
    }

    /** A signing secret that names no account would leave open whose payments its events may move. */
    @Test
    void aSigningSecretWithoutItsAccountIsRefusedNamingTheFormItNeeds() {
        String message = assertRejected(SecretScope.SIGNING_SECRETS, "{\"oncepay.webhook.secrets.stripe\": [\"VALUE-1\"]}",
                "oncepay.webhook.secrets.stripe");
        assertTrue(message.contains("oncepay.webhook.secrets.<provider>.<account>"), message);
    }

    @Test
    void anApiKeyInTwoSecretsIsRefusedNamingTheKeyAndBothSecrets() {
        SecretProperties properties = new SecretProperties(SecretScope.API_KEYS);
        properties.add("first", "{\"oncepay.provider.api-key\": \"VALUE-1\"}");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> properties.add("second", "{\"oncepay.provider.api-key\": \"VALUE-2\"}"));
        assertTrue(e.getMessage().contains("'oncepay.provider.api-key'") && e.getMessage().contains("first"), e.getMessage());
        assertFalse(e.getMessage().contains("VALUE-"), e.getMessage());
    }

    /** The internet-facing webhook function must not start holding a key that moves money. */
    @Test
    void theWebhookScopeRefusesApiKeys() {
        for (String key : List.of("oncepay.provider.api-key", "oncepay.provider.accounts.stripe-eu.api-key")) {
            String message = assertRejected(SecretScope.SIGNING_SECRETS, "{\"" + key + "\": \"VALUE-1\"}", key);
            assertTrue(message.contains("the charge and reconcile functions"), message);
            assertTrue(message.contains("not by the webhook function"), message);
        }
    }

    @Test
    void theApiKeyScopeRefusesSigningSecrets() {
        String message = assertRejected(SecretScope.API_KEYS,
                "{\"oncepay.provider.api-key\": \"VALUE-0\", \"oncepay.webhook.secrets.stripe.stripe-eu\": [\"VALUE-1\"]}",
                "oncepay.webhook.secrets.stripe.stripe-eu");
        assertTrue(message.contains("only by the webhook function"), message);
    }

    /** Webhook secrets are read as a configuration list: each entry must come back exactly. */
    @Test
    void webhookSecretsSurviveListConversion() {
        SecretProperties properties = new SecretProperties(SecretScope.SIGNING_SECRETS);
        properties.add("s", "{\"oncepay.webhook.secrets.sim.default\": [\"whsec_${a}\", \"w$2/+=\"]}");
        SmallRyeConfig config = new SmallRyeConfigBuilder().addDefaultInterceptors()
                .withSources(new PropertiesConfigSource(Map.of("a", "expanded"), "other", 100))
                .withSources(new PropertiesConfigSource(properties.properties(), "test", 275)).build();
        assertEquals(List.of("whsec_${a}", "w$2/+="), config.getValues("oncepay.webhook.secrets.sim.default", String.class));
    }

    @Test
    void anEmptyObjectGivesNoProperties() {
        SecretProperties properties = new SecretProperties(SecretScope.API_KEYS);
        properties.add("s", "{}");
        assertEquals(Map.of(), properties.properties());
    }

    @Test
    void rejectsWhatIsNotASecretPropertyNamingTheKeyButNeverTheValue() {
        for (SecretScope scope : SecretScope.values()) {
            assertRejected(scope, "{\"quarkus.dynamodb.endpoint-override\": \"VALUE-1\"}", "quarkus.dynamodb.endpoint-override");
            assertRejected(scope, "{\"oncepay.table\": \"VALUE-1\"}", "oncepay.table");
            assertRejected(scope, "{\"oncepay.provider.url\": \"VALUE-1\"}", "oncepay.provider.url");
            assertRejected(scope, "{\"oncepay.webhook.secrets.\": \"VALUE-1\"}", "oncepay.webhook.secrets.");
            assertRejected(scope, "{\"oncepay.webhook.secrets.stripe\": \"VALUE-1\"}", "oncepay.webhook.secrets.stripe");
            assertRejected(scope, "{\"oncepay.webhook.secrets.a.b.c\": \"VALUE-1\"}", "oncepay.webhook.secrets.a.b.c");
            assertRejected(scope, "{\"oncepay.provider.accounts.a.b.api-key\": \"VALUE-1\"}", "oncepay.provider.accounts.a.b.api-key");
        }
        SecretScope keys = SecretScope.API_KEYS;
        assertRejected(keys, "{\"oncepay.provider.api-key\": \"\"}", "oncepay.provider.api-key");
        assertRejected(keys, "{\"oncepay.provider.api-key\": [\"VALUE-1\"]}", "oncepay.provider.api-key");
        assertRejected(keys, "{\"oncepay.provider.accounts.x.api-key\": 42}", "oncepay.provider.accounts.x.api-key");
        SecretScope signing = SecretScope.SIGNING_SECRETS;
        assertRejected(signing, "{\"oncepay.webhook.secrets.sim.default\": []}", "oncepay.webhook.secrets.sim.default");
        assertRejected(signing, "{\"oncepay.webhook.secrets.sim.default\": [\"VALUE-1,VALUE-2\"]}", "oncepay.webhook.secrets.sim.default");
        assertRejected(signing, "{\"oncepay.webhook.secrets.sim.default\": \"VALUE-1,,VALUE-2\"}", "oncepay.webhook.secrets.sim.default");
        assertRejected(signing, "{\"oncepay.webhook.secrets.sim.default\": [\"VALUE-1\", 7]}", "oncepay.webhook.secrets.sim.default");
        assertRejected(signing, "{\"oncepay.webhook.secrets.sim.default\": [\"VALUE\\\\1\"]}", "oncepay.webhook.secrets.sim.default");
        assertRejected(signing, "{\"oncepay.webhook.secrets.sim.default\": \"VALUE-1,VALUE\\\\2\"}", "oncepay.webhook.secrets.sim.default");
    }

    @Test
    void rejectsASecretThatIsNotAJsonObjectWithoutQuotingIt() {
        for (String secret : new String[] { "VALUE-1", "\"VALUE-1\"", "[\"VALUE-1\"]", "{\"VALUE-1\"", "", null,
                "{\"oncepay.provider.api-key\":\"VALUE-1\",\"oncepay.provider.api-key\":\"VALUE-2\"}" }) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> new SecretProperties(SecretScope.API_KEYS).add("s", secret));
            assertFalse(e.getMessage().contains("VALUE-"), e.getMessage());
        }
    }

    /** Configuration expands ${…} in values: every value must come back exactly as stored. */
    @Test
    void valuesSurviveExpressionExpansionUnchanged() {
        List<String> values = allStrings(new char[] { 'a', '$', '\\', '{', '}', ':' }, 4);
        Map<String, String> escaped = new HashMap<>();
        for (int i = 0; i < values.size(); i++) {
            escaped.put("k" + i, SecretProperties.escape(values.get(i)));
        }
        escaped.put("a", "expanded");
        SmallRyeConfig config = new SmallRyeConfigBuilder().addDefaultInterceptors()
                .withSources(new PropertiesConfigSource(escaped, "test", 275)).build();
        for (int i = 0; i < values.size(); i++) {
            assertEquals(values.get(i), config.getRawValue("k" + i), "value #" + i);
        }
        String key = "sk_${a}_\\${a}_$$_%{x}";
        SecretProperties properties = new SecretProperties(SecretScope.API_KEYS);
        properties.add("s", "{\"oncepay.provider.api-key\": \"" + key.replace("\\", "\\\\") + "\"}");
        config = new SmallRyeConfigBuilder().addDefaultInterceptors()
                .withSources(new PropertiesConfigSource(properties.properties(), "test", 275)).build();
        assertEquals(key, config.getRawValue("oncepay.provider.api-key"));
    }

    /** The refusal's message, after checking it names the key in quotes and quotes no value. */
    private static String assertRejected(SecretScope scope, String secret, String key) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> new SecretProperties(scope).add("s", secret));
        assertTrue(e.getMessage().contains("'" + key + "'"), e.getMessage());
        assertFalse(e.getMessage().contains("VALUE-"), e.getMessage());
        return e.getMessage();
    }

    private static List<String> allStrings(char[] alphabet, int maxLength) {
        List<String> all = new ArrayList<>();
        List<String> previous = List.of("");
        for (int length = 1; length <= maxLength; length++) {
            List<String> next = new ArrayList<>();
            for (String p : previous) {
                for (char c : alphabet) {
                    next.add(p + c);
                }
            }
            all.addAll(next);
            previous = next;
        }
        return all;
    }
}
