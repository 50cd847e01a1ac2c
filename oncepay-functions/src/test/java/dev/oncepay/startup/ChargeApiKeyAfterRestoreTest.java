package dev.oncepay.startup;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import dev.oncepay.config.SecretsManagerStub;
import dev.oncepay.testkit.HttpApiEvents;
import dev.oncepay.testing.LambdaClient;
import dev.oncepay.testing.TestEnvironment;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import jakarta.inject.Inject;
import java.net.URI;
import java.util.Map;
import java.util.UUID;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.junit.jupiter.api.Test;

/**
 * The charge function's provider API key from Secrets Manager (a local stand-in): the key in the
 * snapshot is used until the restore, and the rotated one after it. The simulator's Stripe API
 * takes only {@code sk_test_} keys, so a rotation to a revoked-looking key shows which one is sent.
 */
@QuarkusTest
@TestProfile(ChargeApiKeyAfterRestoreTest.ApiKeyFromSecretsManager.class)
@WithTestResource(value = TestEnvironment.class, scope = TestResourceScope.GLOBAL)
class ChargeApiKeyAfterRestoreTest {
    static final String SECRET_ID = "oncepay/stripe-test-key";
    static final String KEY_PROPERTY = "oncepay.provider.accounts.stripe-test.api-key";

    /** The charge function's environment on Lambda: its API-key secret listed, Secrets Manager at the stand-in. */
    public static class ApiKeyFromSecretsManager implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return SecretsManagerStub.lambdaWithSecret("charge", SECRET_ID, apiKeySecret("sk_test_of_the_snapshot"));
        }
    }

    @Inject
    SnapStartHooks hooks;
    @ConfigProperty(name = "AWS_ENDPOINT_URL_SECRETS_MANAGER")
    URI secretsManager;

    @Test
    void theRotatedApiKeyIsSentOnceRestored() throws Exception {
        TestEnvironment.simulator().reset();
        assertEquals(201, charge(), "the key read at init is accepted");

        rotate(apiKeySecret("sk_revoked_since"));
        assertEquals(201, charge(), "until the restore the snapshot's key is used");
        int executed = TestEnvironment.simulator().ledger().size();

        hooks.afterRestore(null);

        assertNotEquals(201, charge(), "the rotated key is sent, and refused by the provider");
        assertEquals(executed, TestEnvironment.simulator().ledger().size(), "nothing charged with it");
    }

    private static int charge() {
        String body = "{\"amount\":4200,\"currency\":\"EUR\",\"reference\":\"order_" + UUID.randomUUID().toString().substring(0, 8)
                + "\",\"paymentMethod\":\"pm_card_visa\"}";
        return LambdaClient.call(HttpApiEvents.postPayment("merchant-stripe", "key-" + UUID.randomUUID(), body)).status();
    }

    private void rotate(String secretString) throws Exception {
        SecretsManagerStub.put(secretsManager, SECRET_ID, secretString);
    }

    private static String apiKeySecret(String key) {
        return "{\"" + KEY_PROPERTY + "\": \"" + key + "\"}";
    }
}
