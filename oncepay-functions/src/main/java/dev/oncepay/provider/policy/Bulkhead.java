package dev.oncepay.provider.policy;

import dev.oncepay.config.EmbeddedMetrics;
import dev.oncepay.contract.Attr;
import dev.oncepay.contract.Metrics;
import dev.oncepay.contract.Table;
import dev.oncepay.payment.ProviderAccount;
import dev.oncepay.provider.policy.FleetProtection.Limits;
import dev.oncepay.provider.policy.FleetProtection.Settings;
import dev.oncepay.provider.spi.ProviderOperation;
import dev.oncepay.provider.spi.ProviderRefusal;
import java.time.Clock;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;
import org.eclipse.microprofile.faulttolerance.exceptions.BulkheadException;
import org.jboss.logging.Logger;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;

/**
 * A cap per provider account and operation on its calls in flight, fleet-wide: a map on the
 * breaker's item of the calls in flight, each a slot with a lease, counted from the copy the
 * breaker reads anyway. A quick call costs nothing; a slow one two writes (take, give back). The
 * cap is approximate only when an account turns slow: calls younger than {@code in-flight-after},
 * and slots taken within a sandbox's {@code breaker-cache}, are not yet seen by the others.
 */
final class Bulkhead {
    private static final Logger LOG = Logger.getLogger(Bulkhead.class);

    private final BreakerItems items;
    private final Clock clock;
    private final EmbeddedMetrics metrics;
    private final Settings settings;
    private volatile ScheduledExecutorService slotTaker;

    Bulkhead(BreakerItems items, Clock clock, EmbeddedMetrics metrics, Settings settings) {
        this.items = items;
        this.clock = clock;
        this.metrics = metrics;
        this.settings = settings;
    }

    /**
     * Enters the account's bulkhead for one whole call (all its attempts): refused if the account
     * already has its cap of calls in flight, fleet-wide. While the account is quick (no slot
     * held), a call takes a slot only once it is still in flight after {@code in-flight-after}, so
     * healthy calls write nothing. While it is slow (some slot held), a call takes its slot at
     * once with a write conditional on the cap, so callers arriving together cannot overshoot it.
     * Close the slot when the call ends, however it ends.
     *
     * @throws BulkheadException the account is at capacity; nothing was sent
     */
    InFlight enter(ProviderAccount account, ProviderOperation operation) {
        String pk = BreakerItem.pk(account, operation);
        Limits limits = settings.limits(operation);
        Instant now = clock.instant();
        long inFlight = items.current(pk).inFlightAt(now);
        String slot = UUID.randomUUID().toString();
        if (inFlight > 0 && inFlight < limits.maxInFlight()) {
            // The account is slow right now: this call counts from its start, against the cap, in
            // one conditional write, so callers arriving together cannot all slip under it.
            Optional<Boolean> taken = takeSlot(pk, slot, limits, true);
            if (taken.isPresent()) {
                InFlight call = new InFlight(pk, slot);
                call.decided(taken.get());
                return call;
            }
            inFlight = items.current(pk).inFlightAt(now);
        }
        if (inFlight >= limits.maxInFlight()) {
            metrics.count(Metrics.PROVIDER_AT_CAPACITY);
            throw new BulkheadException(ProviderRefusal.AT_CAPACITY.detail() + ": " + inFlight + " of "
                    + limits.maxInFlight() + " " + operation.id() + " calls to " + account);
        }
        InFlight call = new InFlight(pk, slot);
        call.timer = slots().schedule(() -> call.takeUnlessEnded(() -> takeSlot(pk, slot, limits, false).orElse(false)),
                settings.inFlightAfter().toMillis(), TimeUnit.MILLISECONDS);
        return call;
    }

    /** One call's place in its account's bulkhead; closing it gives back the slot, if the call took one. */
    final class InFlight implements AutoCloseable {
        private final String pk;
        private final String slot;
        /** Set once: by the timer as it starts taking the slot, or by the call ending first. */
        private final AtomicBoolean decided = new AtomicBoolean();
        private final CompletableFuture<Boolean> taken = new CompletableFuture<>();
        private volatile ScheduledFuture<?> timer;

        private InFlight(String pk, String slot) {
            this.pk = pk;
            this.slot = slot;
        }

        /** Taken (or not) at entry. */
        private void decided(boolean held) {
            decided.set(true);
            taken.complete(held);
        }

        /** The timer: take the slot, unless the call ended meanwhile. */
        private void takeUnlessEnded(BooleanSupplier take) {
            if (!decided.compareAndSet(false, true)) {
                return;
            }
            try {
                taken.complete(take.getAsBoolean());
            } catch (RuntimeException unexpected) {
                taken.complete(false);
                LOG.warnf("bulkhead slot %s of %s: taking it failed (%s); its lease ends it", slot, pk, unexpected);
            }
        }

