package dev.oncepay.drill;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The refunds' verdict: the simulator's ledger (what was really refunded, each provider refund
 * naming its oncepay refund in {@code reference} and its charge in {@code charge}) against
 * oncepay's view after the settle phase ({@code GET /payments/{id}}, its {@code refunds}) and
 * against every answer the refund clients got.
 */
final class RefundAudit {
    private static final ObjectMapper JSON = new ObjectMapper();

    /** An executed charge's id (the payment's {@code providerPaymentId}), its payment and amount. */
    record Charge(String id, String paymentId, long amount) {
    }

    /** A refund the provider accepted; {@code reference} is oncepay's refund id. */
    record LedgerRefund(String id, String charge, long amount, String status, String reference) {
        /** Pending or succeeded: its amount is gone from the charge. */
        boolean holdsAmount() {
            return !"failed".equals(status);
        }

        boolean isFinal() {
            return "succeeded".equals(status) || "failed".equals(status);
        }
    }

    /** The provider's side: its charges by id, and its refunds. */
    record Ledger(Map<String, Charge> charges, List<LedgerRefund> refunds) {
        static Ledger of(JsonNode ledger) {
            Map<String, Charge> charges = new HashMap<>();
            for (JsonNode c : ledger.path("charges")) {
                charges.put(c.path("id").asText(), new Charge(c.path("id").asText(), c.path("reference").asText(),
                        c.path("amount").asLong()));
            }
            List<LedgerRefund> refunds = new ArrayList<>();
            for (JsonNode r : ledger.path("refunds")) {
                refunds.add(new LedgerRefund(r.path("id").asText(), r.path("charge").asText(), r.path("amount").asLong(),
                        r.path("status").asText(), r.path("reference").asText()));
            }
            return new Ledger(charges, refunds);
        }
    }

    /** A refund as oncepay shows it in its payment's {@code refunds}. */
    record Seen(String id, String paymentId, String status, long amount) {
    }

    /**
     * @param overRefunds payments whose provider refunds (succeeded and pending) exceed their charge,
     *        plus payments whose refunds oncepay accepted (201/202/200, distinct refund ids, but for
     *        those oncepay finally says failed) sum above the payment's amount
     * @param doubleRefunds oncepay refund ids with more than one provider refund, plus keys whose
     *        answers name more than one refund id
     * @param lostRefunds refunds (oncepay's or the provider's ids) on which oncepay, its answers and the
     *        ledger disagree once settled: see {@link #judge}
     * @param asked refund requests sent (each its own key), of {@code orders} orders
     * @param answers POST answers by outcome ({@code 201}, {@code 409 refund-exceeds-charge}, ...)
     * @param replays answers marked {@code Idempotent-Replayed}
     * @param unexpected answers no refund client should get (404, 422, 400): listed, not counted
     */
    record Verdict(int overRefunds, int doubleRefunds, int lostRefunds, int orders, int asked,
            Map<String, Integer> answers, int replays, int unexpected, List<String> details) {
        boolean ok() {
            return overRefunds == 0 && doubleRefunds == 0 && lostRefunds == 0;
        }

        String lines() {
            return "over-refunds: " + overRefunds + "\ndouble refunds: " + doubleRefunds + "\nlost refunds: "
                    + lostRefunds;
        }

        String counts() {
            StringBuilder s = new StringBuilder(String.format("  refunds asked %d (%d orders); POST answers:", asked,
                    orders));
            answers.forEach((outcome, n) -> s.append(' ').append(outcome).append(' ').append(n).append(';'));
            return s.append(" replays ").append(replays).append("; unexpected ").append(unexpected).toString();
        }
    }

    private RefundAudit() {
    }

    /**
     * oncepay's refunds of each payment the clients refunded or the ledger refunded: {@code GET
     * /payments/{id}} as its tenant (a payment of no known tenant under each tenant in turn). A
     * payment that cannot be read is absent.
     */
    static Map<String, List<Seen>> view(HttpClient http, String api, List<RefundRecord> records, Ledger ledger)
            throws InterruptedException {
        Map<String, String> tenantOf = new TreeMap<>();
        records.stream().filter(r -> r.paymentId != null).forEach(r -> tenantOf.put(r.paymentId, r.tenant()));
        ledger.refunds().forEach(r -> {
            Charge c = ledger.charges().get(r.charge());
            if (c != null) {
                tenantOf.putIfAbsent(c.paymentId(), null);
            }
        });
        Map<String, List<Seen>> result = new HashMap<>();
        for (Map.Entry<String, String> e : tenantOf.entrySet()) {
            for (String tenant : e.getValue() != null ? List.of(e.getValue()) : Workload.TENANTS) {
                JsonNode payment = read(http, api, tenant, e.getKey());
                if (payment != null) {
                    List<Seen> seen = new ArrayList<>();
                    for (JsonNode r : payment.path("refunds")) {
                        seen.add(new Seen(r.path("id").asText(), e.getKey(), r.path("status").asText(),
                                r.path("amount").asLong()));
                    }
                    result.put(e.getKey(), seen);
                    break;
                }
            }
        }
        return result;
    }

