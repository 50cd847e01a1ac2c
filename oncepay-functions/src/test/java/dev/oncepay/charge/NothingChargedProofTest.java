package dev.oncepay.charge;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.oncepay.contract.Table;
import dev.oncepay.payment.ProviderAccount;
import dev.oncepay.provider.spi.ProviderOperation;
import dev.oncepay.testing.LambdaClient.ApiResponse;
import dev.oncepay.testing.TestEnvironment;
import dev.oncepay.testkit.StoreFault;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/**
 * "Nothing was charged" is a proof (design rule 18): every problem type of the payments API whose
 * text says so ({@code provider-unavailable}, {@code provider-at-capacity}, {@code store-unavailable})
 * comes only from a request of which no attempt could have reached the provider, and never for a
 * key whose earlier run may have sent the charge. Proven by failing each store request of a charge
 * in turn (the store's fault proxy aims at exactly that request and the SDK's retries of it), and
 * by the store calls between "sent" and "recorded" that once answered {@code 503}.
 */
@QuarkusTest
@TestProfile(ProbeAtOnceProfile.class)
@WithTestResource(value = TestEnvironment.class, scope = TestResourceScope.GLOBAL)
class NothingChargedProofTest extends ChargeTestSupport {
    private static final ProviderAccount ACCOUNT = new ProviderAccount("sim", "default");
    /** Attempts the store client makes of one request (its own retries): failing them all fails the call. */
    private static final int SDK_ATTEMPTS = 3;
    private static final Set<String> NOTHING_CHARGED = Set.of("https://oncepay.dev/problems/provider-unavailable",
            "https://oncepay.dev/problems/provider-at-capacity", "https://oncepay.dev/problems/store-unavailable");
    private static final List<String> OPERATIONS = List.of("GetItem", "PutItem", "UpdateItem", "DeleteItem", "Query");

    @Test
    void aStoreFailureAfterAnotherSandboxWonTheProbeEndsAnAttemptedChargeUnknownNot503() {
        breakers.openFromAnotherSandbox(ACCOUNT, ProviderOperation.CHARGE);
        breakers.readAgainHere();
        // The probe's attempt is executed and answered 500; the call asks for the probe again, which
        // another sandbox takes first, and the breaker's item then cannot be read.
        sim.scriptAnswerAfterCommit(500, "");
        store.failAfter("UpdateItem", "SET #state = :half", 1, StoreFault.CONDITION_FAILED, 1);
        store.failAfter("GetItem", "breaker#", 1, StoreFault.SERVER_ERROR, SDK_ATTEMPTS);

        ApiResponse answer = post(newKey(), body(4300, "EUR", "order_lost_probe"));

        assertEquals(1, store.injected(StoreFault.CONDITION_FAILED), "the probe race was lost");
        assertEquals(SDK_ATTEMPTS, store.injected(StoreFault.SERVER_ERROR), "the re-read failed");
        assertEquals(202, answer.status(), answer::body);
        String paymentId = answer.json().path("id").asText();
        assertEquals("/payments/" + paymentId, answer.header("Location"));
        assertEquals(1, ledgerChargesFor(paymentId), "the provider charged it once");
    }

    @Test
    void aStoreFailureMovingAnIdempotencyErrorToReviewAnswersThePaymentNot503() {
        tenant = StripeChargeTest.TENANT;
        sim.stripe().scriptError(400, "idempotency_error", null, Map.of(), false);
        // The settle to UNKNOWN lands; the move on to NEEDS_REVIEW and the read after it fail.
        store.failAfter("UpdateItem", "payment#", 1, StoreFault.SERVER_ERROR, SDK_ATTEMPTS);
        store.failNext("GetItem", "payment#", StoreFault.SERVER_ERROR, SDK_ATTEMPTS);

        ApiResponse answer = post(newKey(), StripeChargeTest.stripeBody(4300, "order_" + newKey().substring(0, 8),
                "pm_card_visa"));

        assertEquals(202, answer.status(), answer::body);
        String paymentId = answer.json().path("id").asText();
        assertEquals("/payments/" + paymentId, answer.header("Location"));
        assertEquals("UNKNOWN", storedPayment(paymentId).get(Table.STATUS).s(),
                "left for the sweep, which finishes the review");
    }

