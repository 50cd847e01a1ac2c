package dev.oncepay.config;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import java.time.Duration;

/** Settings of the reconcile sweep ({@code oncepay.reconcile.*}). */
@ConfigMapping(prefix = "oncepay.reconcile")
public interface ReconcileConfig {

    /** At most this many due payments are examined per invocation (oldest due first, over all shards). */
    @WithDefault("100")
    int batchSize();

    /**
     * No new payment is started once this much time has passed since the invocation began. Funqy
     * does not hand the Lambda context to the function, so this stands in for
     * {@code getRemainingTimeInMillis()}: keep it below the Lambda timeout minus the longest single
     * item (a lookup plus a re-sent charge with their retries, about 20 s).
     */
    @WithDefault("40S")
    Duration timeBudget();

    /** Base of the per-payment exponential backoff between checks. */
    @WithDefault("1M")
    Duration backoffBase();

    /** Ceiling of the per-payment backoff (equal jitter: uniform in {@code [c/2, c]}, {@code c = min(cap, base·2^attempts)}). */
    @WithDefault("6H")
    Duration backoffCap();

    /** A payment still unresolved after this many checks is dead-lettered ({@code NEEDS_REVIEW}). */
    @WithDefault("12")
    int maxAttempts();

    /** A payment still unresolved this long after its creation is dead-lettered. */
    @WithDefault("72H")
    Duration maxAge();

    /**
     * How long after its creation a payment the provider has no charge for may still be re-sent
     * (with its own provider idempotency key). Past this, "not found" waits for the end of the
     * provider's idempotency window and then fails the payment: a customer who was told "pending"
     * an hour ago may have paid another way, and a charge appearing much later would surprise
     * them. Never later than {@code provider-idempotency-window - window-margin}, whatever is set.
     */
    @WithDefault("1H")
    Duration resendHorizon();

    /**
     * How long the provider remembers an idempotency key (and answers a repeat with the first
     * result). Reconcile re-sends a charge it cannot find only well inside this window, and takes
     * "not found" as final only well after it.
     */
    @WithDefault("24H")
    Duration providerIdempotencyWindow();

    /**
     * Safety margin on both sides of the window: clock skew between us and the provider, in-flight
     * requests, and lag of the provider's lookup behind its charges.
     */
    @WithDefault("1H")
    Duration windowMargin();

    /**
     * How long after a charge request arrives any provider may still not list it in lookups: the
     * shortest lookup lag an account has, and the generic PSP's default. A PENDING payment whose
     * run died is failed as "nothing charged" only once its account's lookup lag has passed after
     * the run's lease ended; until then the sweep defers it (it never re-sends it).
     */
    @WithDefault("5M")
    Duration providerVisibilityLag();
}
