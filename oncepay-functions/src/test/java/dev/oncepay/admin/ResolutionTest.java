package dev.oncepay.admin;

import static dev.oncepay.testing.Problems.assertProblem;
import static dev.oncepay.testing.Problems.errorFields;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.oncepay.idempotency.IdempotencyKey;
import dev.oncepay.idempotency.ClaimAttempt;
import dev.oncepay.idempotency.IdempotencyStore;
import dev.oncepay.idempotency.KeyRecord;
import dev.oncepay.contract.Metrics;
import dev.oncepay.contract.Table;
import dev.oncepay.payment.Payment;
import dev.oncepay.testing.LambdaClient;
import dev.oncepay.testing.RecordingMetrics;
import dev.oncepay.testkit.HttpApiEvents;
import dev.oncepay.function.WebhookFunction;
import dev.oncepay.http.HttpApiEvent;
import dev.oncepay.http.HttpApiResponse;
import dev.oncepay.webhook.WebhookRequests;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.oncepay.reconcile.SweepSummary;
import dev.oncepay.sim.Faults;
import dev.oncepay.testing.LambdaClient.ApiResponse;
import dev.oncepay.testkit.StoreFault;
import dev.oncepay.testkit.StoreFaultProxy;
import dev.oncepay.testing.StoredItems;
import dev.oncepay.testing.TestEnvironment;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.stream.Collectors;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.junit.jupiter.api.Test;

/** {@code POST /admin/payments/{id}/resolve} through the charge function, against the simulator's word. */
@QuarkusTest
@WithTestResource(value = TestEnvironment.class, scope = TestResourceScope.GLOBAL)
class ResolutionTest extends AdminTestSupport {
    @Inject
    IdempotencyStore keys;
    private static final ObjectMapper JSON = new ObjectMapper();

    @Inject
    RecordingMetrics metrics;
    @Inject
    WebhookFunction webhook;
    @ConfigProperty(name = "oncepay.idempotency.lease")
    Duration lease;

    @Test
    void aReviewPaymentIsRefusedAgainstTheProviderThenResolvedByOverrideWithItsWholeHistory() {
        String merchantKey = UUID.randomUUID().toString();
        String id = unknownPayment(merchantKey, "order_review");
        String first = chargeOf(id);
        String second = secondChargeAtProvider(id);
        SweepSummary sweep = sweepOnly(Set.of(id));
        assertEquals(1, sweep.settled().needsReview(), sweep::toString);

        // The merchant sees the review and why, in GET and in the replay of its key.
        ApiResponse inReview = publicGet(id);
        assertEquals("needs_review", inReview.json().path("status").asText(), inReview::toString);
        assertEquals("conflicting_facts", inReview.json().path("reviewReason").asText());
        ApiResponse replayInReview = post(merchantKey, body(4200, "order_review"));
        assertEquals(200, replayInReview.status());
        assertEquals("conflicting_facts", replayInReview.json().path("reviewReason").asText());
        ApiResponse listed = admin("GET", "/admin/payments?status=needs_review&tenant=" + tenant);
        assertEquals(id, listed.json().path("items").get(0).path("id").asText(), listed::toString);

        // The provider holds two succeeded charges: one is not "the" charge. Refused, nothing written.
        Map<String, String> before = stored(id);
        String refusedKey = UUID.randomUUID().toString();
        ApiResponse refused = resolve(id, refusedKey, succeeded(first, "customer confirmed the first", false));
        JsonNode problem = assertProblem(refused, 409, "provider-contradicts");
        assertEquals(Set.of(first + "=succeeded", second + "=succeeded"), said(problem));
        assertEquals(before, stored(id), "the payment is untouched");
        assertTrue(StoredItems.item(operatorKey(refusedKey)).isEmpty(), "the refused key is free again");
        assertProblem(resolve(id, UUID.randomUUID().toString(), failed("nothing was taken", false)), 409,
                "provider-contradicts");
        assertEquals(before, stored(id));

        String reason = "second charge refunded by hand (ticket 4711)";
        ApiResponse resolved = resolve(id, UUID.randomUUID().toString(), succeeded(first, reason, true));
        assertEquals(200, resolved.status(), resolved::toString);
        assertEquals("succeeded", resolved.json().path("payment").path("status").asText());
        JsonNode history = resolved.json().path("history");
        System.out.println("sample history (unknown -> review -> resolved): " + history.toPrettyString());
        assertEquals(4, history.size(), history::toString);
        assertMove(history.get(0), null, "pending", "charge_run", "epoch 1");
        assertMove(history.get(1), "pending", "unknown", "charge_run", "epoch 1");
        assertMove(history.get(2), "unknown", "needs_review", "sweep", "reconcile");
        assertMove(history.get(3), "needs_review", "succeeded", "operator", OPERATOR);
        assertEquals("override: " + reason, history.get(3).path("reason").asText());
        assertEquals(first, history.get(3).path("providerPaymentId").asText());
        assertEquals(resolved.json(), detail(id).json(), "GET shows the same");

        // The merchant's original key now replays the resolved payment, as GET shows it.
        ApiResponse replay = post(merchantKey, body(4200, "order_review"));
        assertEquals(201, replay.status(), replay::toString);
        assertEquals("true", replay.header("Idempotent-Replayed"));
        assertEquals("succeeded", replay.json().path("status").asText());
        assertEquals(first, replay.json().path("providerPaymentId").asText());
        assertFalse(replay.json().has("reviewReason"));
        JsonNode shown = publicGet(id).json();
        assertEquals(replay.json().get("id").asText(), shown.path("order").path("paymentId").asText(),
                "GET adds the order's binding");
        assertEquals(replay.json(), dev.oncepay.testing.PaymentViews.asCharged(shown));
        assertEquals(0, admin("GET", "/admin/payments?status=needs_review&tenant=" + tenant).json().path("items")
                .size(), "out of the attention index");
    }

