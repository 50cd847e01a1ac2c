package dev.oncepay.charge;

import static dev.oncepay.testing.Problems.assertProblem;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.oncepay.contract.Attr;
import dev.oncepay.contract.Table;
import dev.oncepay.payment.Payment;
import dev.oncepay.payment.ProviderAccount;
import dev.oncepay.provider.NoChargeProof;
import dev.oncepay.reconcile.SweepSummary;
import dev.oncepay.sim.Faults;
import dev.oncepay.sim.LedgerEntry;
import dev.oncepay.sim.PspSimulator;
import dev.oncepay.testing.DirectSweep;
import dev.oncepay.testing.LambdaClient.ApiResponse;
import dev.oncepay.testing.StoredItems;
import dev.oncepay.testing.TestEnvironment;
import dev.oncepay.testkit.HeldAnswer;
import dev.oncepay.testkit.HttpApiEvents;
import dev.oncepay.testkit.StoreFault;
import dev.oncepay.testkit.StoreFaultProxy;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * The order guard is crash-safe (design rules 8 and 16): a first charge that dies after any of its
 * writes, a refusal or an unsent payment's clean-up that stops between its steps, and a bind the
 * store fails, each leave the order free or bound to one payment that exists; the key's retry, a
 * fresh key and the sweep then end with the order paid once. The simulator's ledger and the stored
 * items are the judges, read after every step.
 */
@QuarkusTest
@WithTestResource(value = TestEnvironment.class, scope = TestResourceScope.GLOBAL)
class OrderCrashTest extends ChargeTestSupport {
    private static final ProviderAccount ACCOUNT = new ProviderAccount("sim", "default");
    /** Attempts the store client makes of one request (its own retries): failing them all fails the call. */
    private static final int SDK_ATTEMPTS = 3;
    /** Every test pays this order, of its own tenant. */
    private static final String REFERENCE = "order_crash";
    private static final String BODY = body(4200, "EUR", REFERENCE);

    @Inject
    DirectSweep sweeps;
    @Inject
    NoChargeProof proof;

    /**
     * Where a run that forgets an unsent payment (unbind the order, delete the payment, release the
     * key) stops. Every attempt of the next step fails, so the store holds what a run that died right
     * there leaves; after the release, the release lands and every answer to it is lost.
     */
    enum ForgetStop {
        BEFORE_UNBIND("order#", StoreFault.SERVER_ERROR),
        BEFORE_DELETE("payment#", StoreFault.SERVER_ERROR),
        BEFORE_RELEASE("key#", StoreFault.SERVER_ERROR),
        AFTER_RELEASE("key#", StoreFault.LOST_ANSWER);

        private final String item;
        private final StoreFault fault;

        ForgetStop(String item, StoreFault fault) {
            this.item = item;
            this.fault = fault;
        }

        void arm(StoreFaultProxy store) {
            store.failNext("DeleteItem", item, fault, SDK_ATTEMPTS);
        }

        boolean keepsBinding() {
            return this == BEFORE_UNBIND;
        }

        boolean keepsPayment() {
            return compareTo(BEFORE_DELETE) <= 0;
        }

        boolean keepsKey() {
            return this != AFTER_RELEASE;
        }
    }

    /** How a fresh claim that has bound its order learns that its payment was provably never sent. */
    enum Unsent {
        /** A 429 whose Retry-After outlasts the call's deadline: the provider executed nothing. */
        PROVIDER_THROTTLED("provider-unavailable"),
        /** The bind committed and every answer to it was lost: the run cannot know, so it sends nothing. */
        BIND_ANSWER_LOST("store-unavailable");

        private final String problem;

        Unsent(String problem) {
            this.problem = problem;
        }

        void arm(PspSimulator sim, StoreFaultProxy store) {
            switch (this) {
                case PROVIDER_THROTTLED ->
                    sim.setFaults(Faults.none().withRateLimitRate(1.0).withRetryAfterSeconds(30));
                case BIND_ANSWER_LOST -> store.failNext("UpdateItem", "order#", StoreFault.LOST_ANSWER, SDK_ATTEMPTS);
            }
        }
    }

    /** Which key the client retries with after a 503. */
    enum RetryWith {
        SAME_KEY, FRESH_KEY
    }

    // --- a first charge that dies after any of its writes ------------------------------------------

