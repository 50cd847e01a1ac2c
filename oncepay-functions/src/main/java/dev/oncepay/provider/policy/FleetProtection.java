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
import java.util.EnumMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.Random;
import java.util.random.RandomGenerator;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * One sandbox's protection of the fleet's provider calls, per provider account and operation
 * (design rule 14): the {@link FleetBreaker}, the {@link RetryBudget} and the {@link Bulkhead}.
 * The breaker's and the budget's state is spread over up to {@code breaker-shards} items per
 * breaker, the bulkhead's slots over items of {@link #SLOTS_PER_SHARD} slots each
 * ({@link BreakerShard}); this sandbox uses one of each, picked at random when it starts, and keeps
 * its copy of what it read or wrote ({@link BreakerItems}).
 */
@ApplicationScoped
public class FleetProtection {
    /** The bulkhead's slots one slot shard holds (its part of the cap), at least. */
    static final int SLOTS_PER_SHARD = 16;

    /** How one operation's breaker trips and probes, and how many of its calls may be in flight. */
    record Limits(int windowCalls, int minCalls, double failureRatio, double slowRatio, Duration window,
            Duration openFor, Duration slowCall, Duration probeLease, int maxInFlight, Duration slotLease) {
        static Limits of(ProviderCallConfig call) {
            // A probe is one attempt, a slot one whole call: each lease outlives what it covers, so
            // a live holder keeps it and a dead one's ends soon after.
            return new Limits(call.breakerWindowCalls(), call.breakerMinCalls(), call.breakerFailureRatio(),
                    call.breakerSlowCallRatio(), call.breakerWindow(), call.breakerDelay(), call.slowCall(),
                    call.attemptTimeout().plusSeconds(1), call.maxInFlight(), call.budget().plusSeconds(1));
        }

        /** The seconds the window may reach back, the current one included. */
        int windowSeconds() {
            return BreakerShard.slots(window) - 1;
        }
    }

    /**
     * Every breaker's limits, how long a sandbox trusts a read (and how often it adds its counts),
     * the retry budget, when a call takes a slot, and how many items each breaker is spread over.
     */
    record Settings(Map<ProviderOperation, Limits> limits, Duration cacheFor, double retryShare, int retryBurst,
            Duration inFlightAfter, boolean firstCallCounted, int shards) {
        static Settings of(ProviderConfig provider) {
            Map<ProviderOperation, Limits> limits = new EnumMap<>(ProviderOperation.class);
            limits.put(ProviderOperation.CHARGE, Limits.of(provider.chargeCall()));
            limits.put(ProviderOperation.LOOKUP, Limits.of(provider.lookupCall()));
            limits.put(ProviderOperation.REFUND, Limits.of(provider.chargeCall()));
            return new Settings(limits, provider.breakerCache(), provider.retryBudget().share(),
                    provider.retryBudget().burst(), provider.inFlightAfter(), provider.firstCallCounted(),
                    Math.max(1, provider.breakerShards()));
        }

        Limits limits(ProviderOperation operation) {
            return limits.get(operation);
        }

        /** Ring slots per shard: enough for the longest window of any operation. */
        int slots() {
            return limits.values().stream().mapToInt(l -> BreakerShard.slots(l.window())).max().orElse(2);
        }

        /**
         * The shards {@code operation}'s breaker uses: {@code breaker-shards}, or fewer for a small
         * fleet, whose bulkhead cap stands for its size (one shard per {@link #SLOTS_PER_SHARD}
         * calls of the cap): a small fleet keeps one item, and an evaluation reads no more than it needs.
         */
        int shards(ProviderOperation operation) {
            return Math.max(1, Math.min(shards, slotShards(operation)));
        }

        /**
         * The shards {@code operation}'s bulkhead spreads its slots over: one per
         * {@link #SLOTS_PER_SHARD} calls of its cap, so a slot shard stays a few hundred bytes (one
         * write unit) and takes its share of the slot writes whatever the cap.
         */
        int slotShards(ProviderOperation operation) {
            return Math.max(1, limits(operation).maxInFlight() / SLOTS_PER_SHARD);
        }

        Settings withInFlightAfter(Duration after) {
            return new Settings(limits, cacheFor, retryShare, retryBurst, after, firstCallCounted, shards);
        }
    }

    private final Clock clock;
    private final Settings settings;
    private final RandomGenerator random;
    private final BreakerItems items;
    private final LocalBreaker local = new LocalBreaker();
    private final FleetBreaker breaker;
    private final RetryBudget retryBudget;
    private final Bulkhead bulkhead;
    /** Which shard this sandbox uses, taken modulo each breaker's number of shards. */
    private volatile int shardSeed;

    @Inject
    public FleetProtection(DynamoDbClient dynamo, OncepayConfig config, Clock clock, EmbeddedMetrics metrics) {
        this(dynamo, config.table(), clock, metrics, Settings.of(config.provider()), new Random());
    }

    FleetProtection(DynamoDbClient dynamo, String table, Clock clock, EmbeddedMetrics metrics, Settings settings,
            RandomGenerator random) {
        this.clock = clock;
        this.settings = settings;
        this.random = random;
        this.shardSeed = random.nextInt(Integer.MAX_VALUE);
        this.items = new BreakerItems(dynamo, table, clock, metrics, settings.cacheFor(), settings.slots());
        this.breaker = new FleetBreaker(items, local, clock, metrics, settings, this::shard);
        this.retryBudget = new RetryBudget(items, metrics, settings, this::shard, random);
        this.bulkhead = new Bulkhead(items, clock, metrics, settings, this::slotShard, random);
    }

    /** The shard this sandbox uses for {@code operation}'s breaker. */
    int shard(ProviderOperation operation) {
        return shardSeed % settings.shards(operation);
    }

    /** The slot shard this sandbox uses for {@code operation}'s bulkhead. */
    int slotShard(ProviderOperation operation) {
        return shardSeed % settings.slotShards(operation);
    }

    /** Moves this sandbox to {@code shard} (of the breaker's and of the bulkhead's): for tests that fill every shard. */
    void useShard(int shard) {
        this.shardSeed = shard;
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
     * Why a call would be refused right now, from this sandbox's copies: the breaker is open or
     * another sandbox probes, or the account has its cap of calls in flight as this sandbox last
     * saw its slot shard. A copy a cache period old is read again, by adding the calls the
     * sandbox counted since if it has any (the breaker's one request of the period).
     */
    public Optional<ProviderRefusal> refusal(ProviderAccount account, ProviderOperation operation) {
        if (breaker.refuses(account, operation)) {
            return Optional.of(ProviderRefusal.BREAKER_OPEN);
        }
        if (bulkhead.full(BreakerItem.pk(account, operation), operation, clock.instant())) {
            return Optional.of(ProviderRefusal.AT_CAPACITY); // counted by the caller that acts on it
        }
        return Optional.empty();
    }

    /**
     * Forgets what this sandbox read, counted and earned, and what its bulkhead learned from its
     * calls, and picks its shard again; the next call reads the store. Returns the breaker shards
     * it had read. After a SnapStart restore (the copy in the snapshot is of another time) and in
     * tests.
     */
    public Set<String> forgetReads() {
        Set<String> known = items.forgetReads();
        retryBudget.forgetEarnings();
        breaker.forgetCounts();
        bulkhead.forget();
        local.forget();
        // Sandboxes restored from one snapshot would all use the snapshot's shard.
        shardSeed = random.nextInt(Integer.MAX_VALUE);
        return known;
    }
}
