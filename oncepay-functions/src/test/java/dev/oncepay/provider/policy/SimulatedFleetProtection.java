package dev.oncepay.provider.policy;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.oncepay.config.EmbeddedMetrics;
import dev.oncepay.contract.Metrics;
import dev.oncepay.payment.ProviderAccount;
import dev.oncepay.provider.policy.FleetProtection.Limits;
import dev.oncepay.provider.policy.FleetProtection.Settings;
import dev.oncepay.provider.policy.sim.ProtectedFleet;
import dev.oncepay.provider.policy.sim.SandboxProtection;
import dev.oncepay.provider.spi.ProviderOperation;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import org.eclipse.microprofile.faulttolerance.exceptions.BulkheadException;
import org.eclipse.microprofile.faulttolerance.exceptions.CircuitBreakerOpenException;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * The {@link FleetProtection} under simulation: each sandbox a {@code FleetProtection} of its
 * own over the shared store (its shard drawn from a random seeded by its number, so a run repeats), driven as a charge drives it ({@code ChargeUseCase} asks
 * {@link FleetProtection#refusal}, then {@code ProviderCalls} enters the bulkhead, earns and spends
 * retry tokens, and asks and tells the breaker about every attempt), with the production defaults
 * of {@code ChargeCallConfig} and {@code ProviderConfig}.
 */
public final class SimulatedFleetProtection implements ProtectedFleet {
    static final ProviderAccount ACCOUNT = new ProviderAccount("sim", "default");
    private static final ProviderOperation CHARGE = ProviderOperation.CHARGE;
    /** charge-call defaults: budget 8 s, attempt 6 s, 3 retries, backoff 100 ms (cap 2 s), read timeout 5 s. */
    private static final CallLimits CALL_LIMITS = new CallLimits(Duration.ofSeconds(8), Duration.ofSeconds(6),
            Duration.ofSeconds(5), 3, Duration.ofMillis(100), Duration.ofSeconds(2));

    /** The protection with its defaults but a bulkhead cap of {@code maxInFlight} calls. */
    public static Factory withMaxInFlight(int maxInFlight) {
        return (store, table, clock, timers) -> new SimulatedFleetProtection(store, table, clock, timers,
                limits(maxInFlight));
    }

    /**
     * charge-call's breaker defaults: the newest 20 calls (at least 5), none older than 10 s, open at
     * half failed or all slower than 5 s, for 10 s; leases as {@code Limits.of} derives them.
     */
    private static Limits limits(int maxInFlight) {
        return new Limits(20, 5, 0.5, 1.0, Duration.ofSeconds(10), Duration.ofSeconds(10), Duration.ofSeconds(5),
                Duration.ofSeconds(7), maxInFlight, Duration.ofSeconds(9));
    }

    private final DynamoDbClient store;
    private final String table;
    private final Clock clock;
    private final Timers timers;
    private final CountingMetrics metrics;
    private final Limits limits;
    private final Settings settings;

    private int sandboxes;

    private SimulatedFleetProtection(DynamoDbClient store, String table, Clock clock, Timers timers, Limits limits) {
        this.store = store;
        this.table = table;
        this.clock = clock;
        this.timers = timers;
        this.metrics = new CountingMetrics(clock);
        this.limits = limits;
        // breaker-cache 1 s, retry budget 10 % of calls plus a burst of 10, in-flight-after 500 ms,
        // a sandbox's first call counted, up to 64 shards
        this.settings = new Settings(Map.of(CHARGE, limits, ProviderOperation.LOOKUP, limits,
                ProviderOperation.REFUND, limits), Duration.ofSeconds(1), 0.1, 10, Duration.ofMillis(500), true, 64);
    }

    @Override
    public SandboxProtection newSandbox() {
        FleetProtection protection = new FleetProtection(store, table, clock, metrics, settings,
                new Random(++sandboxes));
        VirtualSlotTimer.install(protection.bulkhead(), timers);
        return new Sandbox(protection);
    }

    @Override
    public long openings() {
        return metrics.counted(Metrics.BREAKER_OPEN) + metrics.counted(Metrics.BREAKER_REOPEN);
    }

    @Override
    public long storeFailures() {
        return metrics.counted(Metrics.BREAKER_STORE_FAILED);
    }

    @Override
    public int thresholdVolume() {
        return limits.windowCalls();
    }

    @Override
    public int inFlightCap() {
        return limits.maxInFlight();
    }

    @Override
    public CallLimits limits() {
        return CALL_LIMITS;
    }

    /** One sandbox: a call is its bulkhead place and its current attempt's admission. */
    private static final class Sandbox implements SandboxProtection {
        private final FleetProtection protection;

        Sandbox(FleetProtection protection) {
            this.protection = protection;
        }

        private static final class SimulatedCall implements Call {
            final Bulkhead.InFlight place;
            FleetBreaker.Admission admission;

            SimulatedCall(Bulkhead.InFlight place, FleetBreaker.Admission admission) {
                this.place = place;
                this.admission = admission;
            }

            @Override
            public boolean probe() {
                return admission.probe();
            }
        }

        @Override
        public Admission admit() {
            var refusal = protection.refusal(ACCOUNT, CHARGE);
            if (refusal.isPresent()) {
                return Admission.refused(switch (refusal.get()) {
                    case BREAKER_OPEN -> Refusal.BREAKER_OPEN;
                    default -> Refusal.AT_CAPACITY;
                });
            }
            Bulkhead.InFlight place;
            try {
                place = protection.bulkhead().enter(ACCOUNT, CHARGE);
            } catch (BulkheadException atCapacity) {
                return Admission.refused(Refusal.AT_CAPACITY);
            }
            protection.retryBudget().earn(ACCOUNT, CHARGE);
            try {
                return Admission.admitted(new SimulatedCall(place, protection.breaker().admit(ACCOUNT, CHARGE)));
            } catch (CircuitBreakerOpenException open) {
                place.close();
                return Admission.refused(Refusal.BREAKER_OPEN);
            }
        }

        @Override
        public boolean mayRetry(Call call) {
            return protection.retryBudget().mayRetry(ACCOUNT, CHARGE);
        }

        @Override
        public Admission admitAttempt(Call call) {
            SimulatedCall simulated = (SimulatedCall) call;
            try {
                simulated.admission = protection.breaker().admit(ACCOUNT, CHARGE);
                return Admission.admitted(call);
            } catch (CircuitBreakerOpenException open) {
                return Admission.refused(Refusal.BREAKER_OPEN);
            }
        }

        @Override
        public void attempted(Call call, String failure, Duration took) {
            if (failure != null && took.compareTo(CALL_LIMITS.readTimeout()) >= 0) {
                ((SimulatedCall) call).place.hung(); // as ProviderCalls marks a call silent until the read timeout
            }
            protection.breaker().record(ACCOUNT, CHARGE, ((SimulatedCall) call).admission, failure, took);
        }

        @Override
        public void ended(Call call) {
            ((SimulatedCall) call).place.close();
        }
    }

    /** The metrics every sandbox of the fleet emits, counted instead of printed. */
    static final class CountingMetrics extends EmbeddedMetrics {
        private final Map<String, LongAdder> counts = new ConcurrentHashMap<>();

        CountingMetrics(Clock clock) {
            super(new ObjectMapper(), clock);
        }

        @Override
        public void measure(String metric, double value, String unit, Map<String, String> dimensions) {
            counts.computeIfAbsent(metric, m -> new LongAdder()).add((long) value);
        }

        long counted(String metric) {
            LongAdder count = counts.get(metric);
            return count == null ? 0 : count.sum();
        }
    }
}
