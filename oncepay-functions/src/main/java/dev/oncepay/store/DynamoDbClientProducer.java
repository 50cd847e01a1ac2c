package dev.oncepay.store;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;
import software.amazon.awssdk.awscore.retry.AwsRetryStrategy;
import software.amazon.awssdk.core.client.config.ClientOverrideConfiguration;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.DynamoDbClientBuilder;

/**
 * The DynamoDB client, built by the extension and given an explicit retry policy: SDK
 * "standard" mode, 3 attempts with a retry token bucket (legacy mode would allow 8 for
 * DynamoDB). Conditional-check failures are answers, never retried. The SDK's retries are the
 * only retries of DynamoDB calls; provider calls are retried elsewhere, never stacked on these.
 * A retried write may already have committed (its answer was lost): every write is conditional,
 * and each caller recognises its own earlier write when the retry's condition fails. The time a
 * call may take is bounded by {@code quarkus.dynamodb.api-call-timeout} (all attempts) and
 * {@code api-call-attempt-timeout} (one attempt, so a stalled connection is abandoned and retried);
 * see application.properties for why the numbers. Its HTTP transport is the one the extension
 * configures ({@code quarkus.dynamodb.sync-client.type=url}: the SDK's url-connection client, on
 * {@code HttpURLConnection}), which sends a request once: it never re-sends a POST whose body it
 * streamed, and an attempt timeout's abort disconnects the stalled exchange (StoreTransportTest).
 */
@ApplicationScoped
public class DynamoDbClientProducer {
    static final int MAX_ATTEMPTS = 3;

    @Produces
    @ApplicationScoped
    DynamoDbClient dynamoDbClient(DynamoDbClientBuilder builder) {
        // Amend, not replace: the extension's configuration carries the execution interceptors.
        ClientOverrideConfiguration configured = builder.overrideConfiguration();
        return builder
                .overrideConfiguration(configured.toBuilder()
                        .retryStrategy(AwsRetryStrategy.standardRetryStrategy().toBuilder()
                                .maxAttempts(MAX_ATTEMPTS).build())
                        .build())
                .build();
    }
}
