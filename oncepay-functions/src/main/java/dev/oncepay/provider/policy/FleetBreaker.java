package dev.oncepay.provider.policy;

import dev.oncepay.config.EmbeddedMetrics;
import dev.oncepay.contract.Attr;
import dev.oncepay.contract.Metrics;
import dev.oncepay.contract.Table;
import dev.oncepay.payment.ProviderAccount;
import dev.oncepay.provider.policy.FleetProtection.Limits;
import dev.oncepay.provider.policy.FleetProtection.Settings;
import dev.oncepay.provider.spi.ProviderOperation;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;
import org.eclipse.microprofile.faulttolerance.exceptions.CircuitBreakerOpenException;
import org.jboss.logging.Logger;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;

/**
 * One circuit breaker per provider account and operation for the whole fleet (design rule 14):
 * its state is one item in the table ({@link BreakerItem}), and every transition is one
 * conditional UpdateItem on it, so exactly one writer opens it, exactly one sandbox holds the
 * half-open probe (a lease that another may take over once it ends), and the probe's answer
 * closes or re-opens it for everyone.
 *
 * <p>Cost: a healthy call writes nothing, and reads only this sandbox's copy ({@link BreakerItems}).
 * Failures are counted, not a ratio: a ratio would need a write for every successful call too. A
 * failed or slow call costs one write (plus one for the writer that opens it); so does a probe.
 */
final class FleetBreaker {
    private static final Logger LOG = Logger.getLogger(FleetBreaker.class);
    /** A window or state that changes under a failure count: count again, a few times at most. */
    private static final int COUNT_ATTEMPTS = 3;

    /** Leave to make one attempt; a probe's answer decides the breaker for everyone. */
    public record Admission(String pk, String probeOwner) {
        boolean probe() {
            return probeOwner != null;
        }
    }

    private final BreakerItems items;
    private final Clock clock;
    private final EmbeddedMetrics metrics;
    private final Settings settings;

    FleetBreaker(BreakerItems items, Clock clock, EmbeddedMetrics metrics, Settings settings) {
        this.items = items;
        this.clock = clock;
        this.metrics = metrics;
        this.settings = settings;
    }

    /**
     * Leave for one attempt: a plain call while closed, the probe if this caller takes the lease.
     *
     * @throws CircuitBreakerOpenException the breaker refuses the attempt; nothing was sent
     */
    Admission admit(ProviderAccount account, ProviderOperation operation) {
        String pk = BreakerItem.pk(account, operation);
        Limits limits = settings.limits(operation);
        Instant now = clock.instant();
        BreakerItem item = items.current(pk);
        if (item.state() == BreakerState.CLOSED) {
            return new Admission(pk, null);
        }
        if (item.refuses(now, limits.openFor())) {
            throw refused(account, operation, item);
        }
        return takeProbe(account, operation, pk, limits, now);
    }

    /**
     * What an admitted attempt came to. A failure or a slow success counts against the breaker;
     * a probe's answer closes or re-opens it.
     *
     * @param failure why the attempt failed, or {@code null} if the provider answered
     */
    void record(ProviderAccount account, ProviderOperation operation, Admission admission, String failure,
            Duration took) {
        Limits limits = settings.limits(operation);
        String why = failure != null ? failure
                : took.compareTo(limits.slowCall()) > 0
                        ? "slow: " + took.toMillis() + " ms > " + limits.slowCall().toMillis() + " ms" : null;
        try {
            if (admission.probe()) {
                probeAnswered(account, operation, admission, why, took);
            } else if (why != null) {
                countFailure(account, operation, admission.pk(), limits);
            }
        } catch (SdkException storeFailed) {
            items.storeFailed("record a " + (why == null ? "success" : "failure") + " in", admission.pk(), storeFailed);
        }
    }

    // --- transitions ------------------------------------------------------------------------------

