package dev.oncepay.config;

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
import org.junit.jupiter.api.Test;

class SecretPropertiesTest {

    @Test
    void mapsTheApiKeyAndWebhookSecretsToProperties() {
        Map<String, String> properties = SecretProperties.fromJson("""
                {"oncepay.provider.api-key": "sk_live_1",
                 "oncepay.webhook.secrets.sim": ["whsec_new", "whsec_old"],
                 "oncepay.webhook.secrets.acme-pay": "a1,a2"}
                """);

        assertEquals(Map.of(
                "oncepay.provider.api-key", "sk_live_1",
                "oncepay.webhook.secrets.sim", "whsec_new,whsec_old",
                "oncepay.webhook.secrets.acme-pay", "a1,a2"), properties);
    }

    /** Webhook secrets are read as a configuration list: each entry must come back exactly. */
    @Test
    void webhookSecretsSurviveListConversion() {
        Map<String, String> properties = SecretProperties.fromJson(
                "{\"oncepay.webhook.secrets.sim\": [\"whsec_${a}\", \"w$2/+=\"]}");
        SmallRyeConfig config = new SmallRyeConfigBuilder().addDefaultInterceptors()
                .withSources(new PropertiesConfigSource(Map.of("a", "expanded"), "other", 100))
                .withSources(new PropertiesConfigSource(properties, "test", 275)).build();
        assertEquals(List.of("whsec_${a}", "w$2/+="), config.getValues("oncepay.webhook.secrets.sim", String.class));
    }

    @Test
    void anEmptyObjectGivesNoProperties() {
        assertEquals(Map.of(), SecretProperties.fromJson("{}"));
    }

    @Test
    void rejectsWhatIsNotASecretPropertyNamingTheKeyButNeverTheValue() {
        assertRejected("{\"quarkus.dynamodb.endpoint-override\": \"VALUE-1\"}", "quarkus.dynamodb.endpoint-override");
        assertRejected("{\"oncepay.table\": \"VALUE-1\"}", "oncepay.table");
        assertRejected("{\"oncepay.webhook.secrets.\": \"VALUE-1\"}", "oncepay.webhook.secrets.");
        assertRejected("{\"oncepay.webhook.secrets.a.b\": \"VALUE-1\"}", "oncepay.webhook.secrets.a.b");
        assertRejected("{\"oncepay.provider.api-key\": \"\"}", "oncepay.provider.api-key");
        assertRejected("{\"oncepay.provider.api-key\": [\"VALUE-1\"]}", "oncepay.provider.api-key");
        assertRejected("{\"oncepay.provider.api-key\": 42}", "oncepay.provider.api-key");
        assertRejected("{\"oncepay.webhook.secrets.sim\": []}", "oncepay.webhook.secrets.sim");
        assertRejected("{\"oncepay.webhook.secrets.sim\": [\"VALUE-1,VALUE-2\"]}", "oncepay.webhook.secrets.sim");
        assertRejected("{\"oncepay.webhook.secrets.sim\": \"VALUE-1,,VALUE-2\"}", "oncepay.webhook.secrets.sim");
        assertRejected("{\"oncepay.webhook.secrets.sim\": [\"VALUE-1\", 7]}", "oncepay.webhook.secrets.sim");
        assertRejected("{\"oncepay.webhook.secrets.sim\": [\"VALUE\\\\1\"]}", "oncepay.webhook.secrets.sim");
        assertRejected("{\"oncepay.webhook.secrets.sim\": \"VALUE-1,VALUE\\\\2\"}", "oncepay.webhook.secrets.sim");
    }

    @Test
    void rejectsASecretThatIsNotAJsonObjectWithoutQuotingIt() {
        for (String secret : new String[] { "VALUE-1", "\"VALUE-1\"", "[\"VALUE-1\"]", "{\"VALUE-1\"", "",
                "{\"oncepay.provider.api-key\":\"VALUE-1\",\"oncepay.provider.api-key\":\"VALUE-2\"}" }) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> SecretProperties.fromJson(secret));
            assertFalse(e.getMessage().contains("VALUE-"), e.getMessage());
        }
        assertThrows(IllegalArgumentException.class, () -> SecretProperties.fromJson(null));
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
        Map<String, String> properties = SecretProperties.fromJson(
                "{\"oncepay.provider.api-key\": \"" + key.replace("\\", "\\\\") + "\"}");
        config = new SmallRyeConfigBuilder().addDefaultInterceptors()
                .withSources(new PropertiesConfigSource(properties, "test", 275)).build();
        assertEquals(key, config.getRawValue("oncepay.provider.api-key"));
    }

    private static void assertRejected(String secret, String key) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> SecretProperties.fromJson(secret));
        assertTrue(e.getMessage().contains("'" + key + "'"), e.getMessage());
        assertFalse(e.getMessage().contains("VALUE-"), e.getMessage());
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
