package dev.oncepay.sim.merchant;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** What the merchant received and applied: one lock, as requests arrive on many threads. */
final class MerchantBook {
    private static final Set<String> SETTLED = Set.of("succeeded", "failed");

    private final List<ReceivedDelivery> deliveries = new ArrayList<>();
    private final Map<String, AppliedEvent> applied = new LinkedHashMap<>();
    private final Set<String> acceptedIds = new HashSet<>();
    private long received;
    private long accepted;
    private long rejected;
    private long failed;
    private long duplicates;
    private long stale;
    private long outOfOrderApplied;

    synchronized void arrived() {
        received++;
    }

    synchronized void rejected() {
        rejected++;
    }

    /** Records a verified delivery; one answered {@code 2xx} is applied as a merchant should: by sequence. */
    synchronized void record(ReceivedDelivery delivery) {
        deliveries.add(delivery);
        if (!delivery.acknowledged()) {
            failed++;
            return;
        }
        accepted++;
        if (!acceptedIds.add(delivery.eventId())) {
            duplicates++;
            return;
        }
        AppliedEvent before = applied.get(delivery.objectId());
        if (before != null && delivery.sequence() <= before.sequence()) {
            stale++;
            return;
        }
        if (before != null && SETTLED.contains(before.status()) && "pending".equals(delivery.status())) {
            outOfOrderApplied++;
        }
        applied.put(delivery.objectId(),
                new AppliedEvent(delivery.eventId(), delivery.type(), delivery.sequence(), delivery.status()));
    }

    synchronized List<ReceivedDelivery> deliveries() {
        return List.copyOf(deliveries);
    }

    synchronized Map<String, AppliedEvent> applied() {
        return Collections.unmodifiableMap(new LinkedHashMap<>(applied));
    }

    synchronized MerchantCounts counts() {
        return new MerchantCounts(received, accepted, rejected, failed, duplicates, stale, outOfOrderApplied);
    }

    synchronized void clear() {
        deliveries.clear();
        applied.clear();
        acceptedIds.clear();
        received = accepted = rejected = failed = duplicates = stale = outOfOrderApplied = 0;
    }
}
