package dev.oncepay.provider.policy;

import dev.oncepay.config.EmbeddedMetrics;
import dev.oncepay.config.OncepayConfig;
import dev.oncepay.payment.ProviderAccount;
import dev.oncepay.contract.Attr;
import dev.oncepay.provider.spi.ProviderOperation;
import dev.oncepay.store.TableItems;
import dev.oncepay.testing.TestEnvironment;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * The fleet breakers in function tests: closed between tests (their items deleted, the sandbox's
 * reads forgotten), and moved by another sandbox — a second {@link FleetProtection} of the same
 * configuration over the same table, as another Lambda sandbox would be.
 */
@ApplicationScoped
public class FleetBreakers {
    @Inject
    FleetProtection fleet;
    @Inject
    OncepayConfig config;
    @Inject
    Clock clock;
    @Inject
    EmbeddedMetrics metrics;

    private final Set<String> movedElsewhere = new HashSet<>();

    /** Every breaker this application used is closed, with a full retry budget, for every function alike. */
    public synchronized void resetAll() {
        Set<String> used = new HashSet<>();
        for (String read : fleet.forgetReads()) {
            String breakerPk = read.substring(0, read.lastIndexOf('#'));
            used.add(breakerPk.endsWith("#slots") ? breakerPk.substring(0, breakerPk.lastIndexOf('#')) : breakerPk);
        }
        used.addAll(movedElsewhere);
        movedElsewhere.clear();
        FleetProtection.Settings settings = settings();
        int shards = settings.shards();
        int slotShards = Arrays.stream(ProviderOperation.values()).mapToInt(settings::slotShards).max().orElse(1);
        for (String pk : used) {
            delete(pk);
            for (int k = 0; k < shards; k++) {
                delete(BreakerShard.pk(pk, k));
            }
            for (int k = 0; k < slotShards; k++) {
                delete(BreakerShard.slotsPk(pk, k));
            }
        }
    }

    private static void delete(String pk) {
        TestEnvironment.dynamo().deleteItem(b -> b.tableName(TestEnvironment.TABLE).key(Attr.key(pk)));
    }

    /** Another sandbox meets failures enough to open the breaker of {@code account}'s {@code operation}. */
    public synchronized void openFromAnotherSandbox(ProviderAccount account, ProviderOperation operation) {
        FleetBreaker other = anotherSandbox(account, operation).breaker();
        int calls = settings().limits(operation).minCalls();
        for (int i = 0; i < calls; i++) {
            FleetBreaker.Admission call = other.admit(account, operation);
            other.record(account, operation, call, "503 from the provider", Duration.ofMillis(5));
        }
    }

    /** Other sandboxes, one in each shard, retry until the fleet's retry budget for {@code account}'s {@code operation} is spent. */
    public synchronized void spendRetryBudgetFromAnotherSandbox(ProviderAccount account, ProviderOperation operation) {
        FleetProtection other = anotherSandbox(account, operation);
        for (int k = 0; k < settings().shards(operation); k++) {
            other.useShard(k);
            while (other.retryBudget().mayRetry(account, operation)) {
                // each granted retry takes a token
            }
        }
    }

    /**
     * Other sandboxes, in every slot shard, hold {@code account}'s whole cap of {@code operation}
     * calls in flight (each counted in its shard, as a call slower than {@code in-flight-after} is)
     * until the returned action ends them.
     */
    public synchronized Runnable fillFromOtherSandboxes(ProviderAccount account,
            ProviderOperation operation) throws InterruptedException {
        FleetProtection.Settings settings = settings();
        FleetProtection other = anotherSandbox(account, operation, settings.withInFlightAfter(Duration.ZERO));
        int cap = settings.limits(operation).maxInFlight();
        List<Bulkhead.InFlight> calls = new ArrayList<>();
        for (int k = 0; k < settings.slotShards(operation); k++) {
            other.useShard(k);
            for (int i = 0; i < other.bulkhead().capOf(k, operation); i++) {
                calls.add(other.bulkhead().enter(account, operation));
            }
        }
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (slotsHeld(account, operation) < cap) {
            if (System.nanoTime() > until) {
                throw new AssertionError("the other sandboxes' calls never took " + cap + " slots");
            }
            Thread.sleep(10);
        }
        return () -> calls.forEach(Bulkhead.InFlight::close);
    }

    /** This sandbox forgets what it read of every breaker, as if its {@code breaker-cache} had passed. */
    public synchronized void readAgainHere() {
        movedElsewhere.addAll(fleet.forgetReads());
    }

    /** The slots {@code account}'s {@code operation} slot shards hold, as the table says now. */
    public int slotsHeld(ProviderAccount account, ProviderOperation operation) {
        FleetProtection.Settings settings = settings();
        int held = 0;
        for (int k = 0; k < settings.slotShards(operation); k++) {
            held += TableItems.readConsistently(TestEnvironment.dynamo(), TestEnvironment.TABLE,
                    BreakerShard.slotsPk(BreakerItem.pk(account, operation), k))
                    .map(item -> BreakerShard.from(item, settings.slots())).map(b -> b.inFlight().size()).orElse(0);
        }
        return held;
    }

    /** Calls and failures of one second, as the fleet's shards count them. */
    public record Counted(long calls, long failed) {
    }

    /** What every shard of {@code account}'s {@code operation} breaker counted in {@code second}, as the table says now. */
    public Counted countedIn(ProviderAccount account, ProviderOperation operation, long second) {
        FleetProtection.Settings settings = settings();
        CallCounts sum = CallCounts.NONE;
        for (int k = 0; k < settings.shards(); k++) {
            sum = sum.plus(TableItems.readConsistently(TestEnvironment.dynamo(), TestEnvironment.TABLE,
                    BreakerShard.pk(BreakerItem.pk(account, operation), k))
                    .map(item -> BreakerShard.from(item, settings.slots()).in(second)).orElse(CallCounts.NONE));
        }
        return new Counted(sum.calls(), sum.failed());
    }

    private FleetProtection.Settings settings() {
        return FleetProtection.Settings.of(config.provider());
    }

    private FleetProtection anotherSandbox(ProviderAccount account, ProviderOperation operation) {
        return anotherSandbox(account, operation, settings());
    }

    private FleetProtection anotherSandbox(ProviderAccount account, ProviderOperation operation,
            FleetProtection.Settings settings) {
        movedElsewhere.add(BreakerItem.pk(account, operation));
        return new FleetProtection(TestEnvironment.dynamo(), TestEnvironment.TABLE, clock, metrics, settings,
                new Random());
    }
}
