package dev.oncepay.reconcile;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.oncepay.charge.ChargePhase;
import dev.oncepay.payment.PaymentStatus;
import dev.oncepay.sim.Faults;
import dev.oncepay.sim.LedgerEntry;
import dev.oncepay.store.DynamoRequestCounter;
import dev.oncepay.testing.DirectInvoker;
import dev.oncepay.testkit.HttpApiEvents;
import dev.oncepay.testing.LambdaClient.ApiResponse;
import dev.oncepay.testing.PhaseHooks;
import dev.oncepay.testing.TestClock;
import dev.oncepay.testing.TestEnvironment;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * One contract, every provider adapter: the same scenarios for a tenant on the generic PSP
 * ({@code merchant-a}, the default account, provider {@code sim}) and one on Stripe
 * ({@code merchant-stripe} → account {@code stripe-test}), through the charge function's entry
 * (real API Gateway events) and the reconcile Lambda (a real EventBridge event), against the
 * simulator, whose ledger holds both APIs' charges. Only the provider's own words differ (the
 * decline code); the answers, the charges and the sweep's work are the same.
 */
@QuarkusTest
@TestProfile(ReconcileProfile.class)
@WithTestResource(value = TestEnvironment.class, scope = TestResourceScope.GLOBAL)
class ProviderContractTest {
    /** The first check of an UNKNOWN payment (oncepay.sweep.first-check-delay) plus a second. */
    private static final Duration FIRST_CHECK = Duration.ofSeconds(31);

    @Inject
    ReconcileFixture fx;
    @Inject
    DirectInvoker charge;
    @Inject
    TestClock clock;
    @Inject
    DynamoRequestCounter dynamoRequests;
    @Inject
    PhaseHooks hooks;

    @BeforeEach
    void reset() {
        fx.reset();
    }

    private static String body(String reference) {
        return "{\"amount\":4200,\"currency\":\"EUR\",\"reference\":\"" + reference
                + "\",\"paymentMethod\":\"pm_card_visa\"}";
    }

    private static String reference() {
        return "order_" + UUID.randomUUID().toString().substring(0, 8);
    }

    private ApiResponse post(String tenant, String key, String body) {
        return charge.call(HttpApiEvents.postPayment(tenant, key, body));
    }

    private ApiResponse get(String tenant, String id) {
        return charge.call(HttpApiEvents.getPayment(tenant, id));
    }

    @ParameterizedTest
    @ValueSource(strings = { "merchant-a", "merchant-stripe" })
    void aCaptureIs201AndOneCharge(String tenant) {
        ApiResponse answer = post(tenant, UUID.randomUUID().toString(), body(reference()));

        assertEquals(201, answer.status(), answer.body());
        String id = answer.json().get("id").asText();
        List<LedgerEntry> ledger = fx.ledgerOf(id);
        assertEquals(1, ledger.size());
        assertEquals("oncepay-" + id, ledger.get(0).idempotencyKey());
        assertEquals(4200, ledger.get(0).amount());
        assertEquals("EUR", ledger.get(0).currency());
        assertEquals("pm_card_visa", ledger.get(0).paymentMethod(), "the instrument reaches either provider");
        assertEquals(1, fx.sim().chargeRequests());
    }

    @ParameterizedTest
    @ValueSource(strings = { "merchant-a", "merchant-stripe" })
    void aDeclineIs402WithTheProvidersCode(String tenant) {
        fx.sim().setFaults(Faults.none().withDeclineRate(1.0));

        ApiResponse answer = post(tenant, UUID.randomUUID().toString(), body(reference()));

        assertEquals(402, answer.status(), answer.body());
        String id = answer.json().get("paymentId").asText();
        assertFalse(answer.json().get("declineCode").asText().isBlank(), answer.body());
        assertEquals("declined", fx.ledgerOf(id).get(0).status());
        assertEquals(1, fx.sim().chargeRequests());
    }

