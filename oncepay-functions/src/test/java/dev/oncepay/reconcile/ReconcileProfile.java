package dev.oncepay.reconcile;

import io.quarkus.test.junit.QuarkusTestProfile;
import java.util.Map;

/**
 * The application as the {@code reconcile} Lambda (every reconcile test class shares this one
 * profile: one application start). Small caps so backoff and dead-lettering show in a few sweeps:
 * a deferral waits at most 1 min, the third unresolved check dead-letters, a batch is 8.
 */
public class ReconcileProfile implements QuarkusTestProfile {
    @Override
    public Map<String, String> getConfigOverrides() {
        return Map.of(
                "quarkus.funqy.export", "reconcile",
                "oncepay.reconcile.batch-size", "8",
                "oncepay.reconcile.backoff-base", "10S",
                "oncepay.reconcile.backoff-cap", "1M",
                "oncepay.reconcile.max-attempts", "3",
                "oncepay.reconcile.time-budget", "40S");
    }
}
