package dev.oncepay.startup;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;

/** Settings of priming ({@code oncepay.priming.*}). */
@ConfigMapping(prefix = "oncepay.priming")
public interface PrimingConfig {

    /**
     * Prime at startup too, not only before a SnapStart snapshot (env {@code ONCEPAY_PRIMING_AT_INIT}):
     * for a class-data archive's training run, which should see the request path.
     */
    @WithDefault("false")
    boolean atInit();
}
