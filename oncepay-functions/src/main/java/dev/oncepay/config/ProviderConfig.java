package dev.oncepay.config;

import io.smallrye.config.WithDefault;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;

/**
 * The provider accounts ({@code oncepay.provider.*}). The default account (tenants without their
 * own) is described by {@code id}, {@code account}, {@code url} and {@code api-key}; more accounts by
 * {@code accounts.<name>.*}, and tenants are bound to them by {@code tenants.<tenant>=<name>}.
 */
public interface ProviderConfig {

    /** Provider id of the default account: {@code sim} (the generic REST PSP) or {@code stripe}. */
    @WithDefault("sim")
    String id();

    /**
     * The merchant account at that provider; recorded on every payment, so facts from another
     * account cannot move it (payments without it read as this one).
     */
    @WithDefault("default")
    String account();

    /** Base URL of the default account's provider API. */
    @WithDefault("http://127.0.0.1:8090")
    String url();

    /**
     * How long the default account's lookups may trail its charges (a charge missing from a lookup
     * before then is no evidence of no charge); absent: its provider's default (Stripe:
     * {@code stripe.search-lag}, the generic PSP: {@code oncepay.reconcile.provider-visibility-lag}).
     */
    Optional<Duration> lookupLag();

    /**
     * The default account's charge queue (charge sends queued charges to it, the charge worker its
     * delayed retries); absent: its charges are never queued, whatever the request prefers.
     */
    Optional<String> queueUrl();

    /** Accounts besides the default one, by account name (unique across providers). */
    Map<String, ProviderAccountConfig> accounts();

    /** Tenant id → account name; a tenant not listed is charged through the default account. */
    Map<String, String> tenants();

    /** Connect timeout of every provider HTTP client. */
    @WithDefault("1S")
    Duration connectTimeout();

    /** Read timeout of every provider HTTP client; at most a call's attempt timeout. */
    @WithDefault("5S")
    Duration readTimeout();

    /** Limits of charge calls ({@code charge-call.*}). */
    ChargeCallConfig chargeCall();

    /** Limits of lookup calls ({@code lookup-call.*}). */
    LookupCallConfig lookupCall();

    /**
     * How long a sandbox trusts its last read of its fleet breaker shard before reading it again,
     * and how often it adds the calls it counted to that shard: the healthy path's only cost (one
     * request per breaker per period, a read or that write), and how late a sandbox may see
     * another's transition.
     */
    @WithDefault("1S")
    Duration breakerCache();

    /**
     * The most items each account's breaker and retry budget are spread over (fewer for a small
     * bulkhead cap): a sandbox uses one, so no item takes more than its share of the fleet's
     * requests. The bulkhead's slots take one item per 16 calls of its cap.
     */
    @WithDefault("64")
    int breakerShards();

    /** Retries allowed fleet-wide, as a share of calls ({@code retry-budget.*}). */
    RetryBudgetConfig retryBudget();

    /**
     * A provider call in flight longer than this takes a slot in its account's bulkhead (one
     * write, and one to give it back): healthy calls, quicker than this, cost nothing. A copy of
     * the slots that shows the cap full refuses calls without a request for a hundredth of this.
     */
    @WithDefault("500MS")
    Duration inFlightAfter();

    /**
     * Whether a sandbox's first call to an account (after it starts or is restored) takes its
     * bulkhead slot at entry rather than after {@code in-flight-after}: a new sandbox cannot see
     * the calls the fleet sent uncounted in the last {@code in-flight-after}, and an account turning
     * slow is what makes Lambda start new ones. Two writes per cold start.
     */
    @WithDefault("true")
    boolean firstCallCounted();

    /** Settings of the Stripe adapter ({@code stripe.*}). */
    StripeConfig stripe();

    /** Ceiling of the full-jitter backoff between charge attempts. */
    @WithDefault("2S")
    Duration backoffCap();

    /**
     * The default account's API key, sent as a bearer token; in production from Secrets
     * Manager, never logged. Only charge and reconcile hold API keys (the webhook function
     * holds signing secrets only); those two refuse to start without a key for every account
     * ({@code ProviderAccounts}) rather than call a provider with a placeholder.
     */
    Optional<String> apiKey();

    /**
     * A {@code Retry-After} (on 408, 409, 429 or 5xx) longer than this ends the retries instead of
     * blocking the caller, even where it would fit the call's deadline; a shorter one is honoured
     * only if it and a whole further attempt fit that deadline.
     */
    @WithDefault("2S")
    Duration maxRetryAfter();
}
