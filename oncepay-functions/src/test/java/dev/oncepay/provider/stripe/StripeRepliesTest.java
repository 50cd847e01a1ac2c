package dev.oncepay.provider.stripe;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.oncepay.payment.Payment;
import dev.oncepay.provider.spi.ChargeResult;
import dev.oncepay.provider.spi.FoundCharge;
import dev.oncepay.provider.spi.IndeterminateProviderFault;
import dev.oncepay.provider.spi.ProviderOutcome;
import dev.oncepay.provider.spi.ProviderReply;
import dev.oncepay.provider.spi.ReplyClass;
import dev.oncepay.testing.TestEnvironment;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Replies a real Stripe (or something in its place) may send that the simulator does not make:
 * each read strictly (design rule 11). Only explicit words about our PaymentIntent are final; a
 * field of the wrong type, another casing, another object, another payment are no answer.
 */
@QuarkusTest
@WithTestResource(value = TestEnvironment.class, scope = TestResourceScope.GLOBAL)
class StripeRepliesTest {
    @Inject
    StripeAdapter adapter;
    private final Payment payment = StripeAdapterTest.payment("pm_card_visa");

    private String intent(String status, String extra) {
        return "{\"id\":\"pi_1\",\"object\":\"payment_intent\",\"status\":\"" + status + "\",\"amount\":4200,"
                + "\"currency\":\"eur\",\"metadata\":{\"oncepay_payment_id\":\"" + payment.id() + "\"}" + extra + "}";
    }

    private ChargeResult charge(int status, String body) {
        ProviderReply reply = new ProviderReply(status, Map.of(), body);
        assertInstanceOf(ReplyClass.Answer.class, adapter.classify(reply));
        return adapter.readCharge(reply, payment);
    }

    private List<FoundCharge> lookup(String body) {
        return adapter.readLookup(new ProviderReply(200, Map.of(), body), payment);
    }

    @Test
    void onlyAPaymentIntentOfOursThatSaysSucceededInStripesWordsIsACapture() {
        assertEquals(ChargeResult.succeeded("pi_1"), charge(200, intent("succeeded", "")));
        for (String notOurs : List.of(
                intent("Succeeded", ""),
                intent("succeeded", "").replace("\"amount\":4200", "\"amount\":\"4200\""),
                intent("succeeded", "").replace("\"amount\":4200", "\"amount\":4201"),
                intent("succeeded", "").replace("\"eur\"", "\"usd\""),
                intent("succeeded", "").replace(payment.id(), "pay_0"),
                intent("succeeded", "").replace("\"metadata\":{\"oncepay_payment_id\":\"" + payment.id() + "\"}", "\"metadata\":{}"),
                intent("succeeded", "").replace("payment_intent", "charge"),
                intent("succeeded", "").replace("\"pi_1\"", "\"ch_1\""),
                "[" + intent("succeeded", "") + "]",
                "")) {
            assertEquals(ProviderOutcome.UNKNOWN, charge(200, notOurs).outcome(), notOurs);
        }
    }

    @Test
    void requiresPaymentMethodIsADeclineOnlyAfterAFailedAttempt() {
        ChargeResult failed = charge(200, intent("requires_payment_method",
                ",\"last_payment_error\":{\"type\":\"card_error\",\"code\":\"card_declined\",\"decline_code\":\"lost_card\"}"));
        ChargeResult codeOnly = charge(200, intent("requires_payment_method",
                ",\"last_payment_error\":{\"type\":\"card_error\",\"code\":\"expired_card\"}"));
        ChargeResult neverAttempted = charge(200, intent("requires_payment_method", ",\"last_payment_error\":null"));

        // Declined, and still confirmable with its client secret: left open until canceled.
        assertEquals(ChargeResult.failedOpen("pi_1", "lost_card"), failed);
        assertEquals(ChargeResult.failedOpen("pi_1", "expired_card"), codeOnly);
        assertEquals(ProviderOutcome.UNKNOWN, neverAttempted.outcome());
        assertEquals("pi_1", neverAttempted.providerPaymentId());
    }

    @Test
    void everyOtherStatusIsNotFinalAndKeepsThePaymentIntentsId() {
        for (String status : List.of("processing", "requires_capture", "requires_confirmation", "requires_action",
                "some_future_status")) {
            ChargeResult result = charge(200, intent(status, ""));
            assertEquals(ProviderOutcome.UNKNOWN, result.outcome(), status);
            assertEquals("pi_1", result.providerPaymentId(), status);
            assertNull(result.customerAction(), "no customer action without client_secret and next_action: " + status);
        }
        assertEquals(ChargeResult.failed("pi_1", "canceled"), charge(200, intent("canceled", "")));
    }

