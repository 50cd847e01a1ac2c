package dev.oncepay.drill;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.oncepay.contract.Attr;
import dev.oncepay.contract.DeploymentSettings;
import dev.oncepay.contract.Table;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * The verdict: the simulator's ledger (what was really charged) and every charge request that
 * reached it (the {@link WireTap}) against oncepay's view (its API for every payment id a client
 * saw, and a scan of its table through dynalite for the rest) and against the clients' requests and
 * last answers. Double charges are counted per order (merchant reference), whatever keys paid it;
 * orphan charges are requests that no client was waiting for.
 */
final class Oracle {
    private static final ObjectMapper JSON = new ObjectMapper();
    /** The drill's own key to the simulator's Stripe mode (it takes any test key). */
    private static final String STRIPE_KEY = "sk_test_oncepay_drill";
    /** How a payment's id starts ({@code Payment.newId}); a key for anything else is a wallet operation's. */
    private static final String PAYMENT_ID_PREFIX = "pay_";

    /** An executed charge; {@code reference} is oncepay's payment id. */
    record LedgerCharge(String id, String reference, String status, String idempotencyKey, long createdAtWallMs) {
        boolean succeeded() {
            return "succeeded".equals(status);
        }
    }

    /** A payment item; {@code reference} is the merchant's order. */
    record StoredPayment(String id, String tenant, String status, String reason, String reference,
            long createdAtWallMs) {
        boolean terminal() {
            return status.equals("SUCCEEDED") || status.equals("FAILED") || status.equals("NEEDS_REVIEW");
        }
    }

    record StoredKey(String storageId, String paymentId, long leaseExpiresAtMs) {
    }

    /**
     * One table scan: payments and their keys; the wallets' items apart (wallet operations' keys
     * included), which {@link WalletAudit} judges.
     */
    record Snapshot(Map<String, StoredPayment> payments, Map<String, StoredKey> keys,
            List<Map<String, AttributeValue>> walletItems) {
        /** Payments not terminal, but for those that wait for their customer (who may never come back). */
        long nonTerminal(Set<String> awaitingCustomer) {
            return payments.values().stream().filter(p -> !p.terminal() && !awaitingCustomer.contains(p.id)).count();
        }

        long liveLeasesWithoutOutcome(long nowMs, Set<String> awaitingCustomer) {
            return keys.values().stream().filter(k -> k.leaseExpiresAtMs > nowMs)
                    .filter(k -> !payments.containsKey(k.paymentId) || !payments.get(k.paymentId).terminal())
                    .filter(k -> k.paymentId == null || !awaitingCustomer.contains(k.paymentId)).count();
        }
    }

    /**
     * @param doubleCharges orders (merchant references) with more than one captured charge, whatever
     *        keys paid them and whatever the cause (each is listed with its cause)
     * @param extraCharges captured charges beyond the first of each order
     * @param orphanCharges provider charge requests that arrived while no request for their key was in
     *        flight and none had been answered 202: oncepay charging for nobody
     * @param chargeRequests charge requests that reached the provider
     * @param repaidOrders orders a shopper paid again under a fresh key
     * @param doubleClickedOrders orders sent under two keys within 100 ms
     * @param followedAnswers times a client stopped paying to follow the order's payment a {@code 409} named
     * @param awaitingCustomer payments pending because the provider waits for their customer to
     *        authenticate (Stripe's {@code requires_action}), nothing charged: neither lost nor stuck
     * @param asyncRefused requests with {@code Prefer: respond-async} answered {@code 503
     *        provider-at-capacity} or {@code provider-unavailable}: a queued charge waits on its queue
     *        for the provider instead
     */
    record Verdict(int doubleCharges, int extraCharges, int orphanCharges, int lost, int stuck, int disagreeing,
            int needsReview, int keysInFlight, int abandonedClaims, int ledgerCharges, int ledgerSucceeded,
            int chargeRequests, int viewMismatches, int repaidOrders, int doubleClickedOrders, int followedAnswers,
            int awaitingCustomer, int asyncRefused, List<String> details) {
        boolean ok() {
            return doubleCharges == 0 && orphanCharges == 0 && lost == 0 && stuck == 0 && disagreeing == 0
                    && asyncRefused == 0;
        }

        String lines() {
            return "double charges per order: " + doubleCharges + "\norphan charges: " + orphanCharges + "\nlost: "
                    + lost + "\nstuck: " + stuck + "\ndisagreeing answers: " + disagreeing
                    + "\nasync 503 provider-at-capacity/unavailable: " + asyncRefused;
        }
    }