    @Test
    void anUnknownPaymentTheProviderConfirmsIsResolvedOnceAndItsKeyReplays() {
        String merchantKey = UUID.randomUUID().toString();
        String id = unknownPayment(merchantKey, "order_unknown");
        String charge = chargeOf(id);
        String key = merchantKey; // operator keys have a scope of their own: no clash with the merchant's
        String body = succeeded(charge, "provider dashboard shows it captured", false);

        dynamoRequests.reset();
        ApiResponse resolved = resolve(id, key, body);
        Map<String, Long> resolveCost = dynamoRequests.snapshot();
        assertEquals(200, resolved.status(), resolved::toString);
        assertNull(resolved.header("Idempotent-Replayed"));
        JsonNode last = resolved.json().path("history").get(2);
        assertMove(last, "unknown", "succeeded", "operator", OPERATOR);
        assertEquals("provider dashboard shows it captured", last.path("reason").asText());

        dynamoRequests.reset();
        ApiResponse replay = resolve(id, key, body);
        Map<String, Long> replayCost = dynamoRequests.snapshot();
        assertEquals(200, replay.status(), replay::toString);
        assertEquals("true", replay.header("Idempotent-Replayed"));
        assertEquals(resolved.body(), replay.body(), "the resolution's answer, byte for byte");

        Map<String, String> after = stored(id);
        assertProblem(resolve(id, key, succeeded(charge, "another reason", false)), 422, "idempotency-key-reused");
        assertProblem(resolve(id, UUID.randomUUID().toString(), body), 409, "resolution-not-allowed");
        assertEquals(after, stored(id), "neither wrote anything");
        assertEquals(1, operatorMoves(resolved.json().path("history")));

        ApiResponse merchantReplay = post(merchantKey, body(4200, "order_unknown"));
        assertEquals(201, merchantReplay.status(), merchantReplay::toString);
        assertEquals("true", merchantReplay.header("Idempotent-Replayed"));

        dynamoRequests.reset();
        detail(id);
        Map<String, Long> detailCost = dynamoRequests.snapshot();
        dynamoRequests.reset();
        admin("GET", "/admin/payments?status=unknown&tenant=" + tenant);
        Map<String, Long> listCost = dynamoRequests.snapshot();
        System.out.printf("admin DynamoDB requests: resolve %s, replay %s, detail %s, list %s%n", resolveCost,
                replayCost, detailCost, listCost);
        // claim the key, read the payment, the lookup breaker's and bulkhead's first reads (its shard
        // and its slot shard), read its order (bound to it already: nothing to write), the move, read
        // it back with its order
        assertEquals(Map.of("PutItem", 1L, "GetItem", 6L, "UpdateItem", 1L), resolveCost);
        // the failed claim and its read (dynalite ignores ReturnValuesOnConditionCheckFailure), the
        // payment, its order
        assertEquals(Map.of("PutItem", 1L, "GetItem", 3L), replayCost);
        assertEquals(Map.of("GetItem", 2L), detailCost, "the payment with its history, its order");
        assertEquals(Map.of("Query", 4L), listCost, "one Query per shard of the attention index");
    }