    @Test
    void failingEachStoreRequestOfAFreshChargeSaysNothingChargedOnlyIfNothingWasSent() {
        // The first attempt is executed and answered 500, the retry answered: both sides of "sent".
        List<String> answers = eachStoreRequestFailing(() -> sim.scriptAnswerAfterCommit(500, ""),
                () -> post(newKey(), body(4300, "EUR", "order_each_request_" + newKey())), false);
        assertTrue(answers.stream().anyMatch(a -> a.startsWith("503")), "some failures came before the call: "
                + answers);
        assertTrue(answers.stream().anyMatch(a -> a.startsWith("202")), "some came after it: " + answers);
    }

    @Test
    void failingEachStoreRequestOfATakeoverNeverSaysNothingCharged() {
        List<String> answers = eachStoreRequestFailing(() -> {
            // A charge the provider executed whose settle the store lost: 202, PENDING, lease over.
            pendingKey = newKey();
            takeoverBody = body(4300, "EUR", "order_each_takeover_" + pendingKey); // an order per round
            store.failNext("UpdateItem", "payment#", StoreFault.SERVER_ERROR, SDK_ATTEMPTS);
            assertEquals(202, post(pendingKey, takeoverBody).status());
            store.reset();
            clock.advance(lease.plusSeconds(1));
        }, () -> post(pendingKey, takeoverBody), true);
        // Only the claim and the reads of the key and its payment come before this request knows of a
        // payment that may be charged; from there on (the order's bind, UpdateItem #1, included)
        // every store failure answers that payment.
        assertEquals(List.of("503 with GetItem #1 failing", "503 with GetItem #2 failing", "202 with GetItem #3 failing",
                "503 with PutItem #1 failing", "202 with UpdateItem #1 failing", "202 with UpdateItem #2 failing",
                "202 with UpdateItem #3 failing", "202 with UpdateItem #4 failing"), answers);
    }

    /** The key of the payment {@link #failingEachStoreRequestOfATakeoverNeverSaysNothingCharged} takes over. */
    private String pendingKey;
    private String takeoverBody;

    /**
     * Runs {@code prepare} and {@code charge} once healthy to count the charge's store requests,
     * then again for every one of them, with exactly that request (and the SDK's retries of it)
     * failing. Every answer that says nothing was charged must come from a request of which no
     * attempt reached the provider, never from a takeover (its earlier run may have charged); every
     * other is the truth: a payment and its {@code Location}, charged once at most.
     */
    private List<String> eachStoreRequestFailing(Runnable prepare, Supplier<ApiResponse> charge, boolean takeover) {
        prepare.run();
        dynamoRequests.reset();
        assertTrue(charge.get().status() < 300);
        Map<String, Long> healthy = dynamoRequests.snapshot();
        List<String> answers = new ArrayList<>();
        for (String operation : OPERATIONS) {
            for (int n = 0; n < healthy.getOrDefault(operation, 0L); n++) {
                breakers.resetAll();
                store.reset();
                sim.reset();
                prepare.run();
                int sentBefore = sim.chargeRequests();
                store.failAfter(operation, null, n, StoreFault.SERVER_ERROR, SDK_ATTEMPTS);
                ApiResponse answer = charge.get();
                String what = answer.status() + " with " + operation + " #" + (n + 1) + " failing";
                answers.add(what);
                assertEquals(SDK_ATTEMPTS, store.injected(StoreFault.SERVER_ERROR), what + ": the request failed");
                if (answer.status() == 503) {
                    String type = answer.json().path("type").asText();
                    assertTrue(NOTHING_CHARGED.contains(type), what + ": " + answer.body());
                    // A takeover's earlier run may have charged: at most "this request sent nothing".
                    assertFalse(takeover && !type.endsWith("/store-unavailable"), what + ": " + answer.body());
                    assertFalse(takeover && answer.body().contains("nothing was charged"), what + ": " + answer.body());
                    assertEquals(sentBefore, sim.chargeRequests(), what + " says nothing was charged after an"
                            + " attempt: " + answer.body());
                } else {
                    assertTrue(answer.status() == 201 || answer.status() == 202, what + ": " + answer.body());
                    assertNotNull(answer.header("Location"), what);
                    assertTrue(sim.ledger().size() <= 1, what + ": charged once at most");
                }
            }
        }
        System.out.println((takeover ? "takeover" : "fresh charge") + ", each store request failing: " + answers);
        return answers;
    }
}
