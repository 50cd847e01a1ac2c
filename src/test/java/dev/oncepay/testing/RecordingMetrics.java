package dev.oncepay.testing;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.oncepay.config.EmbeddedMetrics;
import io.quarkus.test.Mock;
import jakarta.inject.Singleton;
import jakarta.inject.Inject;
import java.time.Clock;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/** The application's metrics in tests: still emitted, and also remembered for assertions. */
@Mock
@Singleton
public class RecordingMetrics extends EmbeddedMetrics {
    private final Map<String, Double> last = new ConcurrentHashMap<>();
    private final Map<String, Integer> counts = new ConcurrentHashMap<>();

    @Inject
    public RecordingMetrics(ObjectMapper json, Clock clock) {
        super(json, clock);
    }

    @Override
    public void count(String metric) {
        counts.merge(metric, 1, Integer::sum);
        super.count(metric);
    }

    @Override
    public void gauge(String metric, double value, String unit) {
        last.put(metric, value);
        super.gauge(metric, value, unit);
    }

    public int counted(String metric) {
        return counts.getOrDefault(metric, 0);
    }

    public Double lastGauge(String metric) {
        return last.get(metric);
    }

    public void reset() {
        counts.clear();
        last.clear();
    }
}