    /** The payment's JSON, asked a few times over; null when not found or not answered. */
    private static JsonNode read(HttpClient http, String api, String tenant, String paymentId)
            throws InterruptedException {
        for (int attempt = 0; attempt < 5; attempt++) {
            try {
                HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(api + "/payments/" + paymentId))
                        .timeout(GoodClient.REQUEST_TIMEOUT).header("X-Tenant-Id", tenant).GET().build(),
                        HttpResponse.BodyHandlers.ofString());
                if (r.statusCode() == 200) {
                    return JSON.readTree(r.body());
                }
                if (r.statusCode() == 404) {
                    return null;
                }
            } catch (IOException e) {
                // ask again
            }
            Thread.sleep(500);
        }
        return null;
    }

    /**
     * Judges the refunds. Lost refunds are: a provider refund whose reference oncepay does not show
     * on the charge's payment; one whose oncepay status disagrees with the ledger's (succeeded
     * against failed, or oncepay still pending while the ledger is final); an accepted refund
     * ({@code 201}, or {@code 202} unless oncepay finally says failed) or one oncepay shows
     * succeeded, with no provider refund succeeded or pending; and a {@code 402} refund the
     * provider refunded. A refund oncepay holds for review is listed, not judged.
     *
     * @param view oncepay's refunds by payment id ({@link #view})
     */
    static Verdict judge(List<RefundRecord> records, Ledger ledger, Map<String, List<Seen>> view) {
        List<String> details = new ArrayList<>();
        Map<String, Seen> seen = new HashMap<>();
        view.values().forEach(list -> list.forEach(s -> seen.put(s.id(), s)));
        Map<String, List<LedgerRefund>> byReference = new LinkedHashMap<>();
        Map<String, List<LedgerRefund>> byCharge = new LinkedHashMap<>();
        for (LedgerRefund r : ledger.refunds()) {
            byReference.computeIfAbsent(r.reference(), k -> new ArrayList<>()).add(r);
            byCharge.computeIfAbsent(r.charge(), k -> new ArrayList<>()).add(r);
        }
        List<RefundRecord> asked = records.stream().filter(r -> r.paymentId != null).toList();
        // What oncepay finally says of each refund: its view, else the latest answer naming it.
        Map<String, String> finalStatus = new HashMap<>();
        for (RefundRecord r : asked) {
            for (RefundRecord.Answer a : r.answers) {
                if (a.refundId() != null && a.refundStatus() != null) {
                    finalStatus.put(a.refundId(), a.refundStatus());
                }
            }
        }
        seen.forEach((id, s) -> finalStatus.put(id, s.status()));

        // Over-refunds: at the provider, per charge; in oncepay's answers, per payment.
        int over = 0;
        for (Map.Entry<String, List<LedgerRefund>> e : byCharge.entrySet()) {
            long held = e.getValue().stream().filter(LedgerRefund::holdsAmount).mapToLong(LedgerRefund::amount).sum();
            Charge c = ledger.charges().get(e.getKey());
            if (c == null || held > c.amount()) {
                over++;
                details.add("OVER-REFUND at the provider: charge " + e.getKey() + (c == null ? " (not in the ledger)"
                        : " of payment " + c.paymentId() + ", " + c.amount()) + ", refunds holding " + held + ": "
                        + e.getValue());
            }
        }
        Map<String, Map<String, Long>> acceptedByPayment = new TreeMap<>();
        Map<String, Long> amountOf = new HashMap<>();
        for (RefundRecord r : asked) {
            amountOf.put(r.paymentId, r.order.amount());
            for (RefundRecord.Answer a : r.answers) {
                if (a.accepted() && !"failed".equals(finalStatus.get(a.refundId()))) {
                    acceptedByPayment.computeIfAbsent(r.paymentId, k -> new TreeMap<>())
                            .put(a.refundId(), a.amount() == null ? 0 : a.amount());
                }
            }
        }
        for (Map.Entry<String, Map<String, Long>> e : acceptedByPayment.entrySet()) {
            long sum = e.getValue().values().stream().mapToLong(Long::longValue).sum();
            if (sum > amountOf.get(e.getKey())) {
                over++;
                details.add("OVER-REFUND by oncepay's answers: payment " + e.getKey() + " of " + amountOf.get(e.getKey())
                        + ", accepted refunds " + e.getValue() + " sum to " + sum);
            }
        }

        // Double refunds: one oncepay refund refunded twice at the provider; one key answered with two refunds.
        int doubles = 0;
        for (Map.Entry<String, List<LedgerRefund>> e : byReference.entrySet()) {
            if (e.getValue().size() > 1) {
                doubles++;
                details.add("DOUBLE REFUND " + e.getKey() + ": " + e.getValue().size() + " provider refunds "
                        + e.getValue());
            }
        }
        for (RefundRecord r : asked) {
            Set<String> named = new TreeSet<>();
            r.answers.stream().filter(a -> a.method().equals("POST") && a.refundId() != null)
                    .forEach(a -> named.add(a.refundId()));
            if (named.size() > 1) {
                doubles++;
                details.add("DOUBLE REFUND key " + r.key() + " (payment " + r.paymentId + "): its answers name " + named);
            }
        }

        // Lost refunds, each refund once.
        Map<String, String> lost = new TreeMap<>();
        for (LedgerRefund l : ledger.refunds()) {
            Charge c = ledger.charges().get(l.charge());
            Seen s = seen.get(l.reference());
            if (s == null || c != null && !s.paymentId().equals(c.paymentId())) {
                lost.putIfAbsent(l.reference(), "provider refund " + l.id() + " (" + l.status() + ", " + l.amount()
                        + ", charge " + l.charge() + (c == null ? "" : " of payment " + c.paymentId())
                        + "): oncepay does not show its reference on the charge's payment");
            } else if ("needs_review".equals(s.status())) {
                details.add("refund needs review " + s.id() + " (payment " + s.paymentId() + ", provider " + l.status()
                        + ")");
            } else if (l.isFinal() && !l.status().equals(s.status())) {
                lost.putIfAbsent(s.id(), "oncepay says " + s.status() + ", the provider's refund " + l.id() + " is "
                        + l.status());
            }
        }
        for (RefundRecord r : asked) {
            for (RefundRecord.Answer a : r.answers) {
                if (!a.method().equals("POST") || a.refundId() == null) {
                    continue;
                }
                boolean held = byReference.getOrDefault(a.refundId(), List.of()).stream()
                        .anyMatch(LedgerRefund::holdsAmount);
                boolean refunded = byReference.getOrDefault(a.refundId(), List.of()).stream()
                        .anyMatch(l -> "succeeded".equals(l.status()));
                String oncepaySays = finalStatus.get(a.refundId());
                if (!held && (a.status() == 201 || a.status() == 202 && !"failed".equals(oncepaySays)
                        && !"needs_review".equals(oncepaySays))) {
                    lost.putIfAbsent(a.refundId(), "answered " + a.status() + " on key " + r.key() + " (oncepay finally "
                            + oncepaySays + "), no provider refund succeeded or pending");
                } else if (a.status() == 402 && refunded) {
                    lost.putIfAbsent(a.refundId(), "answered 402 refund-failed on key " + r.key()
                            + ", refunded at the provider");
                }
            }
        }
        seen.values().stream().filter(s -> "succeeded".equals(s.status()))
                .filter(s -> byReference.getOrDefault(s.id(), List.of()).stream().noneMatch(LedgerRefund::holdsAmount))
                .forEach(s -> lost.putIfAbsent(s.id(), "oncepay shows it succeeded on payment " + s.paymentId()
                        + ", no provider refund succeeded or pending"));
        lost.forEach((id, why) -> details.add("LOST REFUND " + id + ": " + why));

        Map<String, Integer> answers = new TreeMap<>();
        int replays = 0;
        int unexpected = 0;
        for (RefundRecord r : asked) {
            for (RefundRecord.Answer a : r.answers) {
                if (!a.method().equals("POST")) {
                    continue;
                }
                answers.merge(a.outcome(), 1, Integer::sum);
                replays += a.replayed() ? 1 : 0;
                if (a.status() == 404 || a.status() == 400 || a.status() == 422) {
                    unexpected++;
                    details.add("unexpected refund answer " + a.outcome() + " on key " + r.key() + " (payment "
                            + r.paymentId + ")");
                }
            }
        }
        int orders = (int) asked.stream().map(r -> r.order.index()).distinct().count();
        return new Verdict(over, doubles, lost.size(), orders, asked.size(), answers, replays, unexpected, details);
    }
}
