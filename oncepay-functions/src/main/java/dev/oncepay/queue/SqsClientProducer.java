package dev.oncepay.queue;

import dev.oncepay.config.OncepayConfig;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Disposes;
import jakarta.enterprise.inject.Produces;
import java.net.URI;
import java.time.Duration;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.DefaultCredentialsProvider;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.retries.api.RetryStrategy;
import software.amazon.awssdk.awscore.retry.AwsRetryStrategy;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.SqsClientBuilder;

/**
 * The SDK's SQS client over the url-connection HTTP client, the build's one HTTP stack (the
 * Quarkiverse SQS extension does not resolve at this BOM; docs/adr/0022). In Lambda the region and
 * the credentials come from the function's environment; with {@code oncepay.queue.endpoint-override}
 * (ElasticMQ) static placeholders, which it does not check. Bounded like the store's calls: a
 * queue that does not answer within seconds fails the send, and the charge says so before any
 * provider call.
 */
public class SqsClientProducer {
    /** Attempts of one send, the first included (the SDK's standard mode retries throttles and 5xx). */
    static final int MAX_ATTEMPTS = 3;

    @Produces
    @ApplicationScoped
    SqsClient sqsClient(OncepayConfig config) {
        RetryStrategy retries = AwsRetryStrategy.standardRetryStrategy().toBuilder().maxAttempts(MAX_ATTEMPTS).build();
        SqsClientBuilder builder = SqsClient.builder()
                .httpClient(UrlConnectionHttpClient.builder().connectionTimeout(Duration.ofSeconds(1)).build())
                .overrideConfiguration(o -> o.retryStrategy(retries)
                        .apiCallAttemptTimeout(Duration.ofSeconds(1))
                        .apiCallTimeout(Duration.ofSeconds(3)));
        config.queue().endpointOverride().ifPresentOrElse(endpoint -> builder.endpointOverride(URI.create(endpoint))
                .region(Region.US_EAST_1)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("local", "local"))),
                () -> builder.credentialsProvider(DefaultCredentialsProvider.builder().build()));
        return builder.build();
    }

    void close(@Disposes SqsClient client) {
        client.close();
    }
}
