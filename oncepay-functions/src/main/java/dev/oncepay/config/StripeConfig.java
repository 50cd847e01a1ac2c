package dev.oncepay.config;

import io.smallrye.config.WithDefault;
import java.time.Duration;

/** Settings of the Stripe adapter ({@code oncepay.provider.stripe.*}). */
public interface StripeConfig {

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