    @ParameterizedTest
    @ValueSource(strings = { "merchant-a", "merchant-stripe" })
    void theSameKeyReplaysTheAnswerWithoutASecondCall(String tenant) {
        String key = UUID.randomUUID().toString();
        String body = body(reference());

        ApiResponse first = post(tenant, key, body);
        ApiResponse replay = post(tenant, key, body);

        assertEquals(201, first.status(), first.body());
        assertEquals(first.status(), replay.status());
        assertEquals(first.body(), replay.body());
        assertEquals("true", replay.header("Idempotent-Replayed"));
        assertNull(first.header("Idempotent-Replayed"));
        assertEquals(1, fx.ledgerOf(first.json().get("id").asText()).size());
        assertEquals(1, fx.sim().chargeRequests(), "a replay never calls the provider");
    }

    @ParameterizedTest
    @ValueSource(strings = { "merchant-a", "merchant-stripe" })
    void identicalRequestsAtOnceChargeExactlyOnce(String tenant) throws Exception {
        // A slow provider keeps the first request in flight while the others arrive.
        fx.sim().setFaults(Faults.none().withLatencyMs(300));
        String key = UUID.randomUUID().toString();

        List<ApiResponse> answers = charge.concurrently(
                Collections.nCopies(8, HttpApiEvents.postPayment(tenant, key, body(reference()))));

        assertEquals(1, fx.sim().ledger().size(), "exactly one charge executed");
        assertTrue(answers.stream().allMatch(a -> a.status() == 201 || a.status() == 409), answers::toString);
        assertEquals(1, answers.stream().filter(a -> a.status() == 201).map(ApiResponse::body).distinct().count());
    }

    @ParameterizedTest
    @ValueSource(strings = { "merchant-a", "merchant-stripe" })
    void aRunThatDiedAfterTheProviderChargedIsFinishedByATakeoverUnderTheSameProviderKey(String tenant) {
        String key = UUID.randomUUID().toString();
        String body = body(reference());
        hooks.crashOnceAfter(ChargePhase.PROVIDER_ANSWERED);
        assertThrows(PhaseHooks.SimulatedCrash.class, () -> post(tenant, key, body));

        clock.advance(ReconcileFixture.LEASE.plusSeconds(1));
        ApiResponse recovered = post(tenant, key, body);

        assertEquals(201, recovered.status(), recovered.body());
        String id = recovered.json().get("id").asText();
        assertEquals(2, fx.sim().chargeRequests(), "the takeover sent the charge again");
        List<LedgerEntry> ledger = fx.ledgerOf(id);
        assertEquals(1, ledger.size(), "the provider key made the second send a replay");
        assertEquals("oncepay-" + id, ledger.get(0).idempotencyKey());
        assertEquals(recovered.body(), post(tenant, key, body).body(), "replayed from now on");
    }

    @ParameterizedTest
    @ValueSource(strings = { "merchant-a", "merchant-stripe" })
    void aLostAnswerIs202AndTheSweepSettlesItFromTheProvidersLookup(String tenant) {
        String key = UUID.randomUUID().toString();
        String body = body(reference());
        fx.sim().setFaults(Faults.none().withCommitThenTimeoutRate(1.0).withCommitThenTimeoutMs(8000));
        ApiResponse accepted = post(tenant, key, body);
        fx.sim().setFaults(Faults.none());
        assertEquals(202, accepted.status(), accepted.body());
        String id = accepted.json().get("id").asText();
        assertEquals(1, fx.ledgerOf(id).size(), "the provider charged before the answer was lost");
        clock.advance(FIRST_CHECK);
        int lookupsBefore = fx.sim().lookupRequests();
        dynamoRequests.reset();

        SweepSummary sweep = fx.sweep();

        assertEquals(1, sweep.settled().succeeded(), sweep::toString);
        assertEquals(0, sweep.resent(), "the lookup found the charge");
        assertEquals(1, fx.sim().lookupRequests() - lookupsBefore, "one lookup (Stripe: a search by our metadata)");
        assertEquals(Map.of("Query", 4L + ReconcileFixture.REFUND_SHARD_QUERIES + ReconcileFixture.OUTBOX_SHARD_QUERIES
                + ReconcileFixture.BACKLOG_QUERIES_WHEN_NONE_WAIT, "GetItem", 3L,
                "UpdateItem", 1L), dynamoRequests.snapshot(),
                "4 shard queries, one consistent read and one conditional write, 4 refund shard queries, 4 outbox shard queries; and the sandbox's first reads"
                        + " of the account's fleet lookup breaker shard (then trusted for breaker-cache) and bulkhead slot"
                        + " shard; then the backlog gauges' queries of the attention index");
        assertEquals(PaymentStatus.SUCCEEDED, fx.state(id).payment().status());
        ApiResponse replay = post(tenant, key, body);
        assertEquals(201, replay.status(), replay.body());
        assertEquals("succeeded", get(tenant, id).json().get("status").asText());
        assertEquals(1, fx.ledgerOf(id).size(), "still one charge");
    }