    @Test
    void aFailedResolutionCarriesTheProvidersDeclineAndTheMerchantSeesTheDecline() {
        String merchantKey = UUID.randomUUID().toString();
        String id = unknownPayment(merchantKey, "order_declined", true);
        String charge = chargeOf(id);
        assertProblem(resolve(id, UUID.randomUUID().toString(), succeeded(charge, "looks paid", false)), 409,
                "provider-contradicts");

        ApiResponse resolved = resolve(id, UUID.randomUUID().toString(), failed("provider declined it", false));
        assertEquals(200, resolved.status(), resolved::toString);
        JsonNode payment = resolved.json().path("payment");
        assertEquals("failed", payment.path("status").asText());
        assertEquals(charge, payment.path("providerPaymentId").asText());
        assertTrue(payment.hasNonNull("declineCode"), payment::toString);

        ApiResponse replay = post(merchantKey, body(4200, "order_declined"));
        assertProblem(replay, 402, "payment-declined");
        assertEquals("true", replay.header("Idempotent-Replayed"));
        assertEquals(payment.path("declineCode").asText(), replay.json().path("declineCode").asText());
    }

    @Test
    void concurrentResolutionsWithDifferentKeysApplyExactlyOnce() throws Exception {
        String id = unknownPayment(UUID.randomUUID().toString(), "order_race");
        String charge = chargeOf(id);
        List<ApiResponse> answers = direct.concurrently(List.of(
                resolution(id, UUID.randomUUID().toString(), succeeded(charge, "first operator", false)),
                resolution(id, UUID.randomUUID().toString(), succeeded(charge, "second operator", false)),
                resolution(id, UUID.randomUUID().toString(), succeeded(charge, "third operator", false))));

        List<Integer> statuses = answers.stream().map(ApiResponse::status).sorted().toList();
        assertEquals(List.of(200, 409, 409), statuses, answers::toString);
        answers.stream().filter(a -> a.status() == 409)
                .forEach(a -> assertProblem(a, 409, "resolution-not-allowed"));
        JsonNode history = detail(id).json().path("history");
        assertEquals(1, operatorMoves(history), history::toString);
    }

    @Test
    void aSettledPaymentCannotBeResolvedAndNothingIsWritten() {
        ApiResponse paid = post(UUID.randomUUID().toString(), body(4200, "order_settled"));
        assertEquals(201, paid.status());
        String id = paid.json().path("id").asText();
        Map<String, String> before = stored(id);
        String key = UUID.randomUUID().toString();

        JsonNode problem = assertProblem(resolve(id, key, failed("customer says no", true)), 409,
                "resolution-not-allowed");
        assertEquals("succeeded", problem.path("paymentStatus").asText());
        assertEquals(before, stored(id));
        assertTrue(StoredItems.item(operatorKey(key)).isEmpty());
        assertProblem(resolve("pay_" + "0".repeat(32), UUID.randomUUID().toString(), failed("gone", false)), 404,
                "not-found");
    }

