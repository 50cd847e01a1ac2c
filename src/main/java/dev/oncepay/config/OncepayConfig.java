package dev.oncepay.config;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import java.time.Duration;
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

    interface Tenant {
        /** JWT claim (or Lambda-authorizer context key) that carries the tenant id. */
        @WithDefault("tenant_id")
        String claim();

        /**
         * Local runs only: header that stands in for the authorizer. Empty in production, where
         * a client-supplied tenant would let one merchant act as another.
         */
        Optional<String> trustedHeader();
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
    }

    interface Provider {
        /** Provider id in webhook paths ({@code /webhooks/{id}}). */
        @WithDefault("sim")
        String id();

        /** Base URL of the PSP's REST API (the REST client {@code psp} is pointed at it). */
        @WithDefault("http://127.0.0.1:8090")
        String url();

        /** Ceiling of the full-jitter backoff between charge attempts. */
        @WithDefault("2S")
        Duration backoffCap();

        /**
         * API key sent as a bearer token; in production from the {@code ONCEPAY_SECRET_ARN} secret,
         * never logged. No default outside dev/test: a deployment without it refuses to start
         * rather than calling the provider with a placeholder.
         */
        String apiKey();

        /**
         * A {@code Retry-After} (on 408, 409, 429 or 5xx) longer than this ends the retries instead of
         * blocking the caller, even where it would fit the call's deadline; a shorter one is honoured
         * only if it and a whole further attempt fit that deadline.
         */
        @WithDefault("2S")
        Duration maxRetryAfter();
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
