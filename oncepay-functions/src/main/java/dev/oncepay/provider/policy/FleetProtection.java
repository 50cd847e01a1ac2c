package dev.oncepay.provider.policy;

import dev.oncepay.config.EmbeddedMetrics;
import dev.oncepay.config.OncepayConfig;
import dev.oncepay.config.ProviderCallConfig;
import dev.oncepay.config.ProviderConfig;
import dev.oncepay.payment.ProviderAccount;
import dev.oncepay.provider.spi.ProviderOperation;
import dev.oncepay.provider.spi.ProviderRefusal;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.EnumMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * One sandbox's protection of the fleet's provider calls, per provider account and operation
 * (design rule 14): the {@link FleetBreaker}, the {@link RetryBudget} and the {@link Bulkhead}. All
 * three keep their state in one item in the table ({@link BreakerItem}) and read this sandbox's
 * copy of it ({@link BreakerItems}), so whatever one writes the others see without a request.
 */
@ApplicationScoped
public class FleetProtection {
    /** How one operation's breaker trips and probes, and how many of its calls may be in flight. */
    record Limits(int failures, Duration window, Duration openFor, Duration slowCall, Duration probeLease,
            int maxInFlight, Duration slotLease) {
        static Limits of(ProviderCallConfig call) {
            // A probe is one attempt, a slot one whole call: each lease outlives what it covers, so
            // a live holder keeps it and a dead one's ends soon after.
            return new Limits(call.breakerFailures(), call.breakerWindow(), call.breakerDelay(), call.slowCall(),
                    call.attemptTimeout().plusSeconds(1), call.maxInFlight(), call.budget().plusSeconds(1));
        }
    }

    /** Every breaker's limits, how long a sandbox trusts a read, the retry budget, and when a call takes a slot. */
    record Settings(Map<ProviderOperation, Limits> limits, Duration cacheFor, double retryShare, int retryBurst,
            Duration inFlightAfter) {
        static Settings of(ProviderConfig provider) {
            Map<ProviderOperation, Limits> limits = new EnumMap<>(ProviderOperation.class);
            limits.put(ProviderOperation.CHARGE, Limits.of(provider.chargeCall()));
            limits.put(ProviderOperation.LOOKUP, Limits.of(provider.lookupCall()));
            limits.put(ProviderOperation.REFUND, Limits.of(provider.chargeCall()));
            return new Settings(limits, provider.breakerCache(), provider.retryBudget().share(),
                    provider.retryBudget().burst(), provider.inFlightAfter());
        }

        Limits limits(ProviderOperation operation) {
            return limits.get(operation);
        }
    }

    private final Clock clock;
    private final Settings settings;
    private final BreakerItems items;
    private final FleetBreaker breaker;
    private final RetryBudget retryBudget;
    private final Bulkhead bulkhead;

    @Inject
    public FleetProtection(DynamoDbClient dynamo, OncepayConfig config, Clock clock, EmbeddedMetrics metrics) {
        this(dynamo, config.table(), clock, metrics, Settings.of(config.provider()));
    }

    FleetProtection(DynamoDbClient dynamo, String table, Clock clock, EmbeddedMetrics metrics, Settings settings) {
        this.clock = clock;
        this.settings = settings;
        this.items = new BreakerItems(dynamo, table, clock, metrics, settings.cacheFor());
        this.breaker = new FleetBreaker(items, clock, metrics, settings);
        this.retryBudget = new RetryBudget(items, metrics, settings.retryShare(), settings.retryBurst());
        this.bulkhead = new Bulkhead(items, clock, metrics, settings);
    }

    FleetBreaker breaker() {
        return breaker;
    }

    RetryBudget retryBudget() {
        return retryBudget;
    }

    Bulkhead bulkhead() {
        return bulkhead;
    }

    /**
     * Why a call would be refused right now, read from this sandbox's copy (no write): the breaker
     * is open or another sandbox probes, or the account has its cap of calls in flight.
     */
    public Optional<ProviderRefusal> refusal(ProviderAccount account, ProviderOperation operation) {
        Instant now = clock.instant();
        Limits limits = settings.limits(operation);
        BreakerItem item = items.current(BreakerItem.pk(account, operation));
        if (item.refuses(now, limits.openFor())) {
            return Optional.of(ProviderRefusal.BREAKER_OPEN);
        }
        if (item.inFlightAt(now) >= limits.maxInFlight()) {
            return Optional.of(ProviderRefusal.AT_CAPACITY); // counted by the caller that acts on it
        }
        return Optional.empty();
    }

    /**
     * Forgets what this sandbox read and earned; the next call reads the store. Returns the breakers
     * it had read. After a SnapStart restore (the copy in the snapshot is of another time) and in tests.
     */
    public Set<String> forgetReads() {
        Set<String> known = items.forgetReads();
        retryBudget.forgetEarnings();
        return known;
    }
}
