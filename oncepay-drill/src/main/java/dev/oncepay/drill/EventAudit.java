package dev.oncepay.drill;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.oncepay.contract.Attr;
import dev.oncepay.contract.Table;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * The merchant events, judged once everything settled: every settled payment and refund of a
 * tenant with an endpoint, as oncepay's table holds it (the payments' states the {@link Oracle}
 * judges against the provider's ledger), must have its final state applied at the merchant endpoint
 * ({@code GET /_merchant/received}: {@code applied[id].status}); no object's applied state may go
 * back (the endpoint's {@code outOfOrderApplied}) or lag behind a higher sequence it acknowledged;
 * and no delivery may carry a signature the merchant cannot verify.
 */
final class EventAudit {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Set<String> SETTLED = Set.of("SUCCEEDED", "FAILED", "NEEDS_REVIEW");
    /** Missing ids named on the verdict line; the details list them all. */
    private static final int NAMED = 5;

    /**
     * A settled payment or refund whose final state the merchant must hold.
     *
     * @param object {@code payment} or {@code refund}
     * @param status its final status as events spell it ({@code succeeded}, {@code failed}, {@code needs_review})
     * @param sequence the 1-based position of its last history entry that carries an event, 0 if none does
     * @param atMs when that entry was written (epoch ms), -1 if unknown
     */
    record Expected(String id, String object, String tenant, String status, long sequence, long atMs) {
    }

    /**
     * @param missing settled payments whose final state the merchant does not hold
     * @param refundsMissing settled refunds whose final state the merchant does not hold
     * @param outOfOrder the endpoint's {@code outOfOrderApplied} plus objects whose applied sequence is
     *        below one the merchant acknowledged
     * @param rejected deliveries refused for their signature
     * @param lagsMs per object the merchant holds: its final history entry to the first acknowledged delivery of its event
     */
    record Verdict(int missing, int refundsMissing, int outOfOrder, int rejected, int payments, int refunds,
            JsonNode merchantCounts, int notHighest, List<Long> lagsMs, long drainMs, QueueWatch.EventQueue queueAtEnd,
            List<String> missingIds, List<String> missingRefundIds, List<String> details) {
        boolean ok() {
            return missing == 0 && refundsMissing == 0 && outOfOrder == 0 && rejected == 0;
        }

        String lines() {
            return "events missing: " + missing + named(missingIds) + "\nrefund events missing: " + refundsMissing
                    + named(missingRefundIds) + "\nevents out of order applied: " + outOfOrder
                    + "\nevents with a bad signature: " + rejected;
        }

        private static String named(List<String> ids) {
            return ids.isEmpty() ? "" : " (" + String.join(", ", ids.subList(0, Math.min(NAMED, ids.size())))
                    + (ids.size() > NAMED ? ", …" : "") + ")";
        }

        String counts() {
            return String.format(Locale.ROOT, "  merchant events: %d settled payments and %d settled refunds with an"
                    + " endpoint; deliveries received %d, acknowledged %d, failed %d (the endpoint's 500s and dark 503s),"
                    + " rejected %d; duplicates %d, stale %d; applied behind an acknowledged sequence %d; drained in %.1f"
                    + " s, left on the event queue %s, dead letters %s; lag (final history entry to its first"
                    + " acknowledged delivery) n %d %s ms",
                    payments, refunds, merchantCounts.path("received").asLong(),
                    merchantCounts.path("accepted").asLong(), merchantCounts.path("failed").asLong(),
                    merchantCounts.path("rejected").asLong(), merchantCounts.path("duplicates").asLong(),
                    merchantCounts.path("stale").asLong(), notHighest, drainMs / 1000.0,
                    queueAtEnd == null ? "-" : Integer.toString(queueAtEnd.queue().total()),
                    queueAtEnd == null ? "-" : Integer.toString(queueAtEnd.deadLetters()), lagsMs.size(),
                    Report.percentiles(lagsMs, 50, 99));
        }
    }

    /** What the merchant endpoint held at the end of the drain, how long the drain took, and the queue then. */
    record Drained(JsonNode received, long ms, QueueWatch.EventQueue queue) {
    }

    private EventAudit() {
    }

    /** The settled payments and refunds of {@code tenants} in the table, by id. */
    static Map<String, Expected> expected(DynamoDbClient dynamo, String table, Collection<String> tenants) {
        return expected(LocalAws.scan(dynamo, table), tenants);
    }

    static Map<String, Expected> expected(List<Map<String, AttributeValue>> items, Collection<String> tenants) {
        Map<String, Expected> result = new TreeMap<>();
        for (Map<String, AttributeValue> item : items) {
            String kind = Attr.string(item, Table.KIND);
            boolean payment = Table.KIND_PAYMENT.equals(kind);
            if (!payment && !Table.KIND_REFUND.equals(kind)) {
                continue;
            }
            String status = Attr.string(item, Table.STATUS);
            String tenant = Attr.string(item, Table.TENANT);
            if (status == null || !SETTLED.contains(status) || !tenants.contains(tenant)) {
                continue;
            }
            String pk = Attr.string(item, Table.PK);
            String id = pk.substring(pk.indexOf('#') + 1);
            long sequence = 0;
            long atMs = -1;
            AttributeValue history = item.get(Table.HISTORY);
            if (history != null && history.hasL()) {
                List<AttributeValue> entries = history.l();
                for (int i = 0; i < entries.size(); i++) {
                    Map<String, AttributeValue> entry = entries.get(i).m();
                    if (entry != null && Attr.string(entry, Table.HISTORY_EVENT) != null) {
                        sequence = i + 1;
                        atMs = epochMs(Attr.string(entry, Table.HISTORY_AT));
                    }
                }
            }
            result.put(id, new Expected(id, payment ? "payment" : "refund", tenant, status.toLowerCase(Locale.ROOT),
                    sequence, atMs));
        }
        return result;
    }

    /**
     * Reads the merchant endpoint until it holds every expected final state and the event queue is
     * empty, or the queue has been empty and nothing reached the merchant for {@code quiet} (what
     * is missing then is missing: nothing is left to deliver it), or {@code within} has passed.
     */
    static Drained drain(HttpClient http, String merchantUrl, QueueWatch queues, Map<String, Expected> expected,
            Duration quiet, Duration within) throws IOException, InterruptedException {
        long start = System.nanoTime();
        long deadline = start + within.toNanos();
        long lastChange = start;
        long lastReceived = -1;
        while (true) {
            JsonNode received = received(http, merchantUrl);
            QueueWatch.EventQueue queue = queues.eventQueue();
            long now = System.nanoTime();
            long count = received.path("counts").path("received").asLong();
            if (count != lastReceived) {
                lastReceived = count;
                lastChange = now;
            }
            boolean empty = queue.queue().total() == 0;
            boolean complete = missing(expected, received.path("applied")).isEmpty();
            if ((complete && empty) || (empty && now - lastChange >= quiet.toNanos()) || now >= deadline) {
                return new Drained(received, (now - start) / 1_000_000, queue);
            }
            Thread.sleep(500);
        }
    }

    static JsonNode received(HttpClient http, String merchantUrl) throws IOException, InterruptedException {
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(merchantUrl + "/_merchant/received"))
                .timeout(Duration.ofSeconds(30)).GET().build(), HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() != 200) {
            throw new IOException("GET /_merchant/received answered " + r.statusCode());
        }
        return JSON.readTree(r.body());
    }

    /** The expected objects whose final state {@code applied} does not hold, in id order. */
    private static List<Expected> missing(Map<String, Expected> expected, JsonNode applied) {
        return expected.values().stream()
                .filter(e -> !e.status().equals(applied.path(e.id()).path("status").asText(null)))
                .sorted(java.util.Comparator.comparing(Expected::id)).toList();
    }

    static Verdict judge(Map<String, Expected> expected, Drained drained) {
        JsonNode received = drained.received();
        JsonNode applied = received.path("applied");
        JsonNode counts = received.path("counts");
        List<String> details = new ArrayList<>();
        List<String> missingIds = new ArrayList<>();
        List<String> missingRefundIds = new ArrayList<>();
        for (Expected e : missing(expected, applied)) {
            (e.object().equals("payment") ? missingIds : missingRefundIds).add(e.id());
            JsonNode held = applied.path(e.id());
            details.add("EVENT MISSING " + e.object() + " " + e.id() + " of " + e.tenant() + ": settled " + e.status()
                    + " (its last event at sequence " + e.sequence() + "), the merchant holds "
                    + (held.isMissingNode() ? "nothing" : held.path("status").asText() + " at sequence "
                            + held.path("sequence").asLong()));
        }
        Map<String, Long> highest = new HashMap<>();
        Map<String, Instant> firstAcknowledged = new HashMap<>();
        for (JsonNode d : received.path("deliveries")) {
            int answer = d.path("answer").asInt();
            if (answer < 200 || answer >= 300 || d.path("objectId").isNull()) {
                continue;
            }
            highest.merge(d.path("objectId").asText(), d.path("sequence").asLong(), Math::max);
            Instant at = Instant.parse(d.path("at").asText());
            firstAcknowledged.merge(d.path("eventId").asText(), at, (a, b) -> a.isBefore(b) ? a : b);
        }
        int notHighest = 0;
        for (Map.Entry<String, Long> h : highest.entrySet()) {
            long held = applied.path(h.getKey()).path("sequence").asLong();
            if (held < h.getValue()) {
                notHighest++;
                details.add("OUT OF ORDER " + h.getKey() + ": applied sequence " + held + ", acknowledged " + h.getValue());
            }
        }
        long outOfOrderApplied = counts.path("outOfOrderApplied").asLong();
        if (outOfOrderApplied > 0) {
            details.add("OUT OF ORDER: the merchant applied " + outOfOrderApplied + " event(s) that took a settled"
                    + " object back to pending");
        }
        List<Long> lags = new ArrayList<>();
        for (Expected e : expected.values()) {
            Instant first = firstAcknowledged.get("evt_" + e.id() + "_" + e.sequence());
            if (first != null && e.atMs() >= 0) {
                lags.add(Math.max(0, first.toEpochMilli() - e.atMs()));
            }
        }
        int payments = (int) expected.values().stream().filter(e -> e.object().equals("payment")).count();
        return new Verdict(missingIds.size(), missingRefundIds.size(), (int) outOfOrderApplied + notHighest,
                counts.path("rejected").asInt(), payments, expected.size() - payments, counts, notHighest, lags,
                drained.ms(), drained.queue(), missingIds, missingRefundIds, details);
    }

    private static long epochMs(String instant) {
        try {
            return Instant.parse(instant).toEpochMilli();
        } catch (RuntimeException e) {
            return -1;
        }
    }
}
