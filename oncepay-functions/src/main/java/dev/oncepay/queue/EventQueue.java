package dev.oncepay.queue;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.oncepay.config.OncepayConfig;
import dev.oncepay.contract.DeploymentSettings;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.SendMessageBatchRequestEntry;
import software.amazon.awssdk.services.sqs.model.SendMessageBatchResponse;

/** The merchant event queue: the relay sends each event for each endpoint, event delivery its retries. */
@ApplicationScoped
public class EventQueue {
    /** SQS's most entries per SendMessageBatch. */
    private static final int BATCH_LIMIT = 10;

    private final SqsClient sqs;
    private final Optional<String> url;
    private final ObjectMapper json;

    public EventQueue(SqsClient sqs, OncepayConfig config, ObjectMapper json) {
        this.sqs = sqs;
        this.url = config.events().queueUrl();
        this.json = json;
    }

    /** Whether events are relayed here at all. */
    public boolean configured() {
        return url.isPresent();
    }

    /**
     * Sends every job, due now, in batches of ten.
     *
     * @throws QueueUnavailableException some job was not taken (or its answer was lost); the ones
     *         taken before stay queued, so sending all again only duplicates deliveries
     */
    public void sendAll(List<EventDeliveryJob> jobs) {
        String queue = queueUrl();
        for (int from = 0; from < jobs.size(); from += BATCH_LIMIT) {
            List<SendMessageBatchRequestEntry> entries = new ArrayList<>();
            List<EventDeliveryJob> batch = jobs.subList(from, Math.min(jobs.size(), from + BATCH_LIMIT));
            for (int i = 0; i < batch.size(); i++) {
                entries.add(SendMessageBatchRequestEntry.builder().id(Integer.toString(i)).messageBody(body(batch.get(i))).build());
            }
            SendMessageBatchResponse response;
            try {
                response = sqs.sendMessageBatch(b -> b.queueUrl(queue).entries(entries));
            } catch (SdkException failed) {
                throw new QueueUnavailableException("the event queue did not take " + batch.size() + " deliveries: "
                        + failed.getMessage(), failed);
            }
            if (!response.failed().isEmpty()) {
                throw new QueueUnavailableException("the event queue refused " + response.failed().size() + " of "
                        + batch.size() + " deliveries: " + response.failed().get(0).code(), null);
            }
        }
    }

    /**
     * Sends {@code job}, visible after {@code delay} (capped at SQS's 15 minutes; a longer wait is
     * chained by the job's {@code dueAtMs}).
     *
     * @throws QueueUnavailableException the queue did not take it, or its answer was lost
     */
    public void send(EventDeliveryJob job, Duration delay) {
        int seconds = (int) Math.max(0, Math.min(delay.toSeconds(), DeploymentSettings.SQS_MAX_DELAY_SECONDS));
        String body = body(job);
        try {
            sqs.sendMessage(b -> b.queueUrl(queueUrl()).messageBody(body).delaySeconds(seconds));
        } catch (SdkException failed) {
            throw new QueueUnavailableException("the event queue did not take a delivery: " + failed.getMessage(), failed);
        }
    }

    private String queueUrl() {
        return url.orElseThrow(() -> new IllegalStateException("no event queue: oncepay.events.queue-url is not set"));
    }

    private String body(EventDeliveryJob job) {
        try {
            return json.writeValueAsString(job);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }
}