    @Test
    void badResolutionsAre400AndStoreNothing() {
        String id = unknownPayment(UUID.randomUUID().toString(), "order_bad_resolution");
        Map<String, String> before = stored(id);
        String charge = chargeOf(id);
        Map<String, String> bodies = Map.of(
                "{\"status\":\"maybe\",\"reason\":\"x\"}", "status",
                "{\"status\":\"succeeded\",\"reason\":\"x\"}", "providerPaymentId",
                "{\"status\":\"failed\"}", "reason",
                "{\"status\":\"failed\",\"reason\":\"" + "r".repeat(501) + "\"}", "reason",
                "{\"status\":\"failed\",\"reason\":\"x\",\"override\":\"yes\"}", "override",
                "{\"status\":\"failed\",\"reason\":\"x\",\"amount\":1}", "amount",
                "[1]", "body");
        for (Map.Entry<String, String> c : bodies.entrySet()) {
            String key = UUID.randomUUID().toString();
            ApiResponse answer = resolve(id, key, c.getKey());
            assertProblem(answer, 400, "invalid-request");
            assertEquals(Set.of(c.getValue()), errorFields(answer), c.getKey());
            assertTrue(StoredItems.item(operatorKey(key)).isEmpty(), "no key stored");
        }
        assertEquals(Set.of("Idempotency-Key"), errorFields(resolve(id, null, succeeded(charge, "x", false))));
        assertEquals(before, stored(id), "the payment is untouched");
    }

    @Test
    void anUnreachableProviderIs503UnlessOverridden() {
        String id = unknownPayment(UUID.randomUUID().toString(), "order_outage");
        String charge = chargeOf(id);
        Map<String, String> before = stored(id);
        sim.setFaults(Faults.none().withOutage(true));

        assertProblem(resolve(id, UUID.randomUUID().toString(), succeeded(charge, "dashboard says captured", false)),
                503, "provider-unavailable");
        assertEquals(before, stored(id));
        ApiResponse overridden = resolve(id, UUID.randomUUID().toString(),
                succeeded(charge, "dashboard says captured", true));
        assertEquals(200, overridden.status(), overridden::toString);
        assertEquals("override: dashboard says captured",
                overridden.json().path("history").get(2).path("reason").asText());
    }

    @Test
    void aResolutionWhoseWriteCommittedUnseenIsRecognisedAsItsOwn() {
        String id = unknownPayment(UUID.randomUUID().toString(), "order_lost_answer");
        String body = succeeded(chargeOf(id), "captured per the dashboard", false);
        StoreFaultProxy store = TestEnvironment.storeProxy();
        try {
            // The move commits, its answer is lost; the SDK's retry then fails its condition.
            store.failNext("UpdateItem", "payment#", StoreFault.LOST_ANSWER, 1);
            ApiResponse resolved = resolve(id, UUID.randomUUID().toString(), body);
            assertEquals(200, resolved.status(), resolved::toString);
            assertEquals(1, store.injected(StoreFault.LOST_ANSWER));
            assertEquals(1, operatorMoves(resolved.json().path("history")));

            // Every attempt's answer lost: the request cannot tell, keeps its key and says so.
            String other = unknownPayment(UUID.randomUUID().toString(), "order_lost_answers");
            String otherBody = succeeded(chargeOf(other), "captured per the dashboard", false);
            String key = UUID.randomUUID().toString();
            store.failNext("UpdateItem", "payment#", StoreFault.LOST_ANSWER, 3);
            assertProblem(resolve(other, key, otherBody), 503, "store-unavailable");
            store.reset();
            assertTrue(StoredItems.item(operatorKey(key)).isPresent(), "kept: the move may have committed");
            ApiResponse retried = resolve(other, key, otherBody);
            assertEquals(200, retried.status(), retried::toString);
            assertEquals("true", retried.header("Idempotent-Replayed"), "the first attempt had committed it");
            assertEquals(1, operatorMoves(retried.json().path("history")));
        } finally {
            store.reset();
        }
    }

