package dev.oncepay.provider.policy;

import dev.oncepay.config.EmbeddedMetrics;
import dev.oncepay.contract.Attr;
import dev.oncepay.contract.Metrics;
import dev.oncepay.contract.Table;
import dev.oncepay.payment.ProviderAccount;
import dev.oncepay.provider.policy.FleetProtection.Settings;
import dev.oncepay.provider.spi.ProviderOperation;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.ToIntFunction;
import java.util.random.RandomGenerator;
import org.jboss.logging.Logger;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;

/**
 * Retries per provider account and operation, fleet-wide, as a share of its calls: a token bucket
 * spread over the breaker's shards, each holding its part of the burst. Each sandbox earns
 * {@code share} of a retry per call it makes, in memory, and hands what it earned to its shard only
 * when it wants a retry, in the same conditional write that takes one token; a spent shard sends it
 * to one other shard. So retries fleet-wide stay near {@code share} of the calls (plus a burst), at
 * no cost while nothing is retried, and a retry's token costs one write on one of many items.
 *
 * <p>When the store fails, a sandbox retries only on what it earned itself: bounded, not open.
 */
final class RetryBudget {
    private static final Logger LOG = Logger.getLogger(RetryBudget.class);
    /** Thousandths of a retry: tokens are whole numbers in the item. */
    private static final long ONE_RETRY = 1000;

    private final BreakerItems items;
    private final EmbeddedMetrics metrics;
    private final double retryShare;
    private final Settings settings;
    private final ToIntFunction<ProviderOperation> shard;
    private final RandomGenerator random;
    /** Thousandths of a retry this sandbox earned by calls, per breaker, not yet handed to a shard. */
    private final Map<String, AtomicLong> earned = new ConcurrentHashMap<>();

    RetryBudget(BreakerItems items, EmbeddedMetrics metrics, Settings settings, ToIntFunction<ProviderOperation> shard,
            RandomGenerator random) {
        this.items = items;
        this.metrics = metrics;
        this.retryShare = settings.retryShare();
        this.settings = settings;
        this.shard = shard;
        this.random = random;
    }

    /** A shard's part of the burst, in thousandths. */
    private long shardBurst(ProviderOperation operation) {
        int shards = settings.shards(operation);
        return Math.max(ONE_RETRY, (settings.retryBurst() * ONE_RETRY + shards - 1) / shards);
    }

    /** One call's share of a retry, earned by its first attempt (a retry earns nothing). */
    void earn(ProviderAccount account, ProviderOperation operation) {
        String pk = BreakerItem.pk(account, operation);
        long perCall = Math.round(retryShare * ONE_RETRY);
        long cap = shardBurst(operation);
        earned.computeIfAbsent(pk, k -> new AtomicLong()).updateAndGet(e -> Math.min(cap, e + perCall));
    }

    /**
     * Takes one retry from the account's budget, handing over the share this sandbox earned since
     * it last did; {@code false} if the budget is spent (then the call is not retried).
     */
    boolean mayRetry(ProviderAccount account, ProviderOperation operation) {
        String pk = BreakerItem.pk(account, operation);
        int shards = settings.shards(operation);
        int home = shard.applyAsInt(operation);
        long shardBurst = shardBurst(operation);
        String mine = BreakerShard.pk(pk, home);
        AtomicLong ownEarnings = earned.computeIfAbsent(pk, k -> new AtomicLong());
        long handed = ownEarnings.getAndSet(0);
        try {
            // Hand over what this sandbox earned, unless that would fill the shard past its burst.
            if (takeToken(mine, shardBurst, handed - ONE_RETRY, "attribute_not_exists(#tokens)"
                    + " OR (#tokens >= :needed AND #tokens <= :room)", Map.of(":needed", Attr.n(ONE_RETRY - handed),
                            ":room", Attr.n(shardBurst - handed + ONE_RETRY)))) {
                return true;
            }
            if (handed > 0 && takeToken(mine, shardBurst, -ONE_RETRY, "#tokens >= :needed", Map.of(":needed", Attr.n(ONE_RETRY)))) {
                return true; // the shard is full: what this sandbox earned is not needed
            }
            if (shards > 1 && takeToken(BreakerShard.pk(pk, otherShard(home, shards)), shardBurst, -ONE_RETRY,
                    "attribute_not_exists(#tokens) OR #tokens >= :needed", Map.of(":needed", Attr.n(ONE_RETRY)))) {
                ownEarnings.addAndGet(handed);
                return true;
            }
            ownEarnings.addAndGet(handed); // spent: keep the earnings for the next try
            metrics.count(Metrics.RETRY_BUDGET_SPENT);
            LOG.warnf("retry budget spent for account=%s operation=%s: a retryable fault ends the call", account,
                    operation.id());
            return false;
        } catch (SdkException storeFailed) {
            items.storeFailed("take a retry token from", mine, storeFailed);
            if (handed >= ONE_RETRY) {
                ownEarnings.addAndGet(handed - ONE_RETRY);
                return true;
            }
            ownEarnings.addAndGet(handed);
            return false;
        }
    }

    /** Forgets what this sandbox earned: after a SnapStart restore the snapshot's earnings are another time's. */
    void forgetEarnings() {
        earned.clear();
    }

    private int otherShard(int home, int shards) {
        int other = random.nextInt(shards - 1);
        return other >= home ? other + 1 : other;
    }

    private boolean takeToken(String shardPk, long shardBurst, long delta, String condition,
            Map<String, AttributeValue> extra) {
        Map<String, AttributeValue> values = new HashMap<>(extra);
        values.put(":delta", Attr.n(delta));
        values.put(":burst", Attr.n(shardBurst));
        values.put(":kind", Attr.s(BreakerItem.KIND));
        Map<String, String> names = new HashMap<>(Map.of("#tokens", BreakerShard.RETRY_TOKENS, "#kind", Table.KIND));
        try {
            // A new shard starts with its part of the burst.
            items.write(shardPk, b -> b
                    .updateExpression("SET #tokens = if_not_exists(#tokens, :burst) + :delta, #kind = :kind")
                    .conditionExpression(condition)
                    .expressionAttributeNames(names).expressionAttributeValues(values));
            return true;
        } catch (ConditionalCheckFailedException spent) {
            return false;
        }
    }
}