    private Admission takeProbe(ProviderAccount account, ProviderOperation operation, String pk, Limits limits,
            Instant now) {
        String owner = UUID.randomUUID().toString();
        Map<String, AttributeValue> values = new HashMap<>();
        values.put(":half", Attr.s(BreakerState.HALF_OPEN.name()));
        values.put(":open", Attr.s(BreakerState.OPEN.name()));
        values.put(":owner", Attr.s(owner));
        values.put(":until", Attr.n(now.plus(limits.probeLease()).toEpochMilli()));
        values.put(":now", Attr.n(now.toEpochMilli()));
        values.put(":openedBefore", Attr.n(now.minus(limits.openFor()).toEpochMilli()));
        BreakerItem before = items.current(pk);
        try {
            BreakerItem taken = items.update(pk, b -> b
                    .updateExpression("SET #state = :half, #owner = :owner, #until = :until")
                    .conditionExpression("(#state = :open AND #openedAt <= :openedBefore)"
                            + " OR (#state = :half AND #until < :now)")
                    .expressionAttributeNames(Map.of("#state", BreakerItem.STATE, "#owner", BreakerItem.PROBE_OWNER,
                            "#until", BreakerItem.PROBE_UNTIL, "#openedAt", BreakerItem.OPENED_AT))
                    .expressionAttributeValues(values));
            if (before.state() == BreakerState.OPEN) {
                transition(account, operation, BreakerState.OPEN, BreakerState.HALF_OPEN, Metrics.BREAKER_HALF_OPEN,
                        "opened at " + Instant.ofEpochMilli(taken.openedAt()) + ", " + limits.openFor() + " ago or more;"
                                + " probe lease until " + Instant.ofEpochMilli(taken.probeUntil()) + "; openings="
                                + taken.openings());
            } else {
                LOG.warnf("breaker account=%s operation=%s: probe lease taken over (the holder's ended at %s)", account,
                        operation.id(), Instant.ofEpochMilli(before.probeUntil()));
            }
            return new Admission(pk, owner);
        } catch (ConditionalCheckFailedException anotherProbes) {
            throw refused(account, operation, afterLostProbe(pk, before));
        } catch (SdkException storeFailed) {
            items.storeFailed("take the probe lease of", pk, storeFailed);
            return new Admission(pk, null);
        }
    }

    /**
     * The breaker as the table holds it after another sandbox took the probe; if the store cannot
     * say, as this sandbox last read it. The attempt is refused either way, and a store failure
     * here must not end the call as one: an earlier attempt of it may have reached the provider.
     */
    private BreakerItem afterLostProbe(String pk, BreakerItem before) {
        try {
            return items.reread(pk);
        } catch (SdkException storeFailed) {
            metrics.count(Metrics.BREAKER_STORE_FAILED);
            LOG.warnf("breaker store failed to re-read %s after another sandbox took its probe; the attempt is"
                    + " refused: %s", pk, storeFailed.toString());
            return before;
        }
    }

    private void probeAnswered(ProviderAccount account, ProviderOperation operation, Admission probe, String failure,
            Duration took) {
        Instant now = clock.instant();
        boolean failed = failure != null;
        Map<String, String> names = new HashMap<>(Map.of("#state", BreakerItem.STATE,
                "#owner", BreakerItem.PROBE_OWNER, "#until", BreakerItem.PROBE_UNTIL));
        Map<String, AttributeValue> values = new HashMap<>(Map.of(":half", Attr.s(BreakerState.HALF_OPEN.name()),
                ":owner", Attr.s(probe.probeOwner()), ":now", Attr.n(now.toEpochMilli())));
        if (failed) {
            names.put("#openedAt", BreakerItem.OPENED_AT);
            names.put("#openings", BreakerItem.OPENINGS);
            values.put(":open", Attr.s(BreakerState.OPEN.name()));
            values.put(":one", Attr.n(1));
        } else {
            names.put("#failures", BreakerItem.FAILURES);
            names.put("#windowStart", BreakerItem.WINDOW_START);
            values.put(":closed", Attr.s(BreakerState.CLOSED.name()));
            values.put(":zero", Attr.n(0));
        }
        try {
            BreakerItem after = items.update(probe.pk(), b -> b
                    .updateExpression(failed
                            ? "SET #state = :open, #openedAt = :now, #openings = #openings + :one REMOVE #owner, #until"
                            : "SET #state = :closed, #failures = :zero, #windowStart = :now REMOVE #owner, #until")
                    // Only the lease holder decides; one whose lease was taken over has no say.
                    .conditionExpression("#state = :half AND #owner = :owner")
                    .expressionAttributeNames(names)
                    .expressionAttributeValues(values));
            if (failed) {
                transition(account, operation, BreakerState.HALF_OPEN, BreakerState.OPEN, Metrics.BREAKER_REOPEN,
                        "probe failed after " + took.toMillis() + " ms: " + failure + "; openings=" + after.openings());
            } else {
                transition(account, operation, BreakerState.HALF_OPEN, BreakerState.CLOSED, Metrics.BREAKER_CLOSED,
                        "probe answered in " + took.toMillis() + " ms; open period " + after.openings() + " ends");
            }
        } catch (ConditionalCheckFailedException leaseLost) {
            LOG.warnf("breaker account=%s operation=%s: the probe's lease was taken over before its answer (%s)",
                    account, operation.id(), failed ? failure : "ok");
            items.reread(probe.pk());
        }
    }

