package dev.oncepay.config;

import dev.oncepay.contract.Metrics;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;
import java.io.PrintStream;
import java.time.Clock;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

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

    /** One occurrence of an event (a counter, summed by CloudWatch), without dimensions: what the alarms read. */
    public void count(String metric) {
        measure(metric, 1, "Count", Map.of());
    }

    /** One occurrence of an event, under {@code dimensions} (name → value). */
    public void count(String metric, Map<String, String> dimensions) {
        measure(metric, 1, "Count", dimensions);
    }

    /** A point-in-time reading (a gauge), without dimensions. */
    public void gauge(String metric, double value, String unit) {
        measure(metric, value, unit, Map.of());
    }

    /**
     * One value of {@code metric} (a duration, a number of retries, a reading) under
     * {@code dimensions}. CloudWatch files a metric under exactly the dimension set it was sent
     * with, so a dimensionless metric and a dimensioned one of the same name never mix.
     */
    public void measure(String metric, double value, String unit, Map<String, String> dimensions) {
        out.println(line(metric, value, unit, dimensions));
    }

    String line(String metric, double value, String unit, Map<String, String> unordered) {
        Map<String, String> dimensions = new TreeMap<>(unordered); // equal records, equal bytes
        Map<String, Object> definition = new LinkedHashMap<>();
        definition.put("Namespace", Metrics.NAMESPACE);
        definition.put("Dimensions", List.of(List.copyOf(dimensions.keySet())));
        definition.put("Metrics", List.of(Map.of("Name", metric, "Unit", unit)));
        Map<String, Object> aws = new LinkedHashMap<>();
        aws.put("Timestamp", clock.millis());
        aws.put("CloudWatchMetrics", List.of(definition));
        Map<String, Object> record = new LinkedHashMap<>();
        record.put("_aws", aws);
        // EMF reads each dimension's value from the record's member of the same name.
        record.putAll(dimensions);
        record.put(metric, value);
        try {
            return json.writeValueAsString(record);
        } catch (JsonProcessingException impossible) {
            throw new IllegalStateException(impossible);
        }
    }
}