        @Override
        public void close() {
            if (decided.compareAndSet(false, true)) {
                // Quicker than in-flight-after: never counted, nothing to give back. (A future's
                // cancel cannot say this: it succeeds even while the task is already writing.)
                if (timer != null) {
                    timer.cancel(false);
                }
                return;
            }
            // A timed-out attempt may leave this thread interrupted; giving the slot back must not fail for it.
            boolean interrupted = Thread.interrupted();
            try {
                if (taken.get(BreakerItems.STORE_TIMEOUT.toMillis() * 2, TimeUnit.MILLISECONDS)) {
                    giveSlotBack(pk, slot);
                }
            } catch (InterruptedException | ExecutionException | TimeoutException notTaken) {
                LOG.warnf("bulkhead slot %s of %s: unknown whether it was taken (%s); its lease ends it", slot, pk,
                        notTaken.toString());
            } finally {
                if (interrupted) {
                    Thread.currentThread().interrupt();
                }
            }
        }
    }

    /**
     * Takes a slot for a call in flight: one UpdateItem, which also drops slots whose lease ended
     * (as this sandbox last saw them). {@code withinCap}: only if the account is below its cap,
     * else regardless (a call already under way is counted, never stopped).
     *
     * @return whether the slot is held (false: the store failed, the call goes on uncounted);
     *         empty if the cap refused it
     */
    private Optional<Boolean> takeSlot(String pk, String slot, Limits limits, boolean withinCap) {
        Instant now = clock.instant();
        List<String> ended = items.current(pk).endedSlots(now);
        Map<String, String> names = new HashMap<>(Map.of("#inFlight", BreakerItem.IN_FLIGHT, "#slot", slot));
        StringBuilder remove = new StringBuilder();
        for (int i = 0; i < ended.size(); i++) {
            names.put("#ended" + i, ended.get(i));
            remove.append(i == 0 ? " REMOVE " : ", ").append("#inFlight.#ended").append(i);
        }
        Map<String, AttributeValue> values = new HashMap<>(Map.of(":until",
                Attr.n(now.plus(limits.slotLease()).toEpochMilli())));
        // The condition sees the slots this write removes as still there.
        values.put(":room", Attr.n(limits.maxInFlight() + ended.size()));
        try {
            try {
                items.update(pk, b -> b.updateExpression("SET #inFlight.#slot = :until" + remove)
                        .conditionExpression(withinCap ? "size(#inFlight) < :room" : "attribute_exists(#inFlight)")
                        .expressionAttributeNames(names).expressionAttributeValues(withinCap ? values
                                : Map.of(":until", values.get(":until"))));
                return Optional.of(true);
            } catch (ConditionalCheckFailedException noRoomOrNoMap) {
                if (withinCap) {
                    items.reread(pk);
                    return Optional.empty();
                }
            }
            // The first slot ever creates the map: a path into a map that does not exist is refused.
            try {
                items.update(pk, b -> b.updateExpression("SET #inFlight = :slots, #kind = :kind")
                        .conditionExpression("attribute_not_exists(#inFlight)")
                        .expressionAttributeNames(Map.of("#inFlight", BreakerItem.IN_FLIGHT, "#kind", Table.KIND))
                        .expressionAttributeValues(Map.of(":slots", AttributeValue.fromM(Map.of(slot,
                                values.get(":until"))), ":kind", Attr.s(BreakerItem.KIND))));
            } catch (ConditionalCheckFailedException createdMeanwhile) {
                items.update(pk, b -> b.updateExpression("SET #inFlight.#slot = :until")
                        .expressionAttributeNames(Map.of("#inFlight", BreakerItem.IN_FLIGHT, "#slot", slot))
                        .expressionAttributeValues(Map.of(":until", values.get(":until"))));
            }
            return Optional.of(true);
        } catch (SdkException storeFailed) {
            items.storeFailed("take a bulkhead slot in", pk, storeFailed);
            return Optional.of(false);
        }
    }

    private void giveSlotBack(String pk, String slot) {
        try {
            items.update(pk, b -> b.updateExpression("REMOVE #inFlight.#slot")
                    .expressionAttributeNames(Map.of("#inFlight", BreakerItem.IN_FLIGHT, "#slot", slot)));
        } catch (SdkException storeFailed) {
            items.storeFailed("give back bulkhead slot " + slot + " (its lease ends it) in", pk, storeFailed);
        }
    }

    /** One daemon thread per sandbox takes the slots of slow calls; created on first use. */
    private ScheduledExecutorService slots() {
        ScheduledExecutorService existing = slotTaker;
        if (existing != null) {
            return existing;
        }
        synchronized (this) {
            if (slotTaker == null) {
                slotTaker = Executors.newSingleThreadScheduledExecutor(task -> {
                    Thread thread = new Thread(task, "oncepay-bulkhead-slots");
                    thread.setDaemon(true);
                    return thread;
                });
            }
            return slotTaker;
        }
    }
}
