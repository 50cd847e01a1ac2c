package dev.oncepay.provider.policy.sim;

import java.time.Duration;
import java.util.List;

/**
 * What the provider does for how long, at a steady {@code chargesPerSecond} of arrivals.
 *
 * @param measureFrom where the healthy-path cost is measured from (after the sandboxes warmed up)
 */
record Scenario(String name, int chargesPerSecond, Duration length, List<Provider.Phase> phases, Duration measureFrom) {
}