    @Test
    void aCardErrorIsADeclineOnlyAsACardErrorAboutOurPaymentIntent() {
        String declined = "{\"error\":{\"type\":\"card_error\",\"code\":\"card_declined\",\"decline_code\":\"do_not_honor\"";

        assertEquals(ChargeResult.failed(null, "do_not_honor"), charge(402, declined + "}}"));
        assertEquals(ChargeResult.failedOpen("pi_1", "do_not_honor"),
                charge(402, declined + ",\"payment_intent\":" + intent("requires_payment_method", "") + "}}"));
        assertEquals(ChargeResult.failed(null, "card_declined"),
                charge(402, "{\"error\":{\"type\":\"card_error\",\"code\":\"card_declined\"}}"));
        assertEquals(ProviderOutcome.UNKNOWN, charge(402, declined + ",\"payment_intent\":"
                + intent("requires_payment_method", "").replace(payment.id(), "pay_0") + "}}").outcome());
        assertEquals(ProviderOutcome.UNKNOWN, charge(402, "{\"error\":{\"type\":\"api_error\"}}").outcome());
        assertEquals(ProviderOutcome.UNKNOWN, charge(402, null).outcome());
        assertEquals(ProviderOutcome.UNKNOWN, charge(402, "Payment Required").outcome());
    }

    @Test
    void anInvalidRequestIsARefusalAndAnIdempotencyErrorIsForReview() {
        assertEquals(ChargeResult.failed(null, "provider_rejected_parameter_missing"),
                charge(400, "{\"error\":{\"type\":\"invalid_request_error\",\"code\":\"parameter_missing\"}}"));
        assertEquals(ChargeResult.failed(null, "provider_rejected_404"),
                charge(404, "{\"error\":{\"type\":\"invalid_request_error\"}}"));
        assertEquals(ProviderOutcome.NEEDS_REVIEW,
                charge(400, "{\"error\":{\"type\":\"idempotency_error\",\"message\":\"Keys for idempotent requests\"}}")
                        .outcome());
        assertEquals(ProviderOutcome.UNKNOWN, charge(400, "<html>Bad Request</html>").outcome());
        assertEquals(ProviderOutcome.UNKNOWN,
                charge(422, "{\"error\":{\"type\":\"invalid_request_error\",\"code\":\"parameter_missing\"}}").outcome());
    }

    @Test
    void credentialsRefusedWinsOverStripeShouldRetry() {
        ReplyClass result = adapter.classify(new ProviderReply(401, Map.of("stripe-should-retry", "true"), null));

        assertInstanceOf(ReplyClass.CredentialsRefused.class, result);
    }

    @Test
    void anUnreadableRetryAfterLeavesTheWaitToOurBackoff() {
        ReplyClass result = adapter.classify(new ProviderReply(503, Map.of("retry-after", "soon"), null));

        assertNull(assertInstanceOf(ReplyClass.Retry.class, result).retryAfter());
    }

    @Test
    void aLookupIsAPaymentIntentOrASearchResultWithItsListAndNothingElse() {
        String ours = intent("succeeded", "");
        assertEquals(1, lookup(ours).size());
        assertEquals(List.of(), lookup("{\"object\":\"search_result\",\"data\":[],\"has_more\":false}"));
        assertEquals(1, lookup("{\"object\":\"search_result\",\"data\":[" + ours + "],\"has_more\":true}").size());
        for (String noAnswer : List.of(
                "{\"object\":\"search_result\",\"data\":[]}",
                "{\"object\":\"search_result\",\"data\":[],\"has_more\":true}",
                "{\"object\":\"search_result\",\"data\":[],\"has_more\":\"false\"}",
                "{\"object\":\"list\",\"data\":[],\"has_more\":false}",
                "{\"data\":[],\"has_more\":false}",
                "{\"object\":\"search_result\",\"data\":{},\"has_more\":false}",
                "{\"object\":\"search_result\",\"data\":[1],\"has_more\":false}",
                "{\"object\":\"search_result\",\"data\":[" + ours.replace(payment.id(), "pay_0") + "],\"has_more\":false}",
                ours.replace(payment.id(), "pay_0"),
                ours.replace("\"pi_1\"", "\"1\""),
                "[]",
                "not json",
                "")) {
            assertThrows(IndeterminateProviderFault.class, () -> lookup(noAnswer), noAnswer);
        }
        assertThrows(IndeterminateProviderFault.class,
                () -> adapter.readLookup(new ProviderReply(404, Map.of(), "{\"error\":{\"type\":\"invalid_request_error\"}}"), payment));
    }

    @Test
    void aLookupReadsEachStatusByTheSameMappingAsTheCharge() {
        FoundCharge declined = lookup(intent("requires_payment_method",
                ",\"last_payment_error\":{\"type\":\"card_error\",\"code\":\"card_declined\",\"decline_code\":\"fraudulent\"}")).get(0);
        FoundCharge unknownWord = lookup(intent("on_hold", "")).get(0);
        FoundCharge otherAmount = lookup(intent("succeeded", "").replace("\"amount\":4200", "\"amount\":5000")).get(0);

        assertEquals(new FoundCharge("pi_1", ProviderOutcome.FAILED, "requires_payment_method", payment.id(), 4200L,
                "EUR", "fraudulent", null, true), declined);
        assertEquals(ProviderOutcome.UNKNOWN, unknownWord.outcome());
        assertEquals(5000L, otherAmount.amount(), "left for reconcile to judge (review)");
    }
}
