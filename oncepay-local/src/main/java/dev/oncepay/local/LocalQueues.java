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
 * The queues of the local run: ElasticMQ (SQS's API, in this JVM, in memory) with one charge
 * queue per provider account and the merchant event queue, each with its dead-letter queue, set as
 * {@code infra/} sets them: the visibility timeout, a message kept for the queue's horizon, and a
 * redrive to the dead-letter queue after {@link DeploymentSettings#CHARGE_QUEUE_MAX_RECEIVES} (charge
 * queues) or {@link DeploymentSettings#EVENT_QUEUE_MAX_RECEIVES} (event queue) receives. ElasticMQ
 * takes the retention periods but keeps every message until it is deleted or the run stops.
 */
final class LocalQueues implements AutoCloseable {
    private static final ObjectMapper JSON = new ObjectMapper();

    /**
     * One queue: an account's charge queue or the event queue.
     *
     * @param arn as Lambda's events name it (region and account from the queue URL, as on SQS)
     */
    record Queue(String name, String url, String arn, String deadLetterUrl) {
    }

    private final ElasticMq server;
    private final Map<String, Queue> queues = new LinkedHashMap<>();
    /** The merchant event queue, or null when the run relays no events. */
    private Queue events;

    private LocalQueues(ElasticMq server) {
        this.server = server;
    }

    /**
     * Starts ElasticMQ on {@code port} (0: a free one) and creates the charge queues of {@code accounts},
     * and the event queue unless {@code eventVisibility} is null.
     *
     * @param visibility the charge queues' visibility timeout, in whole seconds
     * @param eventVisibility the event queue's visibility timeout, in whole seconds, or null for no event queue
     */
    static LocalQueues start(int port, List<String> accounts, Duration visibility, Duration eventVisibility) {
        LocalQueues local = new LocalQueues(ElasticMq.start(port));
        try (SqsClient sqs = client(local.endpoint(), UrlConnectionHttpClient.create())) {
            for (String account : accounts) {
                local.queues.put(account, create(sqs, DeploymentSettings.chargeQueueName(account),
                        DeploymentSettings.chargeDeadLetterQueueName(account), visibility,
                        DeploymentSettings.CHARGE_QUEUE_HORIZON_SECONDS, DeploymentSettings.CHARGE_QUEUE_MAX_RECEIVES));
            }
            if (eventVisibility != null) {
                local.events = create(sqs, DeploymentSettings.EVENT_QUEUE_NAME, DeploymentSettings.EVENT_DEAD_LETTER_QUEUE_NAME,
                        eventVisibility, DeploymentSettings.EVENT_QUEUE_RETENTION_SECONDS,
                        DeploymentSettings.EVENT_QUEUE_MAX_RECEIVES);
            }
        } catch (RuntimeException e) {
            local.close();
            throw e;
        }
        return local;
    }

    private static Queue create(SqsClient sqs, String name, String deadLetterName, Duration visibility,
            int retentionSeconds, int maxReceives) {
        String deadLetterUrl = sqs.createQueue(b -> b.queueName(deadLetterName)
                .attributes(Map.of(QueueAttributeName.MESSAGE_RETENTION_PERIOD,
                        Integer.toString(DeploymentSettings.DEAD_LETTER_RETENTION_SECONDS)))).queueUrl();
        String redrive = JSON.createObjectNode().put("deadLetterTargetArn", arn(deadLetterUrl))
                .put("maxReceiveCount", Integer.toString(maxReceives)).toString();
        String url = sqs.createQueue(b -> b.queueName(name).attributes(Map.of(
                QueueAttributeName.VISIBILITY_TIMEOUT, Long.toString(visibility.toSeconds()),
                QueueAttributeName.MESSAGE_RETENTION_PERIOD, Integer.toString(retentionSeconds),
                QueueAttributeName.REDRIVE_POLICY, redrive))).queueUrl();
        return new Queue(name, url, arn(url), deadLetterUrl);
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

    Queue queue(String account) {
        return queues.get(account);
    }

    /** The charge queues, the default account's first. */
    List<Queue> queues() {
        return List.copyOf(queues.values());
    }

    /** The merchant event queue, or null when the run relays no events. */
    Queue events() {
        return events;
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
