package dev.oncepay.queue;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.oncepay.payment.ProviderAccount;
import dev.oncepay.provider.ProviderAccounts;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Duration;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.QueueAttributeName;

/**
 * The charge queues, one per provider account: a slow account backs up only its own queue, and
 * each queue's event-source mapping caps the charges in flight to its account.
 */
@ApplicationScoped
public class ChargeQueue {
    private final SqsClient sqs;
    private final ProviderAccounts accounts;
    private final ObjectMapper json;

    public ChargeQueue(SqsClient sqs, ProviderAccounts accounts, ObjectMapper json) {
        this.sqs = sqs;
        this.accounts = accounts;
        this.json = json;
    }

    /** Whether charges of {@code account} can be queued: it has a queue here. */
    public boolean reaches(ProviderAccount account) {
        return accounts.queueUrl(account).isPresent();
    }

    /** Asks {@code account}'s queue for its depth: a read that builds the client and its connection (priming). */
    public void reach(ProviderAccount account) {
        accounts.queueUrl(account).ifPresent(url -> sqs.getQueueAttributes(b -> b.queueUrl(url)
                .attributeNames(QueueAttributeName.APPROXIMATE_NUMBER_OF_MESSAGES)));
    }

    /**
     * Sends {@code job} to {@code account}'s queue, visible after {@code delay} (at most 15 minutes).
     *
     * @throws QueueUnavailableException the queue did not take it, or its answer was lost: the
     *         message may be on the queue all the same
     */
    public void send(ProviderAccount account, ChargeJob job, Duration delay) {
        String url = accounts.queueUrl(account)
                .orElseThrow(() -> new IllegalStateException("provider account " + account + " has no charge queue"));
        String body;
        try {
            body = json.writeValueAsString(job);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
        try {
            sqs.sendMessage(b -> b.queueUrl(url).messageBody(body).delaySeconds((int) delay.toSeconds()));
        } catch (SdkException failed) {
            throw new QueueUnavailableException("the charge queue of " + account + " did not take the charge: "
                    + failed.getMessage(), failed);
        }
    }
}
