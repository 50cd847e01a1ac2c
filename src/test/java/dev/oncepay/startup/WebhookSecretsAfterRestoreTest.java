package dev.oncepay.startup;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.oncepay.config.DeploymentSettings;
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
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.Map;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.junit.jupiter.api.Test;

/**
 * The webhook function reading its signing secret from Secrets Manager (a local stand-in over the
 * real API), as deployed: a secret rotated after the snapshot is used once the sandbox is restored,
 * and the one it replaced, removed from the secret, is refused. Through the function's real entry point.
 */
@QuarkusTest
@TestProfile(WebhookSecretsAfterRestoreTest.SecretsFromSecretsManager.class)
@WithTestResource(value = TestEnvironment.class, scope = TestResourceScope.GLOBAL)
class WebhookSecretsAfterRestoreTest {
    static final String SECRET_ID = "oncepay/webhook-signing";
    static final String OLD = "sim-secret-of-the-snapshot";
    static final String NEW = "sim-secret-rotated-since";
    private static final ObjectMapper JSON = new ObjectMapper();

    /** The function's environment on Lambda: its secrets listed, Secrets Manager at the stand-in. */
    public static class SecretsFromSecretsManager implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            SecretsManagerStub secretsManager;
            try {
                // The default credentials chain of the reader finds these (any will do for the stand-in).
                System.setProperty("aws.accessKeyId", "AKIDEXAMPLE");
                System.setProperty("aws.secretAccessKey", "secret");
                // Left running for the JVM: the application reads it again at each restore.
                secretsManager = new SecretsManagerStub().secret(SECRET_ID, signingSecret(OLD));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            return Map.of(
                    "quarkus.funqy.export", "webhook",
                    DeploymentSettings.ENV_SECRET_ARNS, SECRET_ID,
                    // Only the secrets factory reads it from the configuration; the poll loop reads the real environment.
                    DeploymentSettings.ENV_LAMBDA_RUNTIME_API, "127.0.0.1:9",
                    "AWS_REGION", "us-east-1",
                    "AWS_ENDPOINT_URL_SECRETS_MANAGER", secretsManager.endpoint().toString());
        }
    }

    @Inject
    SnapStartHooks hooks;
    @ConfigProperty(name = "AWS_ENDPOINT_URL_SECRETS_MANAGER")
    URI secretsManager;

    @Test
    void aSecretRotatedAfterTheSnapshotIsUsedOnceRestored() throws Exception {
        assertEquals(200, deliverySignedWith(OLD), "the secret read at init verifies");

        rotate(signingSecret(NEW));
        assertEquals(401, deliverySignedWith(NEW), "the snapshot still holds the old secret");

        hooks.afterRestore(null);

        assertEquals(200, deliverySignedWith(NEW), "the rotated secret is read after the restore");
        assertEquals(401, deliverySignedWith(OLD), "the secret removed from Secrets Manager no longer verifies");
    }

    private static int deliverySignedWith(String secret) {
        String body = WebhookRequests.chargeEvent(WebhookRequests.newEventId(), "charge.succeeded",
                ChargePrimer.NEVER_ISSUED_ID, "ch_restore", 100, "EUR");
        return LambdaClient.call(WebhookRequests.event("sim", body, WebhookRequests.signNow(secret, body))).status();
    }

    /** The rotation puts the new value in Secrets Manager (the old one is gone from the secret). */
    private void rotate(String secretString) throws Exception {
        String body = "{\"SecretId\":\"" + SECRET_ID + "\",\"SecretString\":" + JSON.writeValueAsString(secretString) + "}";
        HttpResponse<String> answer = HttpClient.newHttpClient().send(HttpRequest.newBuilder(secretsManager)
                .header("X-Amz-Target", SecretsManagerStub.PUT_TARGET).header("Content-Type", "application/x-amz-json-1.1")
                .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(200, answer.statusCode());
    }

    private static String signingSecret(String secret) {
        return "{\"oncepay.webhook.secrets.sim\": [\"" + secret + "\"]}";
    }
}