    @ParameterizedTest
    @EnumSource(value = ChargePhase.class, mode = EnumSource.Mode.EXCLUDE, names = "QUEUED") // not a phase of a charge in its request
    void aFreshKeyMeetsTheOrderOfARunThatDiedAfterAnyWriteAsItStandsAndTheOrderIsPaidOnce(ChargePhase diedAfter) {
        String key = newKey();
        hooks.crashOnceAfter(diedAfter);
        assertEquals(-1, post(key, BODY).status(), "the run died after " + diedAfter);
        Optional<String> bound = boundPayment();
        assertEquals(bound(diedAfter), bound.isPresent(), "bound only once the bind is written");
        assertEquals(sent(diedAfter) ? 1 : 0, sim.ledger().size());

        // While the dead run's lease lasts: a free order takes the fresh key, a bound one refuses it.
        ApiResponse fresh = post(newKey(), BODY);
        if (bound.isEmpty()) {
            assertEquals(201, fresh.status(), fresh.body());
        } else {
            assertOrderRefusal(fresh, diedAfter == ChargePhase.SETTLED ? "order-already-paid" : "order-in-progress",
                    bound.get());
            assertEquals(sent(diedAfter) ? 1 : 0, sim.ledger().size(), "refused before any provider call");
            assertEquals(List.of(bound.get()), paymentIds(), "the refused key kept no payment");
        }

        clock.advance(lease.plusSeconds(1));
        ApiResponse retried = post(key, BODY);
        if (bound.isEmpty()) {
            // Its takeover meets the order the fresh key paid.
            assertOrderRefusal(retried, "order-already-paid", fresh.json().get("id").asText());
        } else {
            assertEquals(201, retried.status(), retried.body());
            assertEquals(bound.get(), retried.json().get("id").asText(), "the dead run's payment, finished");
        }

        sweepPastTheProof();
        assertOrderPaidOnce();
    }

    @ParameterizedTest
    @EnumSource(value = ChargePhase.class, mode = EnumSource.Mode.EXCLUDE, names = "QUEUED") // not a phase of a charge in its request
    void theSweepSettlesARunThatDiedAfterAnyWriteAndTheOrderTakesAFreshKeyOnlyIfNothingWasCharged(
            ChargePhase diedAfter) {
        String key = newKey();
        hooks.crashOnceAfter(diedAfter);
        assertEquals(-1, post(key, BODY).status(), "the run died after " + diedAfter);

        SweepSummary sweep = sweepPastTheProof();

        boolean unsettled = recorded(diedAfter) && diedAfter != ChargePhase.SETTLED;
        assertEquals(unsettled && sent(diedAfter) ? 1 : 0, sweep.settled().succeeded(), "found at the provider");
        assertEquals(unsettled && !sent(diedAfter) ? 1 : 0, sweep.settled().failed(), "proven not charged");
        Optional<String> bound = boundPayment();
        assertEquals(bound(diedAfter), bound.isPresent());
        ApiResponse fresh = post(newKey(), BODY);
        if (sent(diedAfter)) {
            assertOrderRefusal(fresh, "order-already-paid", bound.orElseThrow());
        } else {
            assertEquals(201, fresh.status(), "the order is free or its payment definitely failed: " + fresh.body());
        }
        ApiResponse retried = post(key, BODY);
        if (sent(diedAfter)) {
            assertEquals(201, retried.status(), retried.body());
            assertEquals("true", retried.header("Idempotent-Replayed"));
        } else if (recorded(diedAfter)) {
            JsonNode notCharged = assertProblem(retried, 402, "payment-not-charged");
            assertEquals("true", retried.header("Idempotent-Replayed"), "the sweep's proof is the key's answer");
            assertEquals(paymentOf(key), notCharged.get("paymentId").asText());
        } else {
            // No run recorded a payment: its takeover records one and meets the order the fresh key paid.
            assertOrderRefusal(retried, "order-already-paid", fresh.json().get("id").asText());
        }

        sweepPastTheProof();
        assertOrderPaidOnce();
    }

    // --- a refusal that stops between its steps -----------------------------------------------------