    @ParameterizedTest
    @ValueSource(strings = { "merchant-a", "merchant-stripe" })
    void aPaymentCostsTheSameStoreRequestsAndProviderCallsWithEitherAdapter(String tenant) {
        String key = UUID.randomUUID().toString();
        String body = body(reference());

        dynamoRequests.reset();
        assertEquals(201, post(tenant, key, body).status());
        Map<String, Long> charge = dynamoRequests.snapshot();
        dynamoRequests.reset();
        assertEquals(201, post(tenant, key, body).status());
        Map<String, Long> replay = dynamoRequests.snapshot();

        assertEquals(Map.of("PutItem", 2L, "UpdateItem", 2L, "GetItem", 2L), charge,
                "claim, payment, the order's bind (both tenants guard their orders), settle; and the sandbox's"
                        + " first reads of the account's fleet charge breaker shard and bulkhead slot shard");
        assertEquals(Map.of("PutItem", 1L, "GetItem", 2L), replay, "a refused claim, the key, the payment");
        assertEquals(1, fx.sim().chargeRequests(), "one provider call, none for the replay");
        assertEquals(0, fx.sim().lookupRequests());
    }

    @ParameterizedTest
    @ValueSource(strings = { "merchant-a", "merchant-stripe" })
    void answersThatAreNoOutcomeAre202AndTheSweepSettlesThemFromTheLookup(String tenant) {
        // The charge runs and succeeds; its answer says "processing", or has no body at all.
        fx.sim().setFaults(Faults.none().withNonFinalRate(1.0));
        ApiResponse processing = post(tenant, UUID.randomUUID().toString(), body(reference()));
        fx.sim().setFaults(Faults.none().withEmptyBodyRate(1.0));
        ApiResponse empty = post(tenant, UUID.randomUUID().toString(), body(reference()));
        fx.sim().setFaults(Faults.none());
        clock.advance(FIRST_CHECK);

        SweepSummary sweep = fx.sweep();

        for (ApiResponse accepted : List.of(processing, empty)) {
            assertEquals(202, accepted.status(), accepted.body());
            String id = accepted.json().get("id").asText();
            assertEquals(PaymentStatus.SUCCEEDED, fx.state(id).payment().status());
            assertEquals(1, fx.ledgerOf(id).size());
        }
        assertEquals(2, sweep.settled().succeeded(), sweep::toString);
        assertEquals(0, sweep.resent(), "both were found by the lookup");
    }

    @ParameterizedTest
    @ValueSource(strings = { "merchant-a", "merchant-stripe" })
    void aServerErrorThenSuccessIsOneChargeUnderOneKey(String tenant) {
        fx.sim().scriptChargeAnswers(500);

        ApiResponse answer = post(tenant, UUID.randomUUID().toString(), body(reference()));

        assertEquals(201, answer.status(), answer.body());
        String id = answer.json().get("id").asText();
        assertEquals(2, fx.sim().chargeRequests(), "retried once");
        assertEquals(1, fx.ledgerOf(id).size());
        assertTrue(fx.ledgerOf(id).get(0).idempotencyKey().endsWith(id));
    }
}
