package dev.oncepay.config;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;
import java.io.PrintStream;
import java.time.Clock;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Emits oncepay's custom metrics ({@link Metrics}) as CloudWatch Embedded Metric Format lines on
 * standard output: Lambda ships them to CloudWatch Logs, which extracts the metrics. No client,
 * no extra calls on the request path, and the alarms in {@code infra/} read exactly these names.
 */
@Singleton
public class EmbeddedMetrics {
    private final ObjectMapper json;
    private final Clock clock;
    private final PrintStream out;

    @Inject
    public EmbeddedMetrics(ObjectMapper json, Clock clock) {
        this(json, clock, System.out);
    }

    EmbeddedMetrics(ObjectMapper json, Clock clock, PrintStream out) {
        this.json = json;
        this.clock = clock;
        this.out = out;
    }

    /** One occurrence of an event (a counter, summed by CloudWatch). */
    public void count(String metric) {
        emit(metric, 1, "Count");
    }

    /** A point-in-time reading (a gauge). */
    public void gauge(String metric, double value, String unit) {
        emit(metric, value, unit);
    }

    private void emit(String metric, double value, String unit) {
        out.println(line(metric, value, unit));
    }

    String line(String metric, double value, String unit) {
        Map<String, Object> definition = new LinkedHashMap<>();
        definition.put("Namespace", Metrics.NAMESPACE);
        definition.put("Dimensions", List.of(List.of()));
        definition.put("Metrics", List.of(Map.of("Name", metric, "Unit", unit)));
        Map<String, Object> aws = new LinkedHashMap<>();
        aws.put("Timestamp", clock.millis());
        aws.put("CloudWatchMetrics", List.of(definition));
        Map<String, Object> record = new LinkedHashMap<>();
        record.put("_aws", aws);
        record.put(metric, value);
        try {
            return json.writeValueAsString(record);
        } catch (JsonProcessingException impossible) {
            throw new IllegalStateException(impossible);
        }
    }
}
