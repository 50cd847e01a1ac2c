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

    /**
     * How many times priming runs the path of a function whose clients wait on its answers
     * ({@link Primer#clientsWait()}; env {@code ONCEPAY_PRIMING_ROUNDS}). The Lambda runtime stops tiered compilation at C1, which
     * compiles a method once it has run about 200 times: one round loads and links the path, and
     * the rounds after it let the JIT compile it, so a sandbox restored from the snapshot runs its
     * first requests compiled rather than interpreted (docs/startup.md, Priming). Above 200, so
     * that a method the path calls once per charge is compiled too.
     */
    @WithDefault("250")
    int rounds();
}
