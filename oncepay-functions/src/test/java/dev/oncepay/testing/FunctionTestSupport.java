package dev.oncepay.testing;


import dev.oncepay.store.DynamoRequestCounter;
import jakarta.inject.Inject;
import java.time.Duration;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/** What the charge function's tests drive it with: phase hooks, the clock, request counts, direct calls, the lease. */
public abstract class FunctionTestSupport {
    @Inject
    protected PhaseHooks hooks;
    @Inject
    protected TestClock clock;
    @Inject
    protected DynamoRequestCounter dynamoRequests;
    @Inject
    protected DirectInvoker direct;
    /** How long a run holds its key: a retry past it takes over a dead or frozen run. */
    @ConfigProperty(name = "oncepay.idempotency.lease")
    protected Duration lease;
}
