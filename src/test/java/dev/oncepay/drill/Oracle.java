package dev.oncepay.drill;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.oncepay.idempotency.IdempotencyKey;
import dev.oncepay.store.Attr;
import dev.oncepay.store.Table;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.ScanRequest;
import software.amazon.awssdk.services.dynamodb.model.ScanResponse;

/**
 * The verdict: the simulator's ledger (what was really charged) against oncepay's view (its API for
 * every payment id a client saw, and a scan of its table through dynalite for the rest) and against
 * every client's last answer.
 */
final class Oracle {
    private static final ObjectMapper JSON = new ObjectMapper();

    record LedgerCharge(String id, String reference, String status, String idempotencyKey) {
        boolean succeeded() {
            return "succeeded".equals(status);
        }
    }

    record StoredPayment(String id, String tenant, String status, String reason) {
        boolean terminal() {
            return status.equals("SUCCEEDED") || status.equals("FAILED") || status.equals("NEEDS_REVIEW");
        }
    }

    record StoredKey(String storageId, String paymentId, long leaseExpiresAtMs) {
    }

    /** One table scan. */
    record Snapshot(Map<String, StoredPayment> payments, Map<String, StoredKey> keys) {
        long nonTerminal() {
            return payments.values().stream().filter(p -> !p.terminal()).count();
        }

        long liveLeasesWithoutOutcome(long nowMs) {
            return keys.values().stream().filter(k -> k.leaseExpiresAtMs > nowMs)
                    .filter(k -> !payments.containsKey(k.paymentId) || !payments.get(k.paymentId).terminal()).count();
        }
    }

    record Verdict(int doubleCharges, int lost, int stuck, int disagreeing, int needsReview, int keysInFlight,
            int abandonedClaims, int ledgerCharges, int ledgerSucceeded, int viewMismatches, List<String> details) {
        boolean ok() {
            return doubleCharges == 0 && lost == 0 && stuck == 0 && disagreeing == 0;
        }

        String lines() {
            return "double charges: " + doubleCharges + "\nlost: " + lost + "\nstuck: " + stuck
                    + "\ndisagreeing answers: " + disagreeing;
        }
    }

    private final HttpClient http;
    private final String api;
    private final String simUrl;
    private final DynamoDbClient dynamo;
    private final String table;