    @ParameterizedTest
    @EnumSource(value = ForgetStop.class, names = { "BEFORE_DELETE", "BEFORE_RELEASE", "AFTER_RELEASE" })
    void aRefusalStoppedAtAnyStepChargesNothingAndItsKeyPaysTheOrderOnceItsPaymentDeclines(ForgetStop stop) {
        StoppedRefusal refusal = refusalStopped(stop);

        // Its retry meets the order as it stands, in progress; a key the refusal kept is in flight
        // until its lease ends.
        ApiResponse atOnce = post(refusal.refusedKey(), BODY);
        if (stop.keepsKey()) {
            assertProblem(atOnce, 409, "request-in-flight");
        } else {
            assertOrderRefusal(atOnce, "order-in-progress", refusal.live());
        }
        clock.advance(lease.plusSeconds(1));
        assertOrderRefusal(post(refusal.refusedKey(), BODY), "order-in-progress", refusal.live());
        assertEquals(0, sim.chargeRequests());
        assertEquals(Optional.of(refusal.live()), boundPayment());

        sim.setFaults(Faults.none().withDeclineRate(1.0));
        assertProblem(post(refusal.orderKey(), BODY), 402, "payment-declined");
        sim.setFaults(Faults.none());
        clock.advance(lease.plusSeconds(1)); // past the lease of the refused key's last takeover
        ApiResponse paid = post(refusal.refusedKey(), BODY);

        assertEquals(201, paid.status(), "the order's payment definitely failed: " + paid.body());
        assertEquals(List.of("declined", "succeeded"), sim.ledger().stream().map(LedgerEntry::status).toList());
        SweepSummary sweep = sweepPastTheProof();
        assertEquals(0, sweep.settled().total(), "nothing left unsettled");
        assertOrderPaidOnce();
    }

    @ParameterizedTest
    @EnumSource(value = ForgetStop.class, names = { "BEFORE_DELETE", "BEFORE_RELEASE", "AFTER_RELEASE" })
    void aRefusalStoppedAtAnyStepNeverChargesAPaidOrderAndTheSweepProvesWhatItKeptNotCharged(ForgetStop stop) {
        StoppedRefusal refusal = refusalStopped(stop);

        clock.advance(lease.plusSeconds(1));
        assertEquals(201, post(refusal.orderKey(), BODY).status(), "the order's own key finishes its payment");
        ApiResponse again = post(refusal.refusedKey(), BODY);

        assertOrderRefusal(again, "order-already-paid", refusal.live());
        assertEquals(1, sim.chargeRequests(), "only the order's own payment was sent");
        // A refusal that kept its key leaves it to the takeover rules: the refused takeover keeps its
        // payment (a run whose guard was off might have sent it), and the sweep proves it not charged.
        SweepSummary sweep = sweepPastTheProof();
        assertEquals(stop.keepsKey() ? 1 : 0, sweep.settled().failed());
        assertEquals(0, sweep.settled().succeeded(), "the order's charge is never taken for the kept payment's");
        ApiResponse last = post(refusal.refusedKey(), BODY);
        if (stop.keepsKey()) {
            assertProblem(last, 402, "payment-not-charged");
            assertEquals("true", last.header("Idempotent-Replayed"));
        } else {
            assertOrderRefusal(last, "order-already-paid", refusal.live());
        }
        assertOrderPaidOnce();
    }

    // --- an unsent payment's clean-up that stops between its steps -----------------------------------

    static Stream<Arguments> unsentPaymentsForgottenUpTo() {
        return Arrays.stream(Unsent.values())
                .flatMap(unsent -> Arrays.stream(ForgetStop.values()).map(stop -> Arguments.of(unsent, stop)));
    }

    @ParameterizedTest
    @MethodSource("unsentPaymentsForgottenUpTo")
    void anUnsentPaymentForgottenUpToAnyStepLeavesTheOrderFreeOrBoundToItUntilTheSweepProvesItNotCharged(
            Unsent unsent, ForgetStop stop) {
        String key = newKey();
        unsent.arm(sim, store);
        stop.arm(store);

        assertProblem(post(key, BODY), 503, unsent.problem);

        store.reset();
        sim.setFaults(Faults.none());
        assertEquals(0, sim.ledger().size(), "nothing executed");
        Optional<String> bound = boundPayment();
        List<String> kept = paymentIds();
        assertEquals(stop.keepsBinding(), bound.isPresent(), "the unbind comes first");
        assertEquals(stop.keepsPayment() ? 1 : 0, kept.size());
        bound.ifPresent(id -> assertEquals(List.of(id), kept));
        assertEquals(stop.keepsKey(), StoredItems.keyItem(tenant, key).isPresent());
        if (bound.isPresent()) {
            assertOrderRefusal(post(newKey(), BODY), "order-in-progress", bound.get());
        }

        SweepSummary sweep = sweepPastTheProof();

        assertEquals(kept.size(), sweep.settled().failed(), "proven not charged");
        kept.forEach(id -> assertEquals(Payment.NOT_CHARGED, storedPayment(id).get(Table.DECLINE_CODE).s()));
        assertEquals(201, post(newKey(), BODY).status(), "the order takes a fresh key");
        ApiResponse retried = post(key, BODY);
        if (stop.keepsPayment()) {
            assertProblem(retried, 402, "payment-not-charged");
        } else {
            assertProblem(retried, 409, "order-already-paid"); // its claim or takeover meets the paid order
        }
        sweepPastTheProof();
        assertOrderPaidOnce();
    }

