package dev.oncepay.config;

import dev.oncepay.contract.Metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Map;
import org.junit.jupiter.api.Test;

class EmbeddedMetricsTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void aCounterIsOneEmbeddedMetricFormatLine() throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        Clock clock = Clock.fixed(Instant.ofEpochMilli(1_764_496_800_000L), ZoneOffset.UTC);
        new EmbeddedMetrics(JSON, clock, new PrintStream(out, true, StandardCharsets.UTF_8)).count(Metrics.NEEDS_REVIEW);

        String line = out.toString(StandardCharsets.UTF_8).strip();
        JsonNode record = JSON.readTree(line);
        assertEquals(1_764_496_800_000L, record.at("/_aws/Timestamp").asLong());
        JsonNode definition = record.at("/_aws/CloudWatchMetrics/0");
        assertEquals("oncepay", definition.get("Namespace").asText());
        assertEquals("[[]]", definition.get("Dimensions").toString(), "no dimensions, as the alarms expect");
        assertEquals("NeedsReview", definition.at("/Metrics/0/Name").asText());
        assertEquals("Count", definition.at("/Metrics/0/Unit").asText());
        assertEquals(1.0, record.get("NeedsReview").asDouble());
        assertEquals(1, line.lines().count(), "one line per record, as CloudWatch Logs reads it");
    }

    @Test
    void aDimensionedMetricNamesItsDimensionSetAndCarriesTheirValues() throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        Clock clock = Clock.fixed(Instant.ofEpochMilli(1_764_496_800_000L), ZoneOffset.UTC);
        new EmbeddedMetrics(JSON, clock, new PrintStream(out, true, StandardCharsets.UTF_8))
                .measure(Metrics.PROVIDER_LATENCY, 87, "Milliseconds",
                        Map.of(Metrics.DIM_OUTCOME, "SUCCEEDED", Metrics.DIM_OPERATION, "charge"));

        JsonNode record = JSON.readTree(out.toString(StandardCharsets.UTF_8).strip());
        JsonNode definition = record.at("/_aws/CloudWatchMetrics/0");
        assertEquals("[[\"Operation\",\"Outcome\"]]", definition.get("Dimensions").toString(),
                "one dimension set, in a stable order");
        assertEquals("ProviderLatency", definition.at("/Metrics/0/Name").asText());
        assertEquals("Milliseconds", definition.at("/Metrics/0/Unit").asText());
        assertEquals("charge", record.get("Operation").asText(), "EMF reads a dimension's value from the record");
        assertEquals("SUCCEEDED", record.get("Outcome").asText());
        assertEquals(87.0, record.get("ProviderLatency").asDouble());
    }
}
