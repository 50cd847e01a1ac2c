package dev.oncepay.config;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Optional;
import java.util.function.Function;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.auth.credentials.DefaultCredentialsProvider;
import software.amazon.awssdk.http.ContentStreamProvider;
import software.amazon.awssdk.http.HttpExecuteRequest;
import software.amazon.awssdk.http.HttpExecuteResponse;
import software.amazon.awssdk.http.SdkHttpClient;
import software.amazon.awssdk.http.SdkHttpMethod;
import software.amazon.awssdk.http.SdkHttpRequest;
import software.amazon.awssdk.http.auth.aws.signer.AwsV4HttpSigner;
import software.amazon.awssdk.http.auth.spi.signer.SignedRequest;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.PartitionMetadata;
import software.amazon.awssdk.regions.Region;

/**
 * One call, Secrets Manager's {@code GetSecretValue}, signed with SigV4 by the AWS SDK's own
 * signer and sent with the SDK's url-connection client, both already in the build for DynamoDB.
 * It runs while configuration is being built, before CDI exists, so it cannot use a managed
 * client; a hand-made SDK service client is not available either (the Secrets Manager SDK
 * module and its Quarkus extension do not resolve with this build's BOM).
 *
 * <p>Never logs or quotes the secret; error messages carry the AWS error type and message only.
 */
final class SecretsManagerReader {
    static final String TARGET = "secretsmanager.GetSecretValue";
    static final String CONTENT_TYPE = "application/x-amz-json-1.1";
    private static final int MAX_ATTEMPTS = 3;
    private static final ObjectMapper JSON = new ObjectMapper();

    private final URI endpoint;
    private final String region;
    private final AwsCredentialsProvider credentials;
    private final SdkHttpClient http;

    SecretsManagerReader(URI endpoint, String region, AwsCredentialsProvider credentials, SdkHttpClient http) {
        this.endpoint = endpoint;
        this.region = region;
        this.credentials = credentials;
        this.http = http;
    }

    /**
     * Reads {@code secretId} with the default AWS credentials chain (on Lambda: the function
     * role's credentials in the environment). {@code env} looks up environment settings.
     */
    static String read(String secretId, Function<String, Optional<String>> env) {
        String region = regionOf(secretId).or(() -> env.apply("AWS_REGION"))
                .orElseThrow(() -> new IllegalStateException(
                        "no AWS region: " + DeploymentSettings.ENV_SECRET_ARN + " is not an ARN and AWS_REGION is not set"));
        URI endpoint = env.apply("AWS_ENDPOINT_URL_SECRETS_MANAGER").or(() -> env.apply("AWS_ENDPOINT_URL"))
                .map(URI::create)
                .orElseGet(() -> URI.create("https://secretsmanager." + region + "."
                        + PartitionMetadata.of(Region.of(region)).dnsSuffix()));
        try (DefaultCredentialsProvider credentials = DefaultCredentialsProvider.builder().build();
                SdkHttpClient http = UrlConnectionHttpClient.builder()
                        .connectionTimeout(Duration.ofSeconds(2))
                        .socketTimeout(Duration.ofSeconds(5))
                        .build()) {
            return new SecretsManagerReader(endpoint, region, credentials, http).secretString(secretId);
        }
    }

    /** The secret's {@code SecretString}. */
    String secretString(String secretId) {
        byte[] body = requestBody(secretId);
        RuntimeException last = null;
        for (int attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
            try {
                return call(body, secretId);
            } catch (Retryable e) {
                last = new IllegalStateException(e.getMessage(), e.getCause());
                pause(attempt);
            }
        }
        throw last;
    }

    private String call(byte[] body, String secretId) {
        SdkHttpRequest request = SdkHttpRequest.builder()
                .method(SdkHttpMethod.POST)
                .uri(endpoint.resolve("/"))
                .putHeader("Content-Type", CONTENT_TYPE)
                .putHeader("X-Amz-Target", TARGET)
                .putHeader("Content-Length", Integer.toString(body.length))
                .build();
        SignedRequest signed = AwsV4HttpSigner.create().sign(r -> r
                .identity(credentials.resolveCredentials())
                .request(request)
                .payload(ContentStreamProvider.fromByteArray(body))
                .putProperty(AwsV4HttpSigner.SERVICE_SIGNING_NAME, "secretsmanager")
                .putProperty(AwsV4HttpSigner.REGION_NAME, region));
        int status;
        String responseBody;
        try {
            HttpExecuteResponse response = http.prepareRequest(HttpExecuteRequest.builder()
                    .request(signed.request())
                    .contentStreamProvider(ContentStreamProvider.fromByteArray(body))
                    .build()).call();
            status = response.httpResponse().statusCode();
            responseBody = response.responseBody().map(SecretsManagerReader::readAll).orElse("");
        } catch (IOException e) {
            throw new Retryable("Secrets Manager at " + endpoint + " could not be reached: " + e, e);
        }
        JsonNode answer = parse(responseBody);
        if (status / 100 == 2) {
            JsonNode value = answer.get("SecretString");
            if (value == null || !value.isTextual()) {
                throw new IllegalStateException("secret " + secretId + " has no SecretString (binary secrets are not supported)");
            }
            return value.textValue();
        }
        String type = answer.path("__type").asText("unknown error");
        String message = answer.has("message") ? answer.get("message").asText()
                : answer.path("Message").asText("");
        String failure = "reading secret " + secretId + " failed: HTTP " + status + " " + type
                + (message.isEmpty() ? "" : " (" + message + ")");
        if (status >= 500 || type.contains("Throttling")) {
            throw new Retryable(failure, null);
        }
        throw new IllegalStateException(failure);
    }

    static byte[] requestBody(String secretId) {
        return JSON.createObjectNode().put("SecretId", secretId).toString().getBytes(StandardCharsets.UTF_8);
    }

    /** {@code arn:<partition>:secretsmanager:<region>:<account>:secret:<name>} carries its region. */
    static Optional<String> regionOf(String secretId) {
        String[] parts = secretId.split(":", 7);
        if (parts.length == 7 && parts[0].equals("arn") && parts[2].equals("secretsmanager") && !parts[3].isEmpty()) {
            return Optional.of(parts[3]);
        }
        return Optional.empty();
    }

    private static JsonNode parse(String body) {
        try {
            return body.isBlank() ? JSON.createObjectNode() : JSON.readTree(body);
        } catch (IOException e) {
            return JSON.createObjectNode();
        }
    }

    private static String readAll(InputStream in) {
        try (in) {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            in.transferTo(out);
            return out.toString(StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new Retryable("reading the Secrets Manager answer failed: " + e, e);
        }
    }

    private static void pause(int attempt) {
        if (attempt == MAX_ATTEMPTS) {
            return;
        }
        try {
            Thread.sleep(200L * attempt);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** A failure worth another attempt (no answer, 5xx, throttling). */
    private static final class Retryable extends RuntimeException {
        Retryable(String message, Throwable cause) {
            super(message, cause);
        }
    }
}
