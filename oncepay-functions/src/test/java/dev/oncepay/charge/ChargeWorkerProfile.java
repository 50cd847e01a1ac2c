package dev.oncepay.charge;

import io.quarkus.test.junit.QuarkusTestProfile;
import java.util.Map;

/**
 * The application as the {@code charge-worker} Lambda: the tests deliver SQS events to it through
 * the Lambda mock event server, and call the charge function's entry method directly for the
 * requests that queue the charges. Tenant {@value #QUEUED_TENANT} queues every charge by default.
 */
public class ChargeWorkerProfile implements QuarkusTestProfile {
    static final String QUEUED_TENANT = "merchant-queued";

    @Override
    public Map<String, String> getConfigOverrides() {
        return Map.of(
                "quarkus.funqy.export", "charge-worker",
                "oncepay.queue.tenants." + QUEUED_TENANT + ".respond-async", "true");
    }
}
