package dev.oncepay.drill;

import dev.oncepay.contract.DeploymentSettings;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.QueueAttributeName;

/**
 * The charge queues as the SQS server itself counts them (ElasticMQ's approximate numbers), read
 * every half second from the workload's start to the verdict: each queue's deepest backlog and
 * when it was, and what is left on it (its dead-letter queue apart) at the end.
 */
final class QueueWatch implements AutoCloseable {
    private static final long EVERY_MS = 500;
    /** Every account's charge queue and dead-letter queue starts so. */
    private static final String PREFIX = DeploymentSettings.chargeQueueName("");
    private static final List<QueueAttributeName> COUNTS = List.of(QueueAttributeName.APPROXIMATE_NUMBER_OF_MESSAGES,
            QueueAttributeName.APPROXIMATE_NUMBER_OF_MESSAGES_NOT_VISIBLE,
            QueueAttributeName.APPROXIMATE_NUMBER_OF_MESSAGES_DELAYED);

    /**
     * A queue's messages at one reading, {@code atMs} since the workload started: visible (waiting
     * for a worker), in flight (received, not yet deleted) and delayed (put back until later).
     */
    record Depth(long atMs, int visible, int inFlight, int delayed) {
        int total() {
            return visible + inFlight + delayed;
        }
    }

    private final SqsClient sqs;
    private final Map<String, String> urls = new ConcurrentHashMap<>();
    private final Map<String, Depth> deepest = new ConcurrentHashMap<>();
    private final ScheduledExecutorService readings = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "drill-queue-watch");
        t.setDaemon(true);
        return t;
    });
    /** The workload's clock, from {@link #start}. */
    private volatile Recorder recorder;

    /** @param endpoint the local run's SQS endpoint (its {@code --queue-port}) */
    QueueWatch(String endpoint) {
        this.sqs = LocalAws.client(SqsClient.builder(), endpoint);
    }

    /** Reads every half second from now on, each reading timed by {@code workload}'s clock. */
    void start(Recorder workload) {
        this.recorder = workload;
        readings.scheduleWithFixedDelay(this::note, 0, EVERY_MS, TimeUnit.MILLISECONDS);
    }

    private void note() {
        try {
            read().forEach((queue, depth) -> deepest.merge(queue, depth,
                    (was, now) -> now.total() > was.total() ? now : was));
        } catch (SdkException e) {
            // the server is briefly busy: the next reading counts
        }
    }

    /** Every charge queue's depth now, by queue name. */
    Map<String, Depth> read() {
        if (urls.isEmpty()) {
            sqs.listQueues(b -> b.queueNamePrefix(PREFIX)).queueUrls()
                    .forEach(url -> urls.put(url.substring(url.lastIndexOf('/') + 1), url));
        }
        Map<String, Depth> result = new TreeMap<>();
        long atMs = recorder.nowMs();
        urls.forEach((queue, url) -> {
            Map<QueueAttributeName, String> a = sqs.getQueueAttributes(b -> b.queueUrl(url).attributeNames(COUNTS))
                    .attributes();
            result.put(queue, new Depth(atMs, count(a, COUNTS.get(0)), count(a, COUNTS.get(1)), count(a, COUNTS.get(2))));
        });
        return result;
    }

    /** The merchant event queue's messages now, with its dead-letter queue's (their sum) apart. */
    record EventQueue(Depth queue, int deadLetters) {
    }

    /** The merchant event queue and its dead-letter queue now, timed by the workload's clock. */
    EventQueue eventQueue() {
        long atMs = recorder.nowMs();
        Map<QueueAttributeName, String> a = sqs.getQueueAttributes(b -> b.queueUrl(
                sqs.getQueueUrl(q -> q.queueName(DeploymentSettings.EVENT_QUEUE_NAME)).queueUrl()).attributeNames(COUNTS))
                .attributes();
        Map<QueueAttributeName, String> dead = sqs.getQueueAttributes(b -> b.queueUrl(
                sqs.getQueueUrl(q -> q.queueName(DeploymentSettings.EVENT_DEAD_LETTER_QUEUE_NAME)).queueUrl())
                .attributeNames(COUNTS)).attributes();
        return new EventQueue(new Depth(atMs, count(a, COUNTS.get(0)), count(a, COUNTS.get(1)), count(a, COUNTS.get(2))),
                COUNTS.stream().mapToInt(n -> count(dead, n)).sum());
    }

    private static int count(Map<QueueAttributeName, String> attributes, QueueAttributeName name) {
        return Integer.parseInt(attributes.getOrDefault(name, "0"));
    }

    /** Each queue's deepest reading so far, by queue name. */
    Map<String, Depth> deepest() {
        return new TreeMap<>(deepest);
    }

    @Override
    public void close() throws InterruptedException {
        readings.shutdownNow();
        readings.awaitTermination(2, TimeUnit.SECONDS);
        sqs.close();
    }
}
