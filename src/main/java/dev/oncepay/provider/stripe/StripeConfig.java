package dev.oncepay.provider.stripe;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import java.time.Duration;

/** Settings of the Stripe adapter alone. */
@ConfigMapping(prefix = "oncepay.provider.stripe")
public interface StripeConfig {

    /**
     * How long a new PaymentIntent may be missing from Stripe's search (its index lags, "usually
     * under a minute", more during outages): until then "none found" is no evidence of no charge.
     */
    @WithDefault("1H")
    Duration searchLag();
}
