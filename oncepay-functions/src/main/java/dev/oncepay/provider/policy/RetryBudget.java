package dev.oncepay.provider.policy;

import dev.oncepay.config.EmbeddedMetrics;
import dev.oncepay.contract.Attr;
import dev.oncepay.contract.Metrics;
import dev.oncepay.contract.Table;
import dev.oncepay.payment.ProviderAccount;
import dev.oncepay.provider.spi.ProviderOperation;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.jboss.logging.Logger;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;

/**
 * Retries per provider account and operation, fleet-wide, as a share of its calls: a token bucket
 * on the breaker's item. Each sandbox earns {@code share} of a retry per call it makes, in memory,
 * and hands what it earned to the item only when it wants a retry, in the same conditional write
 * that takes one token. So retries fleet-wide stay near {@code share} of the calls (plus a burst),
 * at no cost while nothing is retried; a retry's token costs one write.
 */
final class RetryBudget {
    private static final Logger LOG = Logger.getLogger(RetryBudget.class);
    /** Thousandths of a retry: tokens are whole numbers in the item. */
    private static final long ONE_RETRY = 1000;

    private final BreakerItems items;
    private final EmbeddedMetrics metrics;
    private final double retryShare;
    private final int retryBurst;
    /** Thousandths of a retry this sandbox earned by calls, per breaker, not yet handed to the item. */
    private final Map<String, AtomicLong> earned = new ConcurrentHashMap<>();

    RetryBudget(BreakerItems items, EmbeddedMetrics metrics, double retryShare, int retryBurst) {
        this.items = items;
        this.metrics = metrics;
        this.retryShare = retryShare;
        this.retryBurst = retryBurst;
    }

    /** One call's share of a retry, earned by its first attempt (a retry earns nothing). */
    void earn(ProviderAccount account, ProviderOperation operation) {
        String pk = BreakerItem.pk(account, operation);
        long perCall = Math.round(retryShare * ONE_RETRY);
        long cap = retryBurst * ONE_RETRY;
        earned.computeIfAbsent(pk, k -> new AtomicLong()).updateAndGet(e -> Math.min(cap, e + perCall));
    }

    /**
     * Takes one retry from the account's budget, handing over the share this sandbox earned since
     * it last did; {@code false} if the budget is spent (then the call is not retried).
     */
    boolean mayRetry(ProviderAccount account, ProviderOperation operation) {
        String pk = BreakerItem.pk(account, operation);
        AtomicLong mine = earned.computeIfAbsent(pk, k -> new AtomicLong());
        long handed = mine.getAndSet(0);
        long burst = retryBurst * ONE_RETRY;
        try {
            // Hand over what this sandbox earned, unless that would fill the bucket past its burst.
            if (takeToken(pk, handed - ONE_RETRY, "attribute_not_exists(#tokens)"
                    + " OR (#tokens >= :needed AND #tokens <= :room)", Map.of(":needed", Attr.n(ONE_RETRY - handed),
                            ":room", Attr.n(burst - handed + ONE_RETRY)))) {
                return true;
            }
            if (handed > 0 && takeToken(pk, -ONE_RETRY, "#tokens >= :needed", Map.of(":needed", Attr.n(ONE_RETRY)))) {
                return true; // the bucket is full: what this sandbox earned is not needed
            }
            mine.addAndGet(handed); // spent: keep the earnings for the next try
            metrics.count(Metrics.RETRY_BUDGET_SPENT);
            LOG.warnf("retry budget spent for account=%s operation=%s: a retryable fault ends the call", account,
                    operation.id());
            return false;
        } catch (SdkException storeFailed) {
            mine.addAndGet(handed);
            items.storeFailed("take a retry token from", pk, storeFailed);
            return true;
        }
    }

    /** Forgets what this sandbox earned: after a SnapStart restore the snapshot's earnings are another time's. */
    void forgetEarnings() {
        earned.clear();
    }

    private boolean takeToken(String pk, long delta, String condition, Map<String, AttributeValue> extra) {
        Map<String, AttributeValue> values = new HashMap<>(extra);
        values.put(":delta", Attr.n(delta));
        values.put(":burst", Attr.n(retryBurst * ONE_RETRY));
        values.put(":closed", Attr.s(BreakerState.CLOSED.name()));
        values.put(":kind", Attr.s(BreakerItem.KIND));
        Map<String, String> names = new HashMap<>(Map.of("#tokens", BreakerItem.RETRY_TOKENS,
                "#state", BreakerItem.STATE, "#kind", Table.KIND));
        try {
            // A new item starts with a full burst; it is a closed breaker until a failure says otherwise.
            items.write(pk, b -> b
                    .updateExpression("SET #tokens = if_not_exists(#tokens, :burst) + :delta,"
                            + " #state = if_not_exists(#state, :closed), #kind = :kind")
                    .conditionExpression(condition)
                    .expressionAttributeNames(names).expressionAttributeValues(values));
            return true;
        } catch (ConditionalCheckFailedException spent) {
            return false;
        }
    }
}
