package dev.oncepay.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.auth.credentials.AwsSessionCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.http.SdkHttpClient;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;

/** The SDK's Secrets Manager client against a local stand-in for its JSON API: no AWS needed. */
class SecretsManagerReaderTest {
    private static final String ARN = "arn:aws:secretsmanager:eu-west-1:123456789012:secret:oncepay-AbCdEf";

    private SecretsManagerStub stub;
    private SdkHttpClient http;

    @BeforeEach
    void start() throws IOException {
        stub = new SecretsManagerStub();
        http = UrlConnectionHttpClient.builder().socketTimeout(Duration.ofSeconds(5)).build();
    }

    @AfterEach
    void stop() {
        stub.close();
        http.close();
    }

    @Test
    void sendsASignedGetSecretValueAndReturnsTheSecretString() {
        stub.secret(ARN, "{\"k\":\"v\"}");

        try (SecretsManagerReader reader = reader()) {
            assertEquals("{\"k\":\"v\"}", reader.secretString(ARN));
        }

        SecretsManagerStub.Request request = stub.requests.get(0);
        assertEquals(SecretsManagerStub.TARGET, request.header("X-Amz-Target"));
        assertEquals(SecretsManagerStub.CONTENT_TYPE, request.header("Content-Type"));
        String authorization = request.header("Authorization");
        assertTrue(authorization.startsWith("AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/"), authorization);
        assertTrue(authorization.contains("/eu-west-1/secretsmanager/aws4_request"), authorization);
        assertTrue(authorization.contains("x-amz-target"), "the target header is signed: " + authorization);
        assertEquals("session-token", request.header("X-Amz-Security-Token"));
        assertEquals(ARN, request.body().get("SecretId").asText());
    }

    @Test
    void retriesServerErrors() {
        stub.failNext(500, "InternalServiceError", "boom").failNext(503, "ServiceUnavailable", "").secret(ARN, "s");

        try (SecretsManagerReader reader = reader()) {
            assertEquals("s", reader.secretString(ARN));
        }
        assertEquals(3, stub.requests.size());
    }

    @Test
    void givesUpAfterThreeAttempts() {
        for (int i = 0; i < 3; i++) {
            stub.failNext(500, "InternalServiceError", "boom");
        }
        stub.secret(ARN, "VALUE-1");
        try (SecretsManagerReader reader = reader()) {
            IllegalStateException e = assertThrows(IllegalStateException.class, () -> reader.secretString(ARN));
            assertTrue(e.getMessage().contains("Status Code: 500"), e.getMessage());
        }
        assertEquals(3, stub.requests.size());
    }

    @Test
    void anAccessErrorFailsAtOnceWithAwsTypeAndMessage() {
        stub.failNext(400, "AccessDeniedException", "not authorized to perform GetSecretValue");

        try (SecretsManagerReader reader = reader()) {
            IllegalStateException e = assertThrows(IllegalStateException.class, () -> reader.secretString(ARN));
            assertTrue(e.getMessage().contains("AccessDeniedException"), e.getMessage());
            assertTrue(e.getMessage().contains("not authorized"), e.getMessage());
            assertTrue(e.getMessage().contains(ARN), e.getMessage());
        }
        assertEquals(1, stub.requests.size());
    }

    @Test
    void aBinarySecretIsRefusedWithoutQuotingIt() {
        stub.binarySecret(ARN, "VkFMVUUtMQ==");

        try (SecretsManagerReader reader = reader()) {
            IllegalStateException e = assertThrows(IllegalStateException.class, () -> reader.secretString(ARN));
            assertTrue(e.getMessage().contains("no SecretString"), e.getMessage());
            assertFalse(e.getMessage().contains("VkFMVUUtMQ"), e.getMessage());
        }
    }

    @Test
    void theRegionComesFromTheArnElseFromTheEnvironment() {
        assertEquals(Optional.of("eu-west-1"), SecretsManagerReader.regionOf(ARN));
        assertEquals(Optional.of("cn-north-1"),
                SecretsManagerReader.regionOf("arn:aws-cn:secretsmanager:cn-north-1:123456789012:secret:x:y"));
        assertEquals(Optional.empty(), SecretsManagerReader.regionOf("oncepay/prod"));
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> SecretsManagerReader.read(List.of("oncepay/prod"), name -> Optional.empty()));
        assertTrue(e.getMessage().contains("AWS_REGION"), e.getMessage());
    }

    @Test
    void secretsFromTwoRegionsAreRefusedBeforeAnyIsRead() {
        Map<String, String> env = Map.of("AWS_ENDPOINT_URL_SECRETS_MANAGER", stub.endpoint().toString());
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> SecretsManagerReader.read(
                List.of(ARN, ARN.replace("eu-west-1", "us-east-1")), name -> Optional.ofNullable(env.get(name))));
        assertTrue(e.getMessage().contains("us-east-1"), e.getMessage());
        assertEquals(List.of(), stub.requests);
    }

    private SecretsManagerReader reader() {
        return new SecretsManagerReader(Region.EU_WEST_1, Optional.of(stub.endpoint()),
                StaticCredentialsProvider.create(AwsSessionCredentials.create("AKIDEXAMPLE", "secret", "session-token")),
                http);
    }
}
