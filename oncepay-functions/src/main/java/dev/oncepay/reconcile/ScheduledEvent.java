package dev.oncepay.reconcile;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonProperty;
import io.quarkus.runtime.annotations.RegisterForReflection;
import java.util.List;
import java.util.Map;

/**
 * An EventBridge scheduled event ("Scheduled Event" from {@code aws.events}). A record of our own:
 * the typed SDK class loses {@code detail-type}. The sweep does not depend on any field (a manual
 * invocation with {@code {}} sweeps as well); they identify the trigger in the logs.
 */
@RegisterForReflection
@JsonIgnoreProperties(ignoreUnknown = true)
public record ScheduledEvent(
        String version,
        String id,
        @JsonProperty("detail-type") String detailType,
        String source,
        String account,
        String time,
        String region,
        List<String> resources,
        Map<String, Object> detail) {

    /** What started this sweep, for the logs: the event id and schedule, or "manual". */
    public String trigger() {
        if (id == null) {
            return "manual";
        }
        String rule = resources == null || resources.isEmpty() ? "" : " " + resources.get(0);
        return id + " (" + detailType + " at " + time + rule + ")";
    }
}