    @Test
    void aKeyWhoseRequestDiedIsTakenOverOnceItsLeaseEnds() {
        String id = unknownPayment(UUID.randomUUID().toString(), "order_dead_resolver");
        String body = succeeded(chargeOf(id), "captured per the dashboard", false);
        String key = UUID.randomUUID().toString();
        // A first request claimed the key, then its sandbox died before asking the provider.
        Instant claimedAt = clock.instant();
        assertTrue(keys.claim(new KeyRecord(operatorKey(key), IdempotencyKey.OPERATOR_SCOPE,
                AdminUseCase.fingerprint(OPERATOR, id, ResolutionRequest.parse(body.getBytes(StandardCharsets.UTF_8))),
                id, "dead-sandbox", 1, claimedAt.plus(lease), claimedAt.plus(Duration.ofHours(24)), claimedAt),
                claimedAt) instanceof ClaimAttempt.KeyClaim);
        Map<String, String> before = stored(id);

        assertProblem(resolve(id, key, body), 409, "request-in-flight");
        assertEquals(before, stored(id), "its lease still lives: nothing written");

        clock.advance(lease.plusSeconds(1));
        ApiResponse takenOver = resolve(id, key, body);
        assertEquals(200, takenOver.status(), takenOver::toString);
        assertNull(takenOver.header("Idempotent-Replayed"), "it resolved the payment itself");
        assertEquals(1, operatorMoves(takenOver.json().path("history")));
        assertEquals("true", resolve(id, key, body).header("Idempotent-Replayed"));
    }

    @Test
    void aFailedResolutionWhileLookupsLagIsRefusedAndAnOverrideStaysWatchedUntilTheChargeShowsUp() {
        // The provider committed the charge, its answer was lost, and its lookups do not list it yet.
        String merchantKey = UUID.randomUUID().toString();
        String id = unknownPayment(merchantKey, "order_lagging_lookup");
        sim.setFaults(Faults.none().withLookupLagMs(Duration.ofHours(1).toMillis()));
        Instant createdAt = Instant.parse(detail(id).json().path("payment").path("createdAt").asText());
        Map<String, String> before = stored(id);
        String refusedKey = UUID.randomUUID().toString();

        ApiResponse refused = resolve(id, refusedKey, failed("provider shows no charge", false));

        JsonNode problem = assertProblem(refused, 409, "no-charge-unproven");
        assertEquals(createdAt.plus(Duration.ofHours(25)), Instant.parse(problem.path("provenAt").asText()),
                "24 h idempotency window + 1 h margin after its creation: " + problem);
        assertEquals(before, stored(id), "nothing written");
        assertTrue(StoredItems.item(operatorKey(refusedKey)).isEmpty(), "the refused key is free again");
        ApiResponse stillPending = post(merchantKey, body(4200, "order_lagging_lookup"));
        assertEquals(202, stillPending.status(), "never 402 payment-not-charged: " + stillPending);
        assertEquals("pending", stillPending.json().path("status").asText());

        String reason = "provider support says it never arrived (ticket 815)";
        ApiResponse overridden = resolve(id, UUID.randomUUID().toString(), failed(reason, true));
        assertEquals(200, overridden.status(), overridden::toString);
        JsonNode payment = overridden.json().path("payment");
        assertEquals("failed", payment.path("status").asText());
        assertEquals(Payment.RESOLVED_FAILED, payment.path("declineCode").asText(),
                "the operator's word, not a proof that nothing was charged");
        JsonNode move = overridden.json().path("history").get(2);
        assertMove(move, "unknown", "failed", "operator", OPERATOR);
        assertEquals("override: " + reason, move.path("reason").asText());
        assertTrue(stored(id).containsKey(Table.NEXT_CHECK_AT), "watched: still in the sweep index");
        ApiResponse replay = post(merchantKey, body(4200, "order_lagging_lookup"));
        assertProblem(replay, 402, "payment-resolved-failed");
        assertTrue(replay.json().path("detail").asText().contains("has not proven that nothing was charged"),
                "neither a decline nor \"nothing was charged\": " + replay);

        // The lookups catch up: the sweep finds the charge, and a human hears of it.
        sim.setFaults(Faults.none());
        metrics.reset();
        SweepSummary sweep = sweepOnly(Set.of(id));

        assertEquals(1, sweep.settled().needsReview(), sweep::toString);
        assertEquals(1, metrics.counted(Metrics.NEEDS_REVIEW), "the NeedsReview alarm's metric");
        ApiResponse inReview = detail(id);
        assertEquals("needs_review", inReview.json().path("payment").path("status").asText(), inReview::toString);
        assertMove(inReview.json().path("history").get(3), "failed", "needs_review", "sweep", "reconcile");
        assertFalse(stored(id).containsKey(Table.NEXT_CHECK_AT), "in review: out of the sweep index");
        assertEquals("conflicting_facts", publicGet(id).json().path("reviewReason").asText());
    }

