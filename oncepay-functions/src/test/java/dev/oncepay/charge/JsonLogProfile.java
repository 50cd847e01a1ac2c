package dev.oncepay.charge;

import io.quarkus.test.junit.QuarkusTestProfile;
import java.util.Map;

/**
 * The charge application writing its log as Lambda does, one JSON object per line (the JSON
 * formatter of quarkus-logging-json), to a file a test reads; oncepay's own lines down to DEBUG,
 * so a leak at any level shows.
 */
public class JsonLogProfile implements QuarkusTestProfile {
    public static final String LOG_FILE = "target/json-log-test/oncepay.log";

    @Override
    public Map<String, String> getConfigOverrides() {
        return Map.of(
                "quarkus.log.file.enabled", "true",
                "quarkus.log.file.path", LOG_FILE,
                "quarkus.log.file.json.enabled", "true",
                "quarkus.log.category.\"dev.oncepay\".level", "DEBUG");
    }
}
