package dev.oncepay.config;

import io.smallrye.config.WithDefault;
import java.time.Duration;

/** The sweep index and when the sweep first looks at a payment ({@code oncepay.sweep.*}). */
public interface SweepConfig {

    /** Number of sweep-index shards (GSI partition keys {@code 0..shards-1}). */
    @WithDefault("4")
    int shards();

    /** First check of an UNKNOWN payment, measured from when it became unknown. */
    @WithDefault("30S")
    Duration firstCheckDelay();
}