    /**
     * What the drill saw besides the clients' answers: the provider's wire, the functions' logs, when
     * it killed charge sandboxes (ms since the workload started), and the payments the provider
     * holds for their customer ({@link #awaitingCustomer}).
     */
    record Evidence(List<WireTap.ChargeRequest> chargeRequests, List<LocalRunProcess.FunctionLine> functionLines,
            List<Long> chargeKillsMs, Set<String> awaitingCustomer) {
    }

    /** A function's log line may reach the drill a little after the request it announced reached the provider. */
    private static final long LOG_SLACK_MS = 500;

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
        this.dynamo = LocalAws.client(DynamoDbClient.builder(), dynamoEndpoint);
    }

    List<LedgerCharge> ledger() throws IOException, InterruptedException {
        return ledger(http, simUrl);
    }

    static List<LedgerCharge> ledger(HttpClient http, String simUrl) throws IOException, InterruptedException {
        List<LedgerCharge> result = new ArrayList<>();
        for (JsonNode c : ledgerJson(http, simUrl).path("charges")) {
            result.add(new LedgerCharge(c.path("id").asText(), c.path("reference").asText(),
                    c.path("status").asText(), c.path("idempotencyKey").asText(), wallMs(c.path("createdAt").asText())));
        }
        return result;
    }

    /** The simulator's whole ledger ({@code /_sim/ledger}): its {@code charges} and its {@code refunds}. */
    static JsonNode ledgerJson(HttpClient http, String simUrl) throws IOException, InterruptedException {
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(simUrl + "/_sim/ledger"))
                .timeout(Duration.ofSeconds(30)).GET().build(), HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() != 200) {
            throw new IOException("GET /_sim/ledger answered " + r.statusCode());
        }
        return JSON.readTree(r.body());
    }

    /**
     * Stripe mode: the payments oncepay has not settled whose PaymentIntent waits for the customer
     * to authenticate ({@code requires_action}) and which no charge captured. Such a payment is
     * neither lost nor charged, and "pending" is the truth about it. Asks the simulator's Stripe
     * search (the same ledger and PaymentIntents the functions see; faults are off by now).
     */
    Set<String> awaitingCustomer(Snapshot table) throws IOException, InterruptedException {
        Set<String> captured = new HashSet<>();
        ledger().stream().filter(LedgerCharge::succeeded).forEach(c -> captured.add(c.reference));
        Set<String> result = new HashSet<>();
        for (StoredPayment p : table.payments.values()) {
            if (p.terminal() || captured.contains(p.id)) {
                continue;
            }
            String query = java.net.URLEncoder.encode("metadata['oncepay_payment_id']:'" + p.id + "'",
                    java.nio.charset.StandardCharsets.UTF_8);
            HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(simUrl
                    + "/v1/payment_intents/search?query=" + query)).timeout(Duration.ofSeconds(30))
                    .header("Authorization", "Bearer " + STRIPE_KEY).GET().build(), HttpResponse.BodyHandlers.ofString());
            if (r.statusCode() != 200) {
                throw new IOException("Stripe search for " + p.id + " answered " + r.statusCode() + ": " + r.body());
            }
            JsonNode latest = null;
            for (JsonNode intent : JSON.readTree(r.body()).path("data")) {
                if (latest == null || intent.path("created").asLong() >= latest.path("created").asLong()) {
                    latest = intent;
                }
            }
            if (latest != null && "requires_action".equals(latest.path("status").asText())) {
                result.add(p.id);
            }
        }
        return result;
    }

    /** Every payment and key item in the table (consistent reads, paged). */
    Snapshot scan() {
        Map<String, StoredPayment> payments = new HashMap<>();
        Map<String, StoredKey> keys = new HashMap<>();
        List<Map<String, AttributeValue>> walletItems = new ArrayList<>();
        for (Map<String, AttributeValue> item : LocalAws.scan(dynamo, table)) {
            String pk = Attr.string(item, Table.PK);
            String kind = Attr.string(item, Table.KIND);
            if (Table.KIND_PAYMENT.equals(kind)) {
                String id = pk.substring(pk.indexOf('#') + 1);
                payments.put(id, new StoredPayment(id, Attr.string(item, Table.TENANT),
                        Attr.string(item, Table.STATUS), Attr.string(item, Table.STATUS_REASON),
                        Attr.string(item, Table.REFERENCE), wallMs(Attr.string(item, Table.CREATED_AT))));
            } else if (Table.KIND_KEY.equals(kind) && !paysAWallet(item)) {
                keys.put(pk, new StoredKey(pk, Attr.string(item, Table.PAYMENT_ID),
                        leaseMillis(item.get(Table.LEASE_EXPIRES_AT))));
            } else if (WalletAudit.isWalletItem(item)) {
                walletItems.add(item);
            }
        }
        return new Snapshot(payments, keys, walletItems);
    }

    /** A key item claimed for a wallet operation, not a payment: its resource is no payment id. */
    private static boolean paysAWallet(Map<String, AttributeValue> item) {
        String resource = Attr.string(item, Table.PAYMENT_ID);
        return resource != null && !resource.startsWith(PAYMENT_ID_PREFIX);
    }

    private static long wallMs(String instant) {
        try {
            return java.time.Instant.parse(instant).toEpochMilli();
        } catch (RuntimeException e) {
            return 0;
        }
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

    Verdict verdict(List<Recorder.PaymentRecord> records, Snapshot table, List<LedgerCharge> ledger,
            Evidence evidence, Recorder recorder) throws InterruptedException {
        List<String> details = new ArrayList<>();
        Map<String, List<LedgerCharge>> byReference = new HashMap<>();
        for (LedgerCharge c : ledger) {
            byReference.computeIfAbsent(c.reference, k -> new ArrayList<>()).add(c);
        }
        OrderBook book = new OrderBook(records, recorder.attempts, table, evidence.chargeRequests(), recorder);
        book.conflicts().forEach(c -> details.add("CONFLICT " + c));
        Map<String, List<LocalRunProcess.FunctionLine>> linesOf = new HashMap<>();
        evidence.functionLines().forEach(l -> linesOf.computeIfAbsent(l.paymentId(), k -> new ArrayList<>()).add(l));

        // Orphans: every charge request that reached the provider, against its key's requests.
        Map<WireTap.ChargeRequest, String> orphans = new IdentityHashMap<>();
        for (WireTap.ChargeRequest q : evidence.chargeRequests()) {
            String why = orphan(q, book, recorder, linesOf.getOrDefault(q.paymentId(), List.of()));
            if (why != null) {
                orphans.put(q, why);
                details.add("ORPHAN CHARGE " + why);
            }
        }

        int viewMismatches = 0;
        for (Recorder.PaymentRecord r : records) {
            for (String id : r.ids) {
                String seen = view(r.plan.tenant(), id);
                String stored = table.payments.containsKey(id) ? table.payments.get(id).status.toLowerCase(Locale.ROOT)
                        : "not_found";
                // The API names an unsettled payment that waits for its customer requires_action.
                boolean awaiting = GoodClient.AWAITING_CUSTOMER.equals(seen) && stored.equals("unknown");
                if (seen != null && !seen.equals(apiName(stored)) && !awaiting) {
                    viewMismatches++;
                    details.add("view mismatch " + id + ": API " + seen + ", table " + stored);
                }
            }
        }

        // Double charges, per order: more than one captured charge, whatever keys paid it.
        Map<Recorder.PaymentRecord, List<LedgerCharge>> capturedByOrder = new LinkedHashMap<>();
        for (LedgerCharge c : ledger) {
            Recorder.PaymentRecord order = c.succeeded() ? book.orderOf(c.reference) : null;
            if (order != null) {
                capturedByOrder.computeIfAbsent(order, k -> new ArrayList<>()).add(c);
            }
        }
        int doubles = 0;
        int extra = 0;
        for (Map.Entry<Recorder.PaymentRecord, List<LedgerCharge>> e : capturedByOrder.entrySet()) {
            if (e.getValue().size() > 1) {
                doubles++;
                extra += e.getValue().size() - 1;
                details.add(doubleCharge(e.getKey(), e.getValue(), book, table, evidence, orphans, linesOf, recorder));
            }
        }

        // Each client's last answer, against the charges of its key's payments and of the payment the
        // answer names: after a 409 order refusal that is the order's payment (another key's) the
        // client followed, and the answer agrees when it is what the ledger says of that payment.
        int disagreeing = 0;
        for (Recorder.PaymentRecord r : records) {
            List<Recorder.Answer> last = r.lastAnswers();
            for (int s = 0; s < last.size(); s++) {
                Recorder.Answer a = last.get(s);
                String key = r.key(s);
                Set<String> payments = new HashSet<>(book.paymentsOf(key));
                if (a != null && a.paymentId() != null) {
                    payments.add(a.paymentId());
                }
                List<LedgerCharge> succeeded = payments.stream()
                        .flatMap(id -> byReference.getOrDefault(id, List.of()).stream())
                        .filter(LedgerCharge::succeeded).toList();
                String problem = a != null && "pending".equals(a.paymentStatus()) && a.paymentId() != null
                        && evidence.awaitingCustomer().contains(a.paymentId()) ? null
                        : disagreement(a, !succeeded.isEmpty(), succeeded);
                if (problem != null) {
                    disagreeing++;
                    details.add("DISAGREEING key " + key + " (" + r.plan.behaviour()
                            + (a != null && a.followed() ? ", followed the order's payment " + a.paymentId() : "")
                            + "): " + problem);
                }
                List<LedgerCharge> elsewhere = capturedByOrder.getOrDefault(r, List.of()).stream()
                        .filter(c -> !payments.contains(c.reference)).toList();
                if (a != null && !"succeeded".equals(a.paymentStatus()) && !elsewhere.isEmpty()) {
                    StoredPayment followed = a.followed() ? table.payments.get(a.paymentId()) : null;
                    details.add("note: order " + r.plan.reference() + " was last told " + a.status() + " "
                            + a.paymentStatus() + " on key " + key + (!a.followed() ? ""
                                    : " of the order's payment " + a.paymentId() + " it followed (" + (followed == null
                                            ? "not in the table" : followed.status + ", " + followed.reason) + ")")
                            + ", and is charged under another key: " + elsewhere);
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
        int awaitingCustomer = 0;
        for (StoredPayment p : table.payments.values()) {
            if (evidence.awaitingCustomer().contains(p.id)) {
                awaitingCustomer++;
                details.add("awaiting customer " + p.id + ": " + p.status + ", its PaymentIntent requires_action,"
                        + " nothing charged");
                continue;
            }
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
                    // Claimed and never recorded, or recorded and deleted unsent (nothing sent, an order
                    // refusal) before the release failed; lease over: nothing was sent, a retry takes over.
                    abandoned++;
                    if (byReference.containsKey(k.paymentId)) {
                        lost++;
                        details.add("LOST " + k.paymentId + ": charged, but only a claimed key in oncepay");
                    }
                }
            } else if (!p.terminal() && !evidence.awaitingCustomer().contains(p.id)) {
                inFlight++; // also counted as a stuck payment above
            }
        }
        stuck += (int) table.keys.values().stream().filter(k -> (k.paymentId == null
                || !table.payments.containsKey(k.paymentId)) && k.leaseExpiresAtMs > now).count();
        int succeededCount = (int) ledger.stream().filter(LedgerCharge::succeeded).count();
        int repaid = (int) records.stream().filter(r -> !r.abandoned.isEmpty()).count();
        int doubleClicked = (int) records.stream().filter(r -> r.plan.behaviour() == Workload.Behaviour.DOUBLE_CLICK)
                .count();
        int followed = records.stream().mapToInt(r -> r.followed.get()).sum();
        List<Recorder.Attempt> asyncRefused = recorder.attempts.stream()
                .filter(a -> a.respondAsync() && GoodClient.PROVIDER_REFUSALS.contains(a.outcome())).toList();
        asyncRefused.forEach(a -> details.add(String.format(Locale.ROOT, "ASYNC REFUSED key %s: asked Prefer: "
                + "respond-async at +%.1f s, answered %s", a.key(), a.startMs() / 1000.0, a.outcome())));
        return new Verdict(doubles, extra, orphans.size(), lost, stuck, disagreeing, needsReview, inFlight, abandoned,
                ledger.size(), succeededCount, evidence.chargeRequests().size(), viewMismatches, repaid, doubleClicked,
                followed, awaitingCustomer, asyncRefused.size(), details);
    }

    /**
     * Null when a client was waiting for this charge request — a request for its key in flight, one
     * answered 202 before it (then the sweep may re-send), or one that asked {@code Prefer:
     * respond-async} before it and never heard what oncepay did (its charge may be on the queue,
     * and the worker charges it later) — else what makes it an orphan.
     */
    private static String orphan(WireTap.ChargeRequest q, OrderBook book, Recorder recorder,
            List<LocalRunProcess.FunctionLine> lines) {
        long t = recorder.msOf(q.atNanos());
        String what = String.format(Locale.ROOT, "charge request at +%.1f s for payment %s by the %s (provider key %s,"
                + " answered %s)", t / 1000.0, q.paymentId(), origin(lines, t, recorder), q.idempotencyKey(),
                q.answer().get());
        Recorder.PaymentRecord order = q.paymentId() == null ? null : book.orderOf(q.paymentId());
        if (order == null) {
            return what + ": no client's order knows the payment";
        }
        String key = book.keyOf(q.paymentId());
        List<String> keys = key != null ? List.of(key) : List.copyOf(order.keys);
        Recorder.Attempt lastAnswered = null;
        for (String k : keys) {
            for (Recorder.Attempt a : book.posts(k)) {
                if (a.startMs() <= t && t < a.endMs() || a.outcome().equals("202") && a.endMs() <= t
                        || a.respondAsync() && a.startMs() <= t && GoodClient.unanswered(a.outcome())) {
                    return null;
                }
                if (a.endMs() <= t && (lastAnswered == null || a.endMs() > lastAnswered.endMs())) {
                    lastAnswered = a;
                }
            }
        }
        return what + ", order " + order.plan.reference() + ", " + (key != null ? "key " + key : "one of keys " + keys)
                + ": no request of the key in flight, none answered 202 and none queued; its last answer "
                + (lastAnswered == null ? "none (no request yet)" : String.format(Locale.ROOT, "%s at +%.1f s",
                        lastAnswered.outcome(), lastAnswered.endMs() / 1000.0));
    }

    /** The path that sent a charge request at {@code t}: the latest takeover or re-send logged before it. */
    private static String origin(List<LocalRunProcess.FunctionLine> lines, long t, Recorder recorder) {
        String origin = "charge run";
        for (LocalRunProcess.FunctionLine l : lines) {
            if (recorder.msOf(l.atNanos()) > t + LOG_SLACK_MS) {
                break;
            }
            if (l.function().equals("reconcile") && l.line().contains("re-send")) {
                origin = "reconcile re-send";
            } else if (l.function().equals("charge") && l.line().contains("took over")) {
                origin = "takeover";
            } else if (l.function().equals(DeploymentSettings.FUNCTION_CHARGE_WORKER) && l.line().contains("took over")) {
                origin = "charge worker";
            }
        }
        return origin;
    }

    /**
     * An order's captured charges, where each came from, and why the order was charged more than
     * once: an orphan charge, one payment executed twice, or a run the drill killed (a charge
     * sandbox SIGKILLed between the request reaching the provider and the gateway's {@code 502})
     * on a key the shopper then gave up after that {@code 502} for a fresh key whose payment the
     * order guard let through — named as the cause only when it explains every charge but one.
     */
    private static String doubleCharge(Recorder.PaymentRecord order, List<LedgerCharge> charges, OrderBook book,
            Snapshot table, Evidence evidence, Map<WireTap.ChargeRequest, String> orphans,
            Map<String, List<LocalRunProcess.FunctionLine>> linesOf, Recorder recorder) {
        StringBuilder d = new StringBuilder(String.format(Locale.ROOT, " order %s (%s, %s%s, keys %s): "
                + "%d captured charges", order.plan.reference(), order.plan.tenant(), order.plan.behaviour(),
                order.plan.shopper() ? ", shopper" : "", order.keys, charges.size()));
        String cause = null;
        boolean oncepayAtFault = false;
        int killedRuns = 0;
        for (LedgerCharge c : charges) {
            String paymentId = c.reference;
            String key = book.keyOf(paymentId);
            StoredPayment p = table.payments.get(paymentId);
            long executedMs = c.createdAtWallMs - recorder.t0WallMs;
            List<WireTap.ChargeRequest> withKey = evidence.chargeRequests().stream()
                    .filter(q -> c.idempotencyKey.equals(q.idempotencyKey())).toList();
            // The request answered as executed; else (a 409 while executing, an answer never read) the
            // last one that arrived before the provider executed it.
            WireTap.ChargeRequest executed = withKey.stream().filter(WireTap.ChargeRequest::executed)
                    .findFirst().orElseGet(() -> withKey.stream()
                            .filter(q -> recorder.msOf(q.atNanos()) <= executedMs + LOG_SLACK_MS)
                            .reduce((first, second) -> second).orElse(null));
            long requestedMs = executed != null ? recorder.msOf(executed.atNanos()) : executedMs;
            Recorder.GaveUp gaveUp = key == null ? null : order.abandoned.get(key);
            Long gaveUpMs = gaveUp == null ? null : gaveUp.atMs();
            List<String> answers = key == null ? List.of() : book.posts(key).stream()
                    .sorted(java.util.Comparator.comparingLong(Recorder.Attempt::endMs))
                    .map(a -> String.format(Locale.ROOT, "%s+%.1fs", a.outcome(), a.endMs() / 1000.0)).limit(10).toList();
            d.append(String.format(Locale.ROOT, "%n    %s for payment %s (key %s): payment %s%s; requested by the %s at "
                    + "+%.1f s (executed +%.1f s, provider answered %s); the key's answers %s%s", c.id, paymentId,
                    key == null ? "unknown" : key, p == null ? "not in the table" : p.status,
                    p == null || p.reason == null ? "" : " (" + p.reason + ")",
                    origin(linesOf.getOrDefault(paymentId, List.of()), requestedMs, recorder), requestedMs / 1000.0,
                    executedMs / 1000.0, executed == null ? "?" : executed.answer().get(),
                    answers, gaveUpMs == null ? "" : String.format(Locale.ROOT, "; the shopper gave it up at +%.1f s",
                            gaveUpMs / 1000.0)));
            if (executed != null && orphans.containsKey(executed)) {
                oncepayAtFault = true;
                cause = "oncepay charged payment " + paymentId + " with nobody waiting (orphan charge)";
            } else if (gaveUp != null && gaveUp.outcome().equals("502") && requestedMs < gaveUpMs
                    && evidence.chargeKillsMs().stream().anyMatch(k -> requestedMs <= k && k <= gaveUpMs)) {
                killedRuns++;
                cause = oncepayAtFault ? cause : String.format(Locale.ROOT, "the drill killed the run charging key %s "
                        + "after its charge reached the provider (+%.1f s); its client got the gateway's 502 (+%.1f s)"
                        + " and the shopper paid again under a fresh key, which the order guard let through",
                        key, requestedMs / 1000.0, gaveUpMs / 1000.0);
            }
        }
        if (charges.stream().map(LedgerCharge::reference).distinct().count() < charges.size()) {
            cause = "the provider executed one payment (one provider key) more than once";
            oncepayAtFault = true;
        }
        if (!oncepayAtFault && killedRuns < charges.size() - 1) {
            cause = "no killed run explains it: every charge was requested while a client of the order waited for it";
        }
        d.append("\n    cause: ").append(cause);
        return "DOUBLE CHARGE" + d;
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
            // The followed payment was deleted unsent; the settle phase pays again under the client's own key.
            case "not_found" -> charged ? "followed payment " + a.paymentId() + " was gone (404), but charged "
                    + succeeded : null;
            case "pending" -> "still pending for the client after the settle phase";
            default -> "unexpected answer " + a.status() + " " + a.paymentStatus();
        };
    }

    void close() {
        dynamo.close();
    }
}