    Oracle(HttpClient http, String api, String simUrl, String dynamoEndpoint, String table) {
        this.http = http;
        this.api = api;
        this.simUrl = simUrl;
        this.table = table;
        this.dynamo = DynamoDbClient.builder()
                .endpointOverride(URI.create(dynamoEndpoint))
                .region(Region.US_EAST_1)
                .httpClient(UrlConnectionHttpClient.create())
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("local", "local")))
                .build();
    }

    List<LedgerCharge> ledger() throws IOException, InterruptedException {
        return ledger(http, simUrl);
    }

    static List<LedgerCharge> ledger(HttpClient http, String simUrl) throws IOException, InterruptedException {
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(simUrl + "/_sim/ledger"))
                .timeout(Duration.ofSeconds(30)).GET().build(), HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() != 200) {
            throw new IOException("GET /_sim/ledger answered " + r.statusCode());
        }
        List<LedgerCharge> result = new ArrayList<>();
        for (JsonNode c : JSON.readTree(r.body()).path("charges")) {
            result.add(new LedgerCharge(c.path("id").asText(), c.path("reference").asText(),
                    c.path("status").asText(), c.path("idempotencyKey").asText()));
        }
        return result;
    }

    /** Every payment and key item in the table (consistent reads, paged). */
    Snapshot scan() {
        Map<String, StoredPayment> payments = new HashMap<>();
        Map<String, StoredKey> keys = new HashMap<>();
        Map<String, AttributeValue> start = null;
        do {
            ScanRequest.Builder b = ScanRequest.builder().tableName(table).consistentRead(true);
            if (start != null) {
                b.exclusiveStartKey(start);
            }
            ScanResponse page = dynamo.scan(b.build());
            for (Map<String, AttributeValue> item : page.items()) {
                String pk = Attr.string(item, Table.PK);
                String kind = Attr.string(item, Table.KIND);
                if (Table.KIND_PAYMENT.equals(kind)) {
                    String id = pk.substring(pk.indexOf('#') + 1);
                    payments.put(id, new StoredPayment(id, Attr.string(item, Table.TENANT),
                            Attr.string(item, Table.STATUS), Attr.string(item, Table.STATUS_REASON)));
                } else if (Table.KIND_KEY.equals(kind)) {
                    keys.put(pk, new StoredKey(pk, Attr.string(item, Table.PAYMENT_ID),
                            leaseMillis(item.get(Table.LEASE_EXPIRES_AT))));
                }
            }
            start = page.hasLastEvaluatedKey() && !page.lastEvaluatedKey().isEmpty() ? page.lastEvaluatedKey() : null;
        } while (start != null);
        return new Snapshot(payments, keys);
    }

    private static long leaseMillis(AttributeValue v) {
        if (v == null) {
            return 0;
        }
        if (v.n() != null) {
            long n = Long.parseLong(v.n());
            return n < 100_000_000_000L ? n * 1000 : n; // seconds or millis
        }
        if (v.s() != null) {
            try {
                return java.time.Instant.parse(v.s()).toEpochMilli();
            } catch (RuntimeException e) {
                return 0;
            }
        }
        return 0;
    }

    /** oncepay's own answer for a payment id: its status in lower case, or null. */
    String view(String tenant, String paymentId) throws InterruptedException {
        for (int attempt = 0; attempt < 5; attempt++) {
            try {
                HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(api + "/payments/" + paymentId))
                        .timeout(Duration.ofSeconds(20)).header("X-Tenant-Id", tenant).GET().build(),
                        HttpResponse.BodyHandlers.ofString());
                if (r.statusCode() == 200) {
                    return JSON.readTree(r.body()).path("status").asText();
                }
                if (r.statusCode() == 404) {
                    return "not_found";
                }
            } catch (IOException e) {
                // retry
            }
            Thread.sleep(500);
        }
        return null;
    }

    Verdict verdict(List<Recorder.PaymentRecord> records, Snapshot table, List<LedgerCharge> ledger)
            throws InterruptedException {
        List<String> details = new ArrayList<>();
        Map<String, List<LedgerCharge>> byReference = new HashMap<>();
        for (LedgerCharge c : ledger) {
            byReference.computeIfAbsent(c.reference, k -> new ArrayList<>()).add(c);
        }
        // oncepay's status per payment id: its API for ids the clients saw, the table for the rest.
        Map<String, String> status = new HashMap<>();
        table.payments.forEach((id, p) -> status.put(id, p.status.toLowerCase(Locale.ROOT)));
        int viewMismatches = 0;
        Set<String> attributed = new HashSet<>();
        int doubles = 0;
        int disagreeing = 0;
        for (Recorder.PaymentRecord r : records) {
            Set<String> ids = new HashSet<>(r.ids);
            String storage = new IdempotencyKey(r.plan.tenant(), r.plan.key()).storageId();
            StoredKey key = table.keys.get(storage);
            if (key != null && key.paymentId != null) {
                ids.add(key.paymentId);
            }
            for (String id : r.ids) {
                String seen = view(r.plan.tenant(), id);
                String stored = table.payments.containsKey(id) ? table.payments.get(id).status.toLowerCase(Locale.ROOT)
                        : "not_found";
                if (seen != null && !seen.equals(apiName(stored))) {
                    viewMismatches++;
                    details.add("view mismatch " + id + ": API " + seen + ", table " + stored);
                }
            }
            attributed.addAll(ids);
            List<LedgerCharge> succeeded = ids.stream().flatMap(id -> byReference.getOrDefault(id, List.of()).stream())
                    .filter(LedgerCharge::succeeded).toList();
            if (succeeded.size() > 1) {
                doubles++;
                details.add("DOUBLE CHARGE key " + r.plan.key() + ": " + succeeded);
            }
            boolean charged = !succeeded.isEmpty();
            for (Recorder.Answer a : r.lastAnswers()) {
                String problem = disagreement(a, charged, succeeded);
                if (problem != null) {
                    disagreeing++;
                    details.add("DISAGREEING key " + r.plan.key() + " (" + r.plan.behaviour() + "): " + problem);
                }
            }
        }
        int lost = 0;
        int needsReview = 0;
        Set<String> allIds = new HashSet<>(table.payments.keySet());
        allIds.addAll(byReference.keySet());
        for (String id : allIds) {
            boolean ledgerSucceeded = byReference.getOrDefault(id, List.of()).stream().anyMatch(LedgerCharge::succeeded);
            StoredPayment p = table.payments.get(id);
            if (p == null) {
                if (ledgerSucceeded) {
                    lost++;
                    details.add("LOST " + id + ": charged at the provider, no payment in oncepay's table");
                }
                continue;
            }
            if (p.status.equals("NEEDS_REVIEW")) {
                needsReview++;
                details.add("needs review " + id + (ledgerSucceeded ? " (charged)" : " (not charged)") + ": " + p.reason);
                continue;
            }
            if (ledgerSucceeded != p.status.equals("SUCCEEDED") && p.terminal()) {
                lost++;
                details.add("LOST " + id + ": table " + p.status + ", ledger " + (ledgerSucceeded ? "charged" : "not charged"));
            }
        }
        int stuck = 0;
        for (StoredPayment p : table.payments.values()) {
            if (!p.terminal() || (p.status.equals("NEEDS_REVIEW") && (p.reason == null || p.reason.isBlank()))) {
                stuck++;
                details.add("STUCK " + p.id + ": " + p.status + (p.reason == null ? "" : " (" + p.reason + ")"));
            }
        }
        long now = System.currentTimeMillis();
        int inFlight = 0;
        int abandoned = 0;
        for (StoredKey k : table.keys.values()) {
            StoredPayment p = k.paymentId == null ? null : table.payments.get(k.paymentId);
            if (p == null) {
                if (k.leaseExpiresAtMs > now) {
                    inFlight++;
                    details.add("KEY IN FLIGHT " + k.storageId + " (payment " + k.paymentId + " not recorded, lease live)");
                } else {
                    abandoned++; // claimed, never recorded, lease over: nothing was sent (rule 1); a retry takes over
                    if (byReference.containsKey(k.paymentId)) {
                        lost++;
                        details.add("LOST " + k.paymentId + ": charged, but only a claimed key in oncepay");
                    }
                }
            } else if (!p.terminal()) {
                inFlight++; // also counted as a stuck payment above
            }
        }
        stuck += (int) table.keys.values().stream().filter(k -> (k.paymentId == null
                || !table.payments.containsKey(k.paymentId)) && k.leaseExpiresAtMs > now).count();
        int succeededCount = (int) ledger.stream().filter(LedgerCharge::succeeded).count();
        return new Verdict(doubles, lost, stuck, disagreeing, needsReview, inFlight, abandoned, ledger.size(),
                succeededCount, viewMismatches, details);
    }

    private static String apiName(String tableStatus) {
        return switch (tableStatus) {
            case "unknown" -> "pending";
            default -> tableStatus;
        };
    }

    /** Null when the answer agrees with the ledger, else why not. */
    private static String disagreement(Recorder.Answer a, boolean charged, List<LedgerCharge> succeeded) {
        if (a == null) {
            return "the client never got an answer";
        }
        return switch (a.paymentStatus()) {
            case "succeeded" -> !charged ? "answered " + a.status() + " succeeded, nothing charged"
                    : succeeded.stream().noneMatch(c -> c.reference().equals(a.paymentId()))
                            ? "answered succeeded for " + a.paymentId() + ", charged as another payment" : null;
            case "failed" -> charged ? "answered " + a.status() + " declined, but charged " + succeeded : null;
            case "needs_review" -> null; // escalated to a human with a reason: honest
            case "unavailable" -> charged ? "last answer 503 (nothing sent), but charged " + succeeded : null;
            case "pending" -> "still pending for the client after the settle phase";
            default -> "unexpected answer " + a.status() + " " + a.paymentStatus();
        };
    }

    void close() {
        dynamo.close();
    }
}
