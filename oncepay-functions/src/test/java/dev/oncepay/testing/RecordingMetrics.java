package dev.oncepay.testing;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.oncepay.config.EmbeddedMetrics;
import io.quarkus.test.Mock;
import jakarta.inject.Singleton;
import jakarta.inject.Inject;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

/** The application's metrics in tests: still emitted, and also remembered for assertions. */
@Mock
@Singleton
public class RecordingMetrics extends EmbeddedMetrics {
    /** One value as it was emitted. */
    public record Sample(String metric, double value, String unit, Map<String, String> dimensions) {
    }

    private final Map<String, Double> lastGauge = new ConcurrentHashMap<>();
    private final List<Sample> samples = new CopyOnWriteArrayList<>();

    @Inject
    public RecordingMetrics(ObjectMapper json, Clock clock) {
        super(json, clock);
    }

    @Override
    public void measure(String metric, double value, String unit, Map<String, String> dimensions) {
        samples.add(new Sample(metric, value, unit, Map.copyOf(dimensions)));
        super.measure(metric, value, unit, dimensions);
    }

    @Override
    public void gauge(String metric, double value, String unit) {
        lastGauge.put(metric, value);
        super.gauge(metric, value, unit);
    }

    /** The sum of the counter {@code metric}'s values, whatever their dimensions. */
    public int counted(String metric) {
        return (int) samples.stream().filter(s -> s.metric().equals(metric)).mapToDouble(Sample::value).sum();
    }

    /** The sum of the counter {@code metric}'s values under exactly {@code dimensions}. */
    public int counted(String metric, Map<String, String> dimensions) {
        return (int) values(metric, dimensions).stream().mapToDouble(Double::doubleValue).sum();
    }

    /** Every value of {@code metric} emitted under exactly {@code dimensions}, in order. */
    public List<Double> values(String metric, Map<String, String> dimensions) {
        return samples.stream().filter(s -> s.metric().equals(metric) && s.dimensions().equals(dimensions))
                .map(Sample::value).toList();
    }

    /** Every sample of {@code metric}, in order. */
    public List<Sample> samples(String metric) {
        return samples.stream().filter(s -> s.metric().equals(metric)).toList();
    }

    public Double lastGauge(String metric) {
        return lastGauge.get(metric);
    }

    public void reset() {
        samples.clear();
        lastGauge.clear();
    }
}
