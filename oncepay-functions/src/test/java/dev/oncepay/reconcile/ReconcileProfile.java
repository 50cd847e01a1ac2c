package dev.oncepay.reconcile;

import io.quarkus.test.junit.QuarkusTestProfile;
import java.time.Duration;
import java.util.Map;

/**
 * The application as the {@code reconcile} Lambda (every reconcile test class shares this one
 * profile: one application start). Small caps so backoff and dead-lettering show in a few sweeps:
 * a deferral waits at most 1 min, the third unresolved check dead-letters, a batch is 8. One more
 * generic-PSP account, {@value #LAGGING_ACCOUNT}, declares that its lookups trail its charges by up to
 * 15 min (the simulator, for every account, lags as its faults say).
 */
public class ReconcileProfile implements QuarkusTestProfile {
    static final String LAGGING_ACCOUNT = "psp-lagging";
    /** What {@value #LAGGING_ACCOUNT} declares: above the 5 min visibility lag every account has. */
    static final Duration LAGGING_LOOKUP_LAG = Duration.ofMinutes(15);

    @Override
    public Map<String, String> getConfigOverrides() {
        String account = "oncepay.provider.accounts." + LAGGING_ACCOUNT + ".";
        return Map.of(
                "quarkus.funqy.export", "reconcile",
                "oncepay.reconcile.batch-size", "8",
                "oncepay.reconcile.backoff-base", "10S",
                "oncepay.reconcile.backoff-cap", "1M",
                "oncepay.reconcile.max-attempts", "3",
                "oncepay.reconcile.time-budget", "40S",
                account + "provider", "sim",
                account + "url", "${oncepay.provider.url}",
                account + "api-key", "local-sim-key",
                account + "lookup-lag", LAGGING_LOOKUP_LAG.toString());
    }
}
