package dev.oncepay.local;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.oncepay.contract.DeploymentSettings;
import dev.oncepay.testkit.ElasticMq;
import java.net.URI;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.http.SdkHttpClient;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.QueueAttributeName;

/**
 * The charge queues of the local run: ElasticMQ (SQS's API, in this JVM, in memory) with one
 * queue per provider account and its dead-letter queue, set as {@code infra/} sets them: the
 * visibility timeout, a message kept for the queue horizon, and a redrive to the dead-letter queue
 * after {@link DeploymentSettings#CHARGE_QUEUE_MAX_RECEIVES} receives. ElasticMQ takes the
 * retention periods but keeps every message until it is deleted or the run stops.
 */
final class LocalQueues implements AutoCloseable {
    private static final ObjectMapper JSON = new ObjectMapper();

    /**
     * One account's charge queue.
     *
     * @param arn as Lambda's events name it (region and account from the queue URL, as on SQS)
     */
    record ChargeQueue(String account, String name, String url, String arn, String deadLetterUrl) {
    }

    private final ElasticMq server;
    private final Map<String, ChargeQueue> queues = new LinkedHashMap<>();

    private LocalQueues(ElasticMq server) {
        this.server = server;
    }

    /**
     * Starts ElasticMQ on {@code port} (0: a free one) and creates the charge queues of {@code accounts}.
     *
     * @param visibility the charge queues' visibility timeout, in whole seconds
     */
    static LocalQueues start(int port, List<String> accounts, Duration visibility) {
        LocalQueues local = new LocalQueues(ElasticMq.start(port));
        try (SqsClient sqs = client(local.endpoint(), UrlConnectionHttpClient.create())) {
            for (String account : accounts) {
                local.queues.put(account, create(sqs, account, visibility));
            }
        } catch (RuntimeException e) {
            local.close();
            throw e;
        }
        return local;
    }

    private static ChargeQueue create(SqsClient sqs, String account, Duration visibility) {
        String deadLetterUrl = sqs.createQueue(b -> b.queueName(DeploymentSettings.chargeDeadLetterQueueName(account))
                .attributes(Map.of(QueueAttributeName.MESSAGE_RETENTION_PERIOD,
                        Integer.toString(DeploymentSettings.DEAD_LETTER_RETENTION_SECONDS)))).queueUrl();
        String redrive = JSON.createObjectNode().put("deadLetterTargetArn", arn(deadLetterUrl))
                .put("maxReceiveCount", Integer.toString(DeploymentSettings.CHARGE_QUEUE_MAX_RECEIVES)).toString();
        String name = DeploymentSettings.chargeQueueName(account);
        String url = sqs.createQueue(b -> b.queueName(name).attributes(Map.of(
                QueueAttributeName.VISIBILITY_TIMEOUT, Long.toString(visibility.toSeconds()),
                QueueAttributeName.MESSAGE_RETENTION_PERIOD, Integer.toString(DeploymentSettings.CHARGE_QUEUE_HORIZON_SECONDS),
                QueueAttributeName.REDRIVE_POLICY, redrive))).queueUrl();
        return new ChargeQueue(account, name, url, arn(url), deadLetterUrl);
    }

    /**
     * The ARN of the queue at {@code url} ({@code <endpoint>/<account id>/<name>}, as SQS and
     * ElasticMQ spell queue URLs) in the local run's region; ElasticMQ's own ARNs name a region
     * of its own, which no Lambda event carries.
     */
    static String arn(String url) {
        String[] path = URI.create(url).getPath().substring(1).split("/");
        return "arn:aws:sqs:" + SandboxCommand.REGION + ":" + path[0] + ":" + path[1];
    }

    /** An SQS client of the local queues over {@code http}, with the static credentials ElasticMQ takes. */
    static SqsClient client(String endpoint, SdkHttpClient http) {
        return SqsClient.builder()
                .endpointOverride(URI.create(endpoint))
                .region(Region.of(SandboxCommand.REGION))
                .httpClient(http)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("local", "local")))
                .build();
    }

    String endpoint() {
        return server.endpoint();
    }

    ChargeQueue queue(String account) {
        return queues.get(account);
    }

    List<ChargeQueue> queues() {
        return List.copyOf(queues.values());
    }

    /** Each account's queue URL, by account name. */
    Map<String, String> urls() {
        Map<String, String> urls = new LinkedHashMap<>();
        queues.forEach((account, queue) -> urls.put(account, queue.url()));
        return urls;
    }

    @Override
    public void close() {
        server.close();
    }
}
