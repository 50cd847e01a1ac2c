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
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import org.eclipse.microprofile.faulttolerance.exceptions.BulkheadException;
import org.eclipse.microprofile.faulttolerance.exceptions.CircuitBreakerOpenException;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * Today's {@link FleetProtection} under simulation: each sandbox a {@code FleetProtection} of its
 * own over the shared store, driven as a charge drives it ({@code ChargeUseCase} asks
 * {@link FleetProtection#refusal}, then {@code ProviderCalls} enters the bulkhead, earns and spends
 * retry tokens, and asks and tells the breaker about every attempt), with the production defaults
 * of {@code ChargeCallConfig} and {@code ProviderConfig}.
 */
public final class TodaysFleetProtection implements ProtectedFleet {
    static final ProviderAccount ACCOUNT = new ProviderAccount("sim", "default");
    private static final ProviderOperation CHARGE = ProviderOperation.CHARGE;
    /** charge-call defaults: budget 8 s, attempt 6 s, 3 retries, backoff 100 ms (cap 2 s), read timeout 5 s. */
    private static final CallLimits CALL_LIMITS = new CallLimits(Duration.ofSeconds(8), Duration.ofSeconds(6),
            Duration.ofSeconds(5), 3, Duration.ofMillis(100), Duration.ofSeconds(2));
    /** charge-call's max-in-flight default. */
    static final int DEFAULT_MAX_IN_FLIGHT = 25;

    /** Today's protection with its defaults. */
    public static final Factory FACTORY = withMaxInFlight(DEFAULT_MAX_IN_FLIGHT);

    /** Today's protection with its defaults but a bulkhead cap of {@code maxInFlight} calls. */
    public static Factory withMaxInFlight(int maxInFlight) {
        return (store, table, clock, timers) -> new TodaysFleetProtection(store, table, clock, timers,
                limits(maxInFlight));
    }

    /** 5 failures in 10 s open it for 10 s; slow over 4 s; leases as {@code Limits.of} derives them. */
    private static Limits limits(int maxInFlight) {
        return new Limits(5, Duration.ofSeconds(10), Duration.ofSeconds(10), Duration.ofSeconds(4),
                Duration.ofSeconds(7), maxInFlight, Duration.ofSeconds(9));
    }

    private final DynamoDbClient store;
    private final String table;
    private final Clock clock;
    private final Timers timers;
    private final CountingMetrics metrics;
    private final Limits limits;
    private final Settings settings;

    private TodaysFleetProtection(DynamoDbClient store, String table, Clock clock, Timers timers, Limits limits) {
        this.store = store;
        this.table = table;
        this.clock = clock;
        this.timers = timers;
        this.metrics = new CountingMetrics(clock);
        this.limits = limits;
        // breaker-cache 1 s, retry budget 10 % of calls plus a burst of 10, in-flight-after 500 ms
        this.settings = new Settings(Map.of(CHARGE, limits, ProviderOperation.LOOKUP, limits,
                ProviderOperation.REFUND, limits), Duration.ofSeconds(1), 0.1, 10, Duration.ofMillis(500));
    }

    @Override
    public SandboxProtection newSandbox() {
        FleetProtection protection = new FleetProtection(store, table, clock, metrics, settings);
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
        return limits.failures();
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

        private static final class TodaysCall implements Call {
            final Bulkhead.InFlight place;
            FleetBreaker.Admission admission;

            TodaysCall(Bulkhead.InFlight place, FleetBreaker.Admission admission) {
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
                return Admission.admitted(new TodaysCall(place, protection.breaker().admit(ACCOUNT, CHARGE)));
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
            TodaysCall today = (TodaysCall) call;
            try {
                today.admission = protection.breaker().admit(ACCOUNT, CHARGE);
                return Admission.admitted(call);
            } catch (CircuitBreakerOpenException open) {
                return Admission.refused(Refusal.BREAKER_OPEN);
            }
        }

        @Override
        public void attempted(Call call, String failure, Duration took) {
            protection.breaker().record(ACCOUNT, CHARGE, ((TodaysCall) call).admission, failure, took);
        }

        @Override
        public void ended(Call call) {
            ((TodaysCall) call).place.close();
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
