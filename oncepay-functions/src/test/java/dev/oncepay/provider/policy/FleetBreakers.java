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
import java.util.HashSet;
import java.util.List;
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
        Set<String> used = new HashSet<>(fleet.forgetReads());
        used.addAll(movedElsewhere);
        movedElsewhere.clear();
        for (String pk : used) {
            TestEnvironment.dynamo().deleteItem(b -> b.tableName(TestEnvironment.TABLE).key(Attr.key(pk)));
        }
    }

    /** Another sandbox meets failures enough to open the breaker of {@code account}'s {@code operation}. */
    public synchronized void openFromAnotherSandbox(ProviderAccount account, ProviderOperation operation) {
        FleetBreaker other = anotherSandbox(account, operation).breaker();
        int threshold = FleetProtection.Settings.of(config.provider()).limits().get(operation).failures();
        for (int i = 0; i < threshold; i++) {
            FleetBreaker.Admission call = other.admit(account, operation);
            other.record(account, operation, call, "503 from the provider", Duration.ofMillis(5));
        }
    }

    /** Other sandboxes retry until the fleet's retry budget for {@code account}'s {@code operation} is spent. */
    public synchronized void spendRetryBudgetFromAnotherSandbox(ProviderAccount account, ProviderOperation operation) {
        RetryBudget other = anotherSandbox(account, operation).retryBudget();
        while (other.mayRetry(account, operation)) {
            // each granted retry takes a token
        }
    }

    /**
     * Other sandboxes hold {@code account}'s whole cap of {@code operation} calls in flight (each
     * counted in the item, as a call slower than {@code in-flight-after} is) until the returned action ends them.
     */
    public synchronized Runnable fillFromOtherSandboxes(ProviderAccount account,
            ProviderOperation operation) throws InterruptedException {
        FleetProtection.Settings settings = FleetProtection.Settings.of(config.provider());
        Bulkhead other = anotherSandbox(account, operation, new FleetProtection.Settings(settings.limits(),
                settings.cacheFor(), settings.retryShare(), settings.retryBurst(), Duration.ZERO)).bulkhead();
        int cap = settings.limits().get(operation).maxInFlight();
        List<Bulkhead.InFlight> calls = new ArrayList<>();
        for (int i = 0; i < cap; i++) {
            calls.add(other.enter(account, operation));
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

    /** The slots {@code account}'s {@code operation} item holds, as the table says now. */
    public int slotsHeld(ProviderAccount account, ProviderOperation operation) {
        return TableItems.readConsistently(TestEnvironment.dynamo(), TestEnvironment.TABLE,
                BreakerItem.pk(account, operation)).map(BreakerItem::from).map(b -> b.inFlight().size()).orElse(0);
    }

    private FleetProtection anotherSandbox(ProviderAccount account, ProviderOperation operation) {
        return anotherSandbox(account, operation, FleetProtection.Settings.of(config.provider()));
    }

    private FleetProtection anotherSandbox(ProviderAccount account, ProviderOperation operation,
            FleetProtection.Settings settings) {
        movedElsewhere.add(BreakerItem.pk(account, operation));
        return new FleetProtection(TestEnvironment.dynamo(), TestEnvironment.TABLE, clock, metrics, settings);
    }
}