    // --- the bind fails in the store ----------------------------------------------------------------

    static Stream<Arguments> bindFailures() {
        return Stream.of(StoreFault.THROTTLE, StoreFault.SERVER_ERROR, StoreFault.LOST_ANSWER)
                .flatMap(fault -> Arrays.stream(RetryWith.values()).map(retry -> Arguments.of(fault, retry)));
    }

    @ParameterizedTest
    @MethodSource("bindFailures")
    void aBindTheStoreFailsIs503WithNothingSentAndNothingKeptAndARetryChargesOnce(StoreFault fault, RetryWith retry) {
        String key = newKey();
        store.failNext("UpdateItem", "order#", fault, SDK_ATTEMPTS);

        ApiResponse failed = post(key, BODY);

        assertTrue(store.injected(fault) > 0, "the bind failed");
        store.reset();
        assertProblem(failed, 503, "store-unavailable");
        assertEquals(0, sim.chargeRequests(), "a 503 that says nothing was sent");
        assertEquals(List.of(), storedItems(), "no order bound, no payment, no key");
        ApiResponse charged = post(retry == RetryWith.SAME_KEY ? key : newKey(), BODY);
        assertEquals(201, charged.status(), charged.body());
        assertEquals(1, sim.chargeRequests());
        assertOrderPaidOnce();
    }

    @Test
    void aBindWhoseFirstAnswerIsLostIsRetriedByTheStoreClientAndChargesOnce() {
        store.failNext("UpdateItem", "order#", StoreFault.LOST_ANSWER, 1);

        ApiResponse charged = post(newKey(), BODY);

        assertEquals(1, store.injected(StoreFault.LOST_ANSWER));
        assertEquals(201, charged.status(), "the retried bind names this payment, so it passes: " + charged.body());
        assertEquals(1, sim.chargeRequests());
        assertOrderPaidOnce();
    }

    // --- two fresh keys take the place of a declined payment at once -----------------------------------

    @Test
    void twoFreshKeysReleasedTogetherForADeclinedOrderChargeItOnce() throws Exception {
        sim.setFaults(Faults.none().withDeclineRate(1.0));
        ApiResponse declined = post(newKey(), BODY);
        assertEquals(402, declined.status(), declined.body());
        String declinedId = declined.json().get("paymentId").asText();
        sim.setFaults(Faults.none());
        // Each request's read of the declined payment reaches the store and waits for its answer, so
        // both have seen the order's payment definitely failed before either takes its place.
        HeldAnswer firstRead = store.holdNextAnswer("GetItem", "payment#" + declinedId);
        HeldAnswer secondRead = store.holdNextAnswer("GetItem", "payment#" + declinedId);
        List<HttpApiEvents> events = List.of(HttpApiEvents.postPayment(tenant, newKey(), BODY),
                HttpApiEvents.postPayment(tenant, newKey(), BODY));
        CompletableFuture<List<ApiResponse>> racing = CompletableFuture.supplyAsync(() -> {
            try {
                return direct.concurrently(events);
            } catch (Exception e) {
                throw new CompletionException(e);
            }
        });
        assertTrue(firstRead.awaitCommitted(Duration.ofSeconds(30)), "one read the declined payment");
        assertTrue(secondRead.awaitCommitted(Duration.ofSeconds(30)), "and so did the other");
        firstRead.letGo();
        secondRead.letGo();
        List<ApiResponse> answers = racing.get(60, TimeUnit.SECONDS);

        assertEquals(2, sim.chargeRequests(), "the declined charge and one more");
        assertEquals(List.of("declined", "succeeded"), sim.ledger().stream().map(LedgerEntry::status).toList());
        List<ApiResponse> won = answers.stream().filter(a -> a.status() == 201).toList();
        assertEquals(1, won.size(), answers::toString);
        String paid = won.get(0).json().get("id").asText();
        ApiResponse lost = answers.stream().filter(a -> a.status() != 201).findFirst().orElseThrow();
        assertEquals(409, lost.status(), lost.body());
        assertTrue(lost.json().get("type").asText().matches(".*/order-(in-progress|already-paid)"), lost.body());
        assertEquals(paid, lost.json().get("paymentId").asText());
        assertEquals(Set.of(declinedId, paid), Set.copyOf(paymentIds()), "the loser kept no payment");
        assertOrderPaidOnce();
    }

    // --- helpers ---------------------------------------------------------------------------------------

    /** Phases are in run order: whether a run that died after {@code phase} had recorded its payment. */
    private static boolean recorded(ChargePhase phase) {
        return phase.compareTo(ChargePhase.PAYMENT_RECORDED) >= 0;
    }

