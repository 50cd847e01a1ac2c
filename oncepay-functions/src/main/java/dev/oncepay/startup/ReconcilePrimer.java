package dev.oncepay.startup;

import dev.oncepay.contract.DeploymentSettings;
import dev.oncepay.payment.PaymentRepository;
import dev.oncepay.payment.PaymentStatus;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.ArrayList;
import java.util.List;

/**
 * The reconcile function's path, read-only: its schedule event read, and the backlog's queries of
 * the attention index (per shard: the oldest UNKNOWN, the UNKNOWN and NEEDS_REVIEW counts) without
 * emitting the gauges. No sweep: a sweep writes and asks providers.
 */
@ApplicationScoped
class ReconcilePrimer implements Primer {
    private final PaymentRepository payments;

    ReconcilePrimer(PaymentRepository payments) {
        this.payments = payments;
    }

    @Override
    public String function() {
        return DeploymentSettings.FUNCTION_RECONCILE;
    }

    @Override
    public boolean clientsWait() {
        return false;
    }

    @Override
    public Round prime(SyntheticEvents events) {
        List<String> done = new ArrayList<>();
        done.add("schedule " + events.schedule().trigger());
        int queries = 0;
        for (int shard = 0; shard < payments.sweepShards(); shard++) {
            payments.attentionOldest(PaymentStatus.UNKNOWN, shard, null);
            payments.attentionCount(PaymentStatus.UNKNOWN, shard, null);
            payments.attentionCount(PaymentStatus.NEEDS_REVIEW, shard, null);
            queries += 3;
        }
        done.add("backlog queries " + queries);
        return new Round(done, true);
    }
}
