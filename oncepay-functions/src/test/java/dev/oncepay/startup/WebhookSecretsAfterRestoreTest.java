package dev.oncepay.startup;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.oncepay.config.SecretsManagerStub;
import dev.oncepay.testing.LambdaClient;
import dev.oncepay.testing.TestEnvironment;
import dev.oncepay.webhook.WebhookRequests;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import jakarta.inject.Inject;
import java.net.URI;
import java.util.Map;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.junit.jupiter.api.Test;

/**
 * The webhook function reading its signing secret from Secrets Manager (a local stand-in over the
 * real API), as deployed: a secret rotated after the snapshot, and the secret of an account added
 * since, are used once the sandbox is restored, and the one it replaced, removed from the secret, is refused. Through the function's real entry point.
 */
@QuarkusTest
@TestProfile(WebhookSecretsAfterRestoreTest.SecretsFromSecretsManager.class)
@WithTestResource(value = TestEnvironment.class, scope = TestResourceScope.GLOBAL)
class WebhookSecretsAfterRestoreTest {
    static final String SECRET_ID = "oncepay/webhook-signing";
    static final String OLD = "sim-secret-of-the-snapshot";
    static final String NEW = "sim-secret-rotated-since";
    static final String OTHER_ACCOUNT = "sim-secret-of-an-account-added-since";

    /** The function's environment on Lambda: its secrets listed, Secrets Manager at the stand-in. */
    public static class SecretsFromSecretsManager implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return SecretsManagerStub.lambdaWithSecret("webhook", SECRET_ID, signingSecret(OLD));
        }
    }

    @Inject
    SnapStartHooks hooks;
    @ConfigProperty(name = "AWS_ENDPOINT_URL_SECRETS_MANAGER")
    URI secretsManager;

    @Test
    void aSecretRotatedAfterTheSnapshotIsUsedOnceRestored() throws Exception {
        assertEquals(200, deliverySignedWith(OLD), "the secret read at init verifies");

        rotate("{\"oncepay.webhook.secrets.sim.default\": [\"" + NEW + "\"], \"oncepay.webhook.secrets.sim.other\": [\""
                + OTHER_ACCOUNT + "\"]}");
        assertEquals(401, deliverySignedWith(NEW), "the snapshot still holds the old secret");
        assertEquals(401, deliverySignedWith(OTHER_ACCOUNT), "and not the account added since");

        hooks.afterRestore(null);

        assertEquals(200, deliverySignedWith(NEW), "the rotated secret is read after the restore");
        assertEquals(200, deliverySignedWith(OTHER_ACCOUNT), "so is the secret of the account added since");
        assertEquals(401, deliverySignedWith(OLD), "the secret removed from Secrets Manager no longer verifies");
    }

    private static int deliverySignedWith(String secret) {
        String body = WebhookRequests.chargeEvent(WebhookRequests.newEventId(), "charge.succeeded",
                ChargePrimer.NEVER_ISSUED_ID, "ch_restore", 100, "EUR");
        return LambdaClient.call(WebhookRequests.event("sim", body, WebhookRequests.signNow(secret, body))).status();
    }

    /** The rotation puts the new value in Secrets Manager (the old one is gone from the secret). */
    private void rotate(String secretString) throws Exception {
        SecretsManagerStub.put(secretsManager, SECRET_ID, secretString);
    }

    private static String signingSecret(String secret) {
        return "{\"oncepay.webhook.secrets.sim.default\": [\"" + secret + "\"]}";
    }
}
