package dev.oncepay.local;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import org.junit.jupiter.api.Test;

class EventBridgeScheduleTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void theEventIsEventBridgesScheduledEvent() {
        JsonNode e = EventBridgeSchedule.scheduledEvent("53dc4d37-cffa-4f76-80c9-8b7d4a4d2eaa",
                Instant.parse("2026-11-30T10:00:00.789Z"));
        assertEquals("0", e.get("version").asText());
        assertEquals("53dc4d37-cffa-4f76-80c9-8b7d4a4d2eaa", e.get("id").asText());
        assertEquals("Scheduled Event", e.get("detail-type").asText());
        assertEquals("aws.events", e.get("source").asText());
        assertEquals("123456789012", e.get("account").asText());
        assertEquals("2026-11-30T10:00:00Z", e.get("time").asText(), "whole seconds, UTC");
        assertEquals("us-east-1", e.get("region").asText());
        assertEquals("arn:aws:events:us-east-1:123456789012:rule/oncepay-reconcile", e.at("/resources/0").asText());
        assertTrue(e.get("detail").isObject() && e.get("detail").isEmpty());
    }

    @Test
    void firesEveryIntervalWithAFreshEventWhetherOrNotTheLastOneFinished() throws Exception {
        ScheduledExecutorService timers = Executors.newScheduledThreadPool(1);
        List<JsonNode> events = new CopyOnWriteArrayList<>();
        try (EventBridgeSchedule schedule = new EventBridgeSchedule("reconcile", Duration.ofMillis(100), timers, event -> {
            try {
                events.add(JSON.readTree(event));
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
            return new CompletableFuture<>(); // never finishes: the schedule keeps its beat up to its limit
        })) {
            long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
            while (events.size() < 3 && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            Thread.sleep(400);
        } finally {
            timers.shutdownNow();
        }
        assertEquals(3, events.size(), "three outstanding at most, then beats are skipped");
        assertEquals(3, events.stream().map(e -> e.get("id").asText()).distinct().count());
    }
}