    /** Counts one failure in the window (a new window if the last one ended), and opens at the threshold. */
    private void countFailure(ProviderAccount account, ProviderOperation operation, String pk, Limits limits) {
        for (int attempt = 1; attempt <= COUNT_ATTEMPTS; attempt++) {
            Instant now = clock.instant();
            Map<String, String> names = Map.of("#state", BreakerItem.STATE, "#failures", BreakerItem.FAILURES,
                    "#windowStart", BreakerItem.WINDOW_START);
            Map<String, AttributeValue> values = Map.of(":closed", Attr.s(BreakerState.CLOSED.name()),
                    ":one", Attr.n(1), ":floor", Attr.n(now.minus(limits.window()).toEpochMilli()));
            try {
                BreakerItem counted = items.update(pk, b -> b.updateExpression("ADD #failures :one")
                        .conditionExpression("#state = :closed AND #windowStart > :floor")
                        .expressionAttributeNames(names).expressionAttributeValues(values));
                openAtThreshold(account, operation, pk, limits, counted);
                return;
            } catch (ConditionalCheckFailedException noLiveWindow) {
                // no window yet, the window ended, or the breaker is not closed
            }
            Map<String, AttributeValue> fresh = new HashMap<>(values);
            fresh.put(":now", Attr.n(now.toEpochMilli()));
            fresh.put(":kind", Attr.s(BreakerItem.KIND));
            try {
                BreakerItem counted = items.update(pk, b -> b
                        .updateExpression("SET #kind = :kind, #state = :closed, #failures = :one, #windowStart = :now")
                        .conditionExpression("attribute_not_exists(#state)"
                                + " OR (#state = :closed AND (attribute_not_exists(#windowStart) OR #windowStart <= :floor))")
                        .expressionAttributeNames(Map.of("#state", BreakerItem.STATE, "#failures", BreakerItem.FAILURES,
                                "#windowStart", BreakerItem.WINDOW_START, "#kind", Table.KIND))
                        .expressionAttributeValues(fresh));
                openAtThreshold(account, operation, pk, limits, counted);
                return;
            } catch (ConditionalCheckFailedException raced) {
                if (items.reread(pk).state() != BreakerState.CLOSED) {
                    return; // opened meanwhile: a failure now changes nothing
                }
            }
        }
    }

    private void openAtThreshold(ProviderAccount account, ProviderOperation operation, String pk, Limits limits,
            BreakerItem counted) {
        if (counted.failures() < limits.failures()) {
            return;
        }
        Instant now = clock.instant();
        try {
            BreakerItem opened = items.update(pk, b -> b
                    .updateExpression("SET #state = :open, #openedAt = :now,"
                            + " #openings = if_not_exists(#openings, :zero) + :one")
                    .conditionExpression("#state = :closed AND #failures >= :threshold")
                    .expressionAttributeNames(Map.of("#state", BreakerItem.STATE, "#failures", BreakerItem.FAILURES,
                            "#openedAt", BreakerItem.OPENED_AT, "#openings", BreakerItem.OPENINGS))
                    .expressionAttributeValues(Map.of(":open", Attr.s(BreakerState.OPEN.name()),
                            ":closed", Attr.s(BreakerState.CLOSED.name()), ":now", Attr.n(now.toEpochMilli()),
                            ":zero", Attr.n(0), ":one", Attr.n(1), ":threshold", Attr.n(limits.failures()))));
            transition(account, operation, BreakerState.CLOSED, BreakerState.OPEN, Metrics.BREAKER_OPEN,
                    "failures=" + counted.failures() + " since " + Instant.ofEpochMilli(counted.windowStart())
                            + " (threshold " + limits.failures() + " within " + limits.window() + "); open for "
                            + limits.openFor() + "; openings=" + opened.openings());
        } catch (ConditionalCheckFailedException openedByAnother) {
            items.reread(pk);
        }
    }

    private CircuitBreakerOpenException refused(ProviderAccount account, ProviderOperation operation,
            BreakerItem item) {
        return new CircuitBreakerOpenException("circuit breaker open: " + operation.id() + " breaker of " + account
                + " is " + item.state());
    }

    private void transition(ProviderAccount account, ProviderOperation operation, BreakerState from,
            BreakerState to, String metric, String counts) {
        metrics.count(metric);
        LOG.warnf("breaker transition %s -> %s account=%s operation=%s: %s", from, to, account, operation.id(), counts);
    }
}
