package dev.oncepay.config;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;

/** Every setting of oncepay, from {@code application.properties} or the environment. */
@ConfigMapping(prefix = "oncepay")
public interface OncepayConfig {

    /** The DynamoDB table name (env {@code ONCEPAY_TABLE}). */
    @WithDefault("oncepay")
    String table();

    Tenant tenant();

    Idempotency idempotency();

    Charge charge();

    Sweep sweep();

    Provider provider();

    Operator operator();

    Admin admin();

    interface Operator {
        /**
         * Local runs and tests only: header that stands in for IAM authorization of the operator
         * API ({@code X-Operator-Id}). Empty in production, where the operator is the IAM principal.
         */
        Optional<String> trustedHeader();

        /**
         * The IAM role whose sessions alone may call the operator API ({@code OperatorRole}; infra
         * sets it). HTTP APIs have no resource policy, so an IAM administrator allowed
         * {@code execute-api:Invoke} on everything would otherwise pass API Gateway's check too.
         * Empty: any principal API Gateway authorized (local runs, tests).
         */
        Optional<String> roleName();
    }

    interface Admin {
        /**
         * How old a PENDING payment must be to be listed as {@code pending} by the operator API;
         * absent: when the sweep first looks at it (twice the key's lease after its creation).
         */
        Optional<Duration> pendingAfter();
    }

    interface Tenant {
        /** JWT claim (or Lambda-authorizer context key) that carries the tenant id. */
        @WithDefault("tenant_id")
        String claim();

        /**
         * Local runs only: header that stands in for the authorizer. Empty in production, where
         * a client-supplied tenant would let one merchant act as another.
         */
        Optional<String> trustedHeader();

        /**
         * The IAM role whose sessions alone may call the operator API ({@code OperatorRole}; infra
         * sets it). HTTP APIs have no resource policy, so an IAM administrator allowed
         * {@code execute-api:Invoke} on everything would otherwise pass API Gateway's check too.
         * Empty: any principal API Gateway authorized (local runs, tests).
         */
        Optional<String> roleName();
    }

    interface Idempotency {
        /** How long a key is remembered and replayed (Stripe: at least 24 h). */
        @WithDefault("24H")
        Duration retention();

        /**
         * How long a claimed key is owned by the request that claimed it. Must exceed the
         * charge Lambda's timeout, so a live request is never taken over.
         */
        @WithDefault("35S")
        Duration lease();
    }

    interface Charge {
        /** {@code Retry-After} sent with 409 while the same key is in flight. */
        @WithDefault("1S")
        Duration inFlightRetryAfter();

        /** {@code Retry-After} sent with 202 when the outcome is unknown. */
        @WithDefault("10S")
        Duration unknownRetryAfter();

        /** {@code Retry-After} sent with 503 when the provider is unavailable. */
        @WithDefault("5S")
        Duration unavailableRetryAfter();

        /**
         * {@code Retry-After} sent with 503 {@code provider-at-capacity}: a slot frees as soon as one
         * of the account's slow calls ends, so sooner than an open breaker lets a call through.
         */
        @WithDefault("1S")
        Duration atCapacityRetryAfter();
    }

    /**
     * The provider accounts. The default account (tenants without their own) is described by
     * {@code id}, {@code account}, {@code url} and {@code api-key}; more accounts by
     * {@code accounts.<name>.*}, and tenants are bound to them by {@code tenants.<tenant>=<name>}.
     */
    interface Provider {
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

        /** Accounts besides the default one, by account name (unique across providers). */
        Map<String, Account> accounts();

        /** Tenant id → account name; a tenant not listed is charged through the default account. */
        Map<String, String> tenants();

        /** Connect timeout of every provider HTTP client. */
        @WithDefault("1S")
        Duration connectTimeout();

        /** Read timeout of every provider HTTP client; at most a call's attempt timeout. */
        @WithDefault("5S")
        Duration readTimeout();

        ChargeCall chargeCall();

        LookupCall lookupCall();

        /**
         * How long a sandbox trusts its last read of a fleet breaker's item before reading it again:
         * the healthy path's only cost (one read per breaker per period), and how late a sandbox may
         * see another's transition.
         */
        @WithDefault("1S")
        Duration breakerCache();

        RetryBudget retryBudget();

        /**
         * A provider call in flight longer than this takes a slot in its account's bulkhead (one
         * write, and one to give it back): healthy calls, quicker than this, cost nothing.
         */
        @WithDefault("500MS")
        Duration inFlightAfter();

        Stripe stripe();

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

    /** A provider account besides the default one. */
    interface Account {
        /** Provider id: {@code sim} or {@code stripe}. */
        String provider();

