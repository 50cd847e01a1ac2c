package dev.oncepay.reconcile;

import dev.oncepay.config.EmbeddedMetrics;
import dev.oncepay.contract.Metrics;
import dev.oncepay.payment.PaymentRepository;
import dev.oncepay.payment.PaymentStatus;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import org.jboss.logging.Logger;
import software.amazon.awssdk.core.exception.SdkException;

/**
 * The backlog gauges, read from the whole attention index ({@link PaymentRepository#attentionCount}) rather
 * than from the payments one sweep happens to find due: how many payments wait in UNKNOWN, in
 * PENDING past the sweep's first look, in NEEDS_REVIEW, and in FAILED with their provider cancel
 * pending, and how old the oldest UNKNOWN and stuck PENDING one is.
 *
 * <p>Per shard and status: the oldest entry (one Query, ascending, {@code Limit 1}) and, only if
 * there is one, the count ({@code Select=COUNT}, paged); NEEDS_REVIEW and cancel pending only their
 * count. An empty index costs four queries per shard. Eventually consistent, like every GSI read: a gauge, not a ledger.
 */
@ApplicationScoped
public class Backlog {
    private static final Logger LOG = Logger.getLogger(Backlog.class);

    private final PaymentRepository payments;
    private final EmbeddedMetrics metrics;
    private final Clock clock;

    public Backlog(PaymentRepository payments, EmbeddedMetrics metrics, Clock clock) {
        this.payments = payments;
        this.metrics = metrics;
        this.clock = clock;
    }

    /** What one status's partitions hold: how many, and the creation of the oldest ({@code null} if none). */
    record Reading(long count, Instant oldest) {
        Duration ageAt(Instant now) {
            return oldest == null || oldest.isAfter(now) ? Duration.ZERO : Duration.between(oldest, now);
        }
    }

    /**
     * Reads the index and emits the six gauges. A failed read emits none (a missing point, which
     * the alarms treat as missing, rather than a zero that would clear them) and leaves the sweep alone.
     */
    public void emit() {
        Instant now = clock.instant();
        try {
            Reading unknown = read(PaymentStatus.UNKNOWN, null, true);
            Reading pending = read(PaymentStatus.PENDING, now.minus(payments.firstSweepDelay()), true);
            Reading review = read(PaymentStatus.NEEDS_REVIEW, null, false);
            // FAILED payments are in the index only while their provider cancel is pending.
            Reading cancelPending = read(PaymentStatus.FAILED, null, false);
            metrics.gauge(Metrics.UNKNOWN_BACKLOG, unknown.count(), "Count");
            metrics.gauge(Metrics.UNKNOWN_OLDEST_AGE, unknown.ageAt(now).toSeconds(), "Seconds");
            metrics.gauge(Metrics.PENDING_BACKLOG, pending.count(), "Count");
            metrics.gauge(Metrics.PENDING_OLDEST_AGE, pending.ageAt(now).toSeconds(), "Seconds");
            metrics.gauge(Metrics.NEEDS_REVIEW_BACKLOG, review.count(), "Count");
            metrics.gauge(Metrics.CANCEL_PENDING_BACKLOG, cancelPending.count(), "Count");
        } catch (SdkException e) {
            LOG.warnf("backlog gauges not emitted: the attention index could not be read: %s: %s",
                    e.getClass().getSimpleName(), e.getMessage());
        }
    }

    /** Every shard's entries of {@code status}, created before {@code createdBefore} if given. */
    Reading read(PaymentStatus status, Instant createdBefore, boolean withOldest) {
        Long beforeMs = createdBefore == null ? null : createdBefore.toEpochMilli();
        long count = 0;
        Instant oldest = null;
        for (int shard = 0; shard < payments.sweepShards(); shard++) {
            if (withOldest) {
                Optional<Instant> first = payments.attentionOldest(status, shard, beforeMs);
                if (first.isEmpty()) {
                    continue; // an empty partition has nothing to count
                }
                oldest = oldest == null || first.get().isBefore(oldest) ? first.get() : oldest;
            }
            count += payments.attentionCount(status, shard, beforeMs);
        }
        return new Reading(count, oldest);
    }
}