    private static boolean bound(ChargePhase phase) {
        return phase.compareTo(ChargePhase.ORDER_BOUND) >= 0;
    }

    private static boolean sent(ChargePhase phase) {
        return phase.compareTo(ChargePhase.PROVIDER_ANSWERED) >= 0;
    }

    /**
     * An order whose first charge died right after binding it, under {@code orderKey}, with its live
     * payment; and a fresh key refused for it, {@code refusedKey}.
     */
    private record StoppedRefusal(String orderKey, String live, String refusedKey) {
    }

    /**
     * A fresh key refused for an order whose payment is live, the refusal's clean-up stopped at
     * {@code stop}: answered all the same, nothing sent, and the store keeps what the stop says.
     */
    private StoppedRefusal refusalStopped(ForgetStop stop) {
        String orderKey = newKey();
        hooks.crashOnceAfter(ChargePhase.ORDER_BOUND);
        assertEquals(-1, post(orderKey, BODY).status());
        String live = boundPayment().orElseThrow();
        String refusedKey = newKey();
        stop.arm(store);
        ApiResponse refused = post(refusedKey, BODY);
        store.reset();

        assertOrderRefusal(refused, "order-in-progress", live);
        assertEquals(0, sim.chargeRequests());
        assertEquals(Optional.of(live), boundPayment(), "the order stays with its live payment");
        assertEquals(stop.keepsPayment() ? 2 : 1, paymentIds().size(), "the refused key's payment is kept: "
                + stop.keepsPayment());
        assertEquals(stop.keepsKey(), StoredItems.keyItem(tenant, refusedKey).isPresent());
        return new StoppedRefusal(orderKey, live, refusedKey);
    }

    /** The payment the key holds, as stored. */
    private String paymentOf(String key) {
        return Attr.string(StoredItems.keyItem(tenant, key).orElseThrow(), Table.PAYMENT_ID);
    }

    /** The payment the order is bound to, if any; a bound order names a payment that exists. */
    private Optional<String> boundPayment() {
        Optional<String> bound = storedOrder(REFERENCE).map(order -> Attr.string(order, Table.PAYMENT_ID));
        bound.ifPresent(id -> assertTrue(StoredItems.paymentItem(id).isPresent(), "the order is bound to " + id
                + ", which does not exist"));
        return bound;
    }

    /**
     * Sweeps the order's payments once "no charge" is a proof for any left PENDING: every lease taken
     * so far has ended and the provider's lookups have had their lag. The sweep only asks.
     */
    private SweepSummary sweepPastTheProof() {
        clock.advance(lease.plus(proof.lag(ACCOUNT)).plusSeconds(1));
        SweepSummary sweep = sweeps.sweepOnly(Set.copyOf(paymentIds()));
        assertEquals(0, sweep.resent(), "the sweep never sends a PENDING payment's charge");
        assertEquals(0, sweep.errors(), sweep::toString);
        return sweep;
    }

    private static void assertOrderRefusal(ApiResponse answer, String slug, String boundId) {
        JsonNode problem = assertProblem(answer, 409, slug);
        assertEquals(boundId, problem.get("paymentId").asText());
        assertEquals("/payments/" + boundId, answer.header("Location"));
    }

    /**
     * Where every test here must end: one successful charge at the provider, its payment SUCCEEDED and
     * the order bound to it, every other payment FAILED (those never charged proven so) and none left
     * for the sweep, and a fresh key refused without a provider call.
     */
    private void assertOrderPaidOnce() {
        List<LedgerEntry> succeeded = sim.ledger().stream().filter(e -> "succeeded".equals(e.status())).toList();
        assertEquals(1, succeeded.size(), () -> "one successful charge for the order: " + sim.ledger());
        String paid = succeeded.get(0).reference();
        assertEquals(Optional.of(paid), boundPayment());
        for (String id : paymentIds()) {
            Map<String, AttributeValue> payment = storedPayment(id);
            assertEquals(id.equals(paid) ? "SUCCEEDED" : "FAILED", payment.get(Table.STATUS).s(), id);
            assertFalse(payment.containsKey(Table.NEXT_CHECK_AT) || payment.containsKey(Table.SWEEP_SHARD),
                    () -> "left for the sweep: " + payment);
            if (ledgerChargesFor(id) == 0) {
                assertEquals(Payment.NOT_CHARGED, payment.get(Table.DECLINE_CODE).s(), id);
            }
        }
        int requests = sim.chargeRequests();
        assertOrderRefusal(post(newKey(), BODY), "order-already-paid", paid);
        assertEquals(requests, sim.chargeRequests());
    }
}