    @Test
    void theProvidersWebhookForACommittedChargeMovesAnOverriddenFailureToReview() throws Exception {
        String id = unknownPayment(UUID.randomUUID().toString(), "order_webhook_after_override");
        sim.setFaults(Faults.none().withLookupLagMs(Duration.ofHours(1).toMillis()));
        assertProblem(resolve(id, UUID.randomUUID().toString(), failed("no charge on the dashboard", false)), 409,
                "no-charge-unproven");
        ApiResponse overridden = resolve(id, UUID.randomUUID().toString(), failed("no charge on the dashboard", true));
        assertEquals(200, overridden.status(), overridden::toString);
        metrics.reset();

        String event = WebhookRequests.chargeEvent(WebhookRequests.newEventId(), "charge.succeeded", id, chargeOf(id),
                4200, "EUR");
        HttpApiResponse delivered = webhook.webhook(JSON.readValue(WebhookRequests.event("sim", event,
                WebhookRequests.signNow("local-sim-secret", event)), HttpApiEvent.class));

        assertEquals(200, delivered.statusCode(), delivered.body());
        assertEquals(1, metrics.counted(Metrics.NEEDS_REVIEW), "the NeedsReview alarm's metric");
        JsonNode history = detail(id).json().path("history");
        JsonNode last = history.get(history.size() - 1);
        assertEquals(List.of("failed", "needs_review", "webhook"), List.of(last.path("from").asText(),
                last.path("to").asText(), last.path("actor").path("kind").asText()), last::toString);
        assertFalse(stored(id).containsKey(Table.NEXT_CHECK_AT), "in review: out of the sweep index");
    }

    @Test
    void aFailedResolutionIsAProofOnlyOnceTheProviderCanSayNothingWasChargedAndAWatchEndsThen() {
        // Nothing was charged, but oncepay cannot know that before the provider's window has passed.
        String proven = unknownPaymentNotCharged(UUID.randomUUID().toString(), "order_never_arrived", 4200);
        clock.advance(Duration.ofHours(26));
        ApiResponse resolved = resolve(proven, UUID.randomUUID().toString(), failed("provider has no charge", false));
        assertEquals(200, resolved.status(), resolved::toString);
        assertEquals(Payment.NOT_CHARGED, resolved.json().path("payment").path("declineCode").asText());
        assertFalse(stored(proven).containsKey(Table.NEXT_CHECK_AT), "proven: not watched");

        String watched = unknownPaymentNotCharged(UUID.randomUUID().toString(), "order_watched", 4200);
        assertProblem(resolve(watched, UUID.randomUUID().toString(), failed("provider has no charge", false)), 409,
                "no-charge-unproven");
        ApiResponse overridden = resolve(watched, UUID.randomUUID().toString(), failed("provider has no charge", true));
        assertEquals(200, overridden.status(), overridden::toString);
        assertEquals(Payment.RESOLVED_FAILED, overridden.json().path("payment").path("declineCode").asText());

        int chargesBefore = sim.chargeRequests();
        SweepSummary looked = sweepOnly(Set.of(watched));
        assertEquals(1, looked.deferred(), looked::toString);
        assertEquals("failed", detail(watched).json().path("payment").path("status").asText());
        assertEquals(chargesBefore, sim.chargeRequests(), "a watched payment is only asked about, never sent again");

        clock.advance(Duration.ofHours(26));
        SweepSummary proof = sweepOnly(Set.of(watched));
        assertEquals(0, proof.deferred(), proof::toString);
        assertEquals("failed", detail(watched).json().path("payment").path("status").asText());
        assertFalse(stored(watched).containsKey(Table.NEXT_CHECK_AT), "the provider's word backs it: no longer watched");
        assertEquals(List.of(), sim.ledger().stream().filter(e -> e.reference().equals(watched)).toList());
    }