        /** Base URL of its API, e.g. {@code https://api.stripe.com}. */
        String url();

        /** Its API key (charge and reconcile only; from Secrets Manager in production). */
        Optional<String> apiKey();
    }

    /**
     * The limits of one kind of provider call: timeout and retries by SmallRye Fault Tolerance guards
     * (one per provider account, see {@code ProviderCalls}), the breaker by the fleet breaker
     * shared through the table ({@code FleetBreaker}).
     */
    interface Call {
        /** The whole call: every attempt and every wait between them. */
        Duration budget();

        /** The longest one attempt may take. */
        Duration attemptTimeout();

        /** Attempts after the first, each only if it and its wait fit the budget. */
        int maxRetries();

        /** The first backoff ceiling (full jitter, doubling up to {@code backoff-cap}). */
        Duration backoffBase();

        /**
         * Failed or slow attempts, fleet-wide, within {@code breaker-window} that open the account's
         * breaker ({@code FleetBreaker}): a count, not a ratio, so successes cost no write.
         */
        int breakerFailures();

        /** The window failures are counted in; a failure after it ends starts a new one. */
        Duration breakerWindow();

        /** How long an open breaker refuses calls before one sandbox fleet-wide may probe. */
        Duration breakerDelay();

        /** An attempt that answers but takes longer than this counts as a failure (a hanging provider trips too). */
        Duration slowCall();

        /**
         * The bulkhead: calls of this kind in flight to one provider account, fleet-wide, beyond
         * which new calls are refused at once (503, or the sweep defers). Approximate: only calls
         * older than {@code in-flight-after} are counted ({@code Bulkhead}).
         */
        int maxInFlight();
    }

    /**
     * A charge: 8 s for everything, 6 s per attempt, at most 3 retries; its fleet breaker opens at 5
     * failed or slow (over 4 s) attempts within 10 s and lets one probe through after 10 s.
     */
    interface ChargeCall extends Call {
        @Override
        @WithDefault("8S")
        Duration budget();

        @Override
        @WithDefault("6S")
        Duration attemptTimeout();

        @Override
        @WithDefault("3")
        int maxRetries();

        @Override
        @WithDefault("100MS")
        Duration backoffBase();

        @Override
        @WithDefault("5")
        int breakerFailures();

        @Override
        @WithDefault("10S")
        Duration breakerWindow();

        @Override
        @WithDefault("10S")
        Duration breakerDelay();

        @Override
        @WithDefault("4S")
        Duration slowCall();

        @Override
        @WithDefault("25")
        int maxInFlight();
    }

    /**
     * A lookup: an attempt (5 s, the read timeout) fits its budget (6 s), so a retry only follows a
     * fast failure; at most 2 retries; the breaker as for charges.
     */
    interface LookupCall extends Call {
        @Override
        @WithDefault("6S")
        Duration budget();

        @Override
        @WithDefault("5S")
        Duration attemptTimeout();

        @Override
        @WithDefault("2")
        int maxRetries();

        @Override
        @WithDefault("100MS")
        Duration backoffBase();

        @Override
        @WithDefault("5")
        int breakerFailures();

        @Override
        @WithDefault("10S")
        Duration breakerWindow();

        @Override
        @WithDefault("10S")
        Duration breakerDelay();

        @Override
        @WithDefault("3S")
        Duration slowCall();

        @Override
        @WithDefault("25")
        int maxInFlight();
    }

    /** Retries fleet-wide per provider account and operation, as a share of its calls ({@code RetryBudget}). */
    interface RetryBudget {
        /** Retries earned per call: 0.1 lets one call in ten be retried once. */
        @WithDefault("0.1")
        double share();

        /** Retries a breaker's bucket starts with and holds at most, so a quiet account may still retry. */
        @WithDefault("10")
        int burst();
    }

    interface Stripe {
        /**
         * How long a new PaymentIntent may be missing from Stripe's search (Stripe: usually under a
         * minute, up to an hour during outages): an empty search is "no charge" only after it.
         */
        @WithDefault("1H")
        Duration searchLag();

        /** The API version every request pins (stripe-java 33.3.0's), so answers keep their shape. */
        @WithDefault("2026-07-29.dahlia")
        String apiVersion();
    }

    interface Sweep {
        /** Number of sweep-index shards (GSI partition keys {@code 0..shards-1}). */
        @WithDefault("4")
        int shards();

        /** First check of an UNKNOWN payment, measured from when it became unknown. */
        @WithDefault("30S")
        Duration firstCheckDelay();
    }
}
