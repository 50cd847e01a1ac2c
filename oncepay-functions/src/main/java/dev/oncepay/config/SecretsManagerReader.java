package dev.oncepay.config;

import dev.oncepay.contract.DeploymentSettings;

import java.net.URI;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.auth.credentials.DefaultCredentialsProvider;
import software.amazon.awssdk.awscore.exception.AwsServiceException;
import software.amazon.awssdk.awscore.retry.AwsRetryStrategy;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.http.SdkHttpClient;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.secretsmanager.SecretsManagerClient;
import software.amazon.awssdk.services.secretsmanager.SecretsManagerClientBuilder;
import software.amazon.awssdk.services.secretsmanager.model.GetSecretValueResponse;

/**
 * Secrets Manager's {@code GetSecretValue} through the SDK's own client over the url-connection
 * HTTP client (the one HTTP stack of the build). It runs while configuration is being built,
 * before CDI exists, so it builds its client by hand instead of using a managed one, and closes
 * it when done: secrets are read once, at startup. The SDK's standard retry mode retries
 * throttling, 5xx and connection failures (3 attempts).
 *
 * <p>Never logs or quotes a secret; errors carry the AWS error type and message only.
 */
final class SecretsManagerReader implements AutoCloseable {
    private final SecretsManagerClient client;

    SecretsManagerReader(Region region, Optional<URI> endpoint, AwsCredentialsProvider credentials, SdkHttpClient http) {
        SecretsManagerClientBuilder builder = SecretsManagerClient.builder()
                .region(region)
                .credentialsProvider(credentials)
                .httpClient(http)
                .overrideConfiguration(o -> o
                        .retryStrategy(AwsRetryStrategy.standardRetryStrategy())
                        .apiCallAttemptTimeout(Duration.ofSeconds(3))
                        .apiCallTimeout(Duration.ofSeconds(10)));
        endpoint.ifPresent(builder::endpointOverride);
        client = builder.build();
    }

    /**
     * The {@code SecretString} of each of {@code secretIds}, in order, read with the default AWS
     * credentials chain (on Lambda: the function role's). {@code env} looks up environment
     * settings: {@code AWS_REGION} unless the first id is an ARN, which names its region, and an
     * optional {@code AWS_ENDPOINT_URL_SECRETS_MANAGER} / {@code AWS_ENDPOINT_URL}.
     */
    static Map<String, String> read(List<String> secretIds, Function<String, Optional<String>> env) {
        String region = regionOf(secretIds.get(0)).or(() -> env.apply("AWS_REGION"))
                .orElseThrow(() -> new IllegalStateException(
                        "no AWS region: " + DeploymentSettings.ENV_SECRET_ARNS + " starts with no ARN and AWS_REGION is not set"));
        for (String id : secretIds) {
            if (regionOf(id).filter(r -> !r.equals(region)).isPresent()) {
                throw new IllegalStateException("secret " + id + " is not in " + region + ", the region of the others");
            }
        }
        Optional<URI> endpoint = env.apply("AWS_ENDPOINT_URL_SECRETS_MANAGER").or(() -> env.apply("AWS_ENDPOINT_URL"))
                .map(URI::create);
        try (DefaultCredentialsProvider credentials = DefaultCredentialsProvider.builder().build();
                SdkHttpClient http = UrlConnectionHttpClient.builder()
                        .connectionTimeout(Duration.ofSeconds(2))
                        .socketTimeout(Duration.ofSeconds(3))
                        .build();
                SecretsManagerReader reader = new SecretsManagerReader(Region.of(region), endpoint, credentials, http)) {
            Map<String, String> secrets = new LinkedHashMap<>();
            for (String id : secretIds) {
                secrets.put(id, reader.secretString(id));
            }
            return secrets;
        }
    }

    /** The secret's {@code SecretString}. */
    String secretString(String secretId) {
        GetSecretValueResponse answer;
        try {
            answer = client.getSecretValue(r -> r.secretId(secretId));
        } catch (AwsServiceException e) {
            // The AWS error code and message, the status and request id; never a value.
            throw new IllegalStateException("reading secret " + secretId + " failed: "
                    + (e.awsErrorDetails() == null ? "" : e.awsErrorDetails().errorCode() + ": ") + e.getMessage(), e);
        } catch (SdkException e) {
            throw new IllegalStateException("reading secret " + secretId + " failed: " + e.getMessage(), e);
        }
        if (answer.secretString() == null) {
            throw new IllegalStateException("secret " + secretId + " has no SecretString (binary secrets are not supported)");
        }
        return answer.secretString();
    }

    /** {@code arn:<partition>:secretsmanager:<region>:<account>:secret:<name>} carries its region. */
    static Optional<String> regionOf(String secretId) {
        String[] parts = secretId.split(":", 7);
        if (parts.length == 7 && parts[0].equals("arn") && parts[2].equals("secretsmanager") && !parts[3].isEmpty()) {
            return Optional.of(parts[3]);
        }
        return Optional.empty();
    }

    @Override
    public void close() {
        client.close();
    }
}
