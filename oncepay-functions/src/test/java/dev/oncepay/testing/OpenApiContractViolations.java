package dev.oncepay.testing;

import java.util.List;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Fails the test during which a function answered against the OpenAPI document, also where the
 * answer was checked on a thread the test does not join (a gateway bridge serving the simulator's
 * webhook deliveries), whose thrown error would only reach the simulator. Registered for every
 * test through JUnit's extension autodetection (which quarkus-junit enables).
 */
public class OpenApiContractViolations implements AfterEachCallback {
    @Override
    public void afterEach(ExtensionContext context) {
        List<String> violations = OpenApiContract.drainRecorded();
        if (!violations.isEmpty()) {
            throw new AssertionError(violations.size() + " answer(s) violated " + OpenApiContract.RESOURCE + ":\n"
                    + String.join("\n", violations));
        }
    }
}