    @Test
    void aChargeOfAnotherAmountCurrencyOrAccountNeverSettlesThePaymentEvenByOverride() {
        String id = unknownPaymentNotCharged(UUID.randomUUID().toString(), "order_stray", 4300);
        Map<String, String> before = stored(id);

        String oneCent = chargeAtProvider(id, 1, "EUR");
        for (boolean override : List.of(false, true)) {
            String key = UUID.randomUUID().toString();
            JsonNode problem = assertProblem(resolve(id, key, succeeded(oneCent, "a charge is a charge", override)),
                    409, "charge-mismatch");
            assertEquals("amount", problem.path("field").asText(), problem::toString);
            assertTrue(problem.path("detail").asText().contains("4300"), problem::toString);
            assertEquals(before, stored(id), "nothing written");
            assertTrue(StoredItems.item(operatorKey(key)).isEmpty(), "the key is free again");
        }

        String dollars = chargeAtProvider(id, 4300, "USD");
        JsonNode currency = assertProblem(resolve(id, UUID.randomUUID().toString(),
                succeeded(dollars, "same number", true)), 409, "charge-mismatch");
        assertEquals("currency", currency.path("field").asText(), currency::toString);

        // A 4300 EUR charge of the Stripe account (another tenant's payment) is not this account's.
        ApiResponse elsewhere = LambdaClient.call(HttpApiEvents.postPayment("merchant-stripe",
                UUID.randomUUID().toString(),
                "{\"amount\":4300,\"currency\":\"EUR\",\"reference\":\"order_other\",\"paymentMethod\":\"pm_card_visa\"}"));
        assertEquals(201, elsewhere.status(), elsewhere::toString);
        String otherAccounts = elsewhere.json().path("providerPaymentId").asText();
        JsonNode account = assertProblem(resolve(id, UUID.randomUUID().toString(),
                succeeded(otherAccounts, "the dashboard shows it", true)), 409, "charge-mismatch");
        assertEquals("providerAccount", account.path("field").asText(), account::toString);

        assertEquals(before, stored(id), "the payment is untouched");
        assertEquals("pending", publicGet(id).json().path("status").asText());
    }

    // --- helpers ----------------------------------------------------------------------------------

    static Set<String> said(JsonNode problem) {
        return java.util.stream.StreamSupport.stream(problem.path("provider").spliterator(), false)
                .map(c -> c.path("id").asText() + "=" + c.path("status").asText()).collect(Collectors.toSet());
    }

    static void assertMove(JsonNode entry, String from, String to, String actorKind, String actorId) {
        if (from == null) {
            assertFalse(entry.has("from"), entry::toString);
        } else {
            assertEquals(from, entry.path("from").asText(), entry::toString);
        }
        assertEquals(to, entry.path("to").asText(), entry::toString);
        assertEquals(actorKind, entry.path("actor").path("kind").asText(), entry::toString);
        assertEquals(actorId, entry.path("actor").path("id").asText(), entry::toString);
        assertTrue(entry.hasNonNull("at"), entry::toString);
    }
}
