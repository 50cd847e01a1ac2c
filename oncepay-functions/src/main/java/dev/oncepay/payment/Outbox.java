package dev.oncepay.payment;

import dev.oncepay.contract.Attr;
import dev.oncepay.contract.Table;
import java.time.Instant;
import java.util.Map;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/** The outbox marker a write sets beside the event it records: what the sweep finds when no relay finished. */
public final class Outbox {
    private Outbox() {
    }

    /** The outbox index's partition {@code shard}: {@code outbox#<shard>}, sharded as the sweep's. */
    public static String partition(int shard) {
        return "outbox#" + shard;
    }

    /** Adds the marker of item {@code id}, written at {@code now}, to a write's SET clause. */
    static void mark(StringBuilder set, Map<String, String> names, Map<String, AttributeValue> values, String id,
            int shards, Instant now) {
        set.append(", #outboxShard = :outboxShard, #outboxAt = :outboxAt");
        names.put("#outboxShard", Table.OUTBOX_SHARD);
        names.put("#outboxAt", Table.OUTBOX_AT);
        values.put(":outboxShard", Attr.s(partition(Math.floorMod(id.hashCode(), shards))));
        values.put(":outboxAt", Attr.n(now.toEpochMilli()));
    }
}
