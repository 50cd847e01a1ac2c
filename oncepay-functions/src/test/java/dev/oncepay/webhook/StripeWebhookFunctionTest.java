package dev.oncepay.webhook;

import dev.oncepay.payment.Actor;
import static dev.oncepay.webhook.StripeEvents.CANCELED;
import static dev.oncepay.webhook.StripeEvents.PAYMENT_FAILED;
import static dev.oncepay.webhook.StripeEvents.PROCESSING;
import static dev.oncepay.webhook.StripeEvents.REQUIRES_ACTION;
import static dev.oncepay.webhook.StripeEvents.SUCCEEDED;
import static dev.oncepay.webhook.StripeEvents.deliver;
import static dev.oncepay.webhook.StripeEvents.eventAbout;
import static dev.oncepay.webhook.WebhookRequests.call;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.oncepay.function.WebhookFunction;
import dev.oncepay.http.HttpApiEvent;
import dev.oncepay.http.HttpApiResponse;
import dev.oncepay.payment.Payment;
import dev.oncepay.payment.PaymentRepository;
import dev.oncepay.payment.PaymentStatus;
import dev.oncepay.payment.ProviderAccount;
import dev.oncepay.payment.Transition;
import dev.oncepay.sim.StripeMode;
import dev.oncepay.sim.WebhookDelivery;
import dev.oncepay.contract.Attr;
import dev.oncepay.store.DynamoRequestCounter;
import dev.oncepay.contract.Table;
import dev.oncepay.testing.LambdaClient.ApiResponse;
import dev.oncepay.testing.TestClock;
import dev.oncepay.testing.TestEnvironment;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import jakarta.inject.Inject;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * {@code POST /webhooks/stripe} through the function's real entry point: the simulator's
 * Stripe-signed PaymentIntent events about payments charged through a Stripe account, verified
 * with Stripe's scheme and applied by the same state machine as every provider's events.
 */
@QuarkusTest
@TestProfile(WebhookTestProfile.class)
@WithTestResource(value = TestEnvironment.class, scope = TestResourceScope.GLOBAL)
class StripeWebhookFunctionTest {
    private static final ProviderAccount STRIPE_TEST = new ProviderAccount("stripe", "stripe-test");
    private static final String STRIPE = StripeEvents.PROVIDER;
    private static final String INVALID_SIGNATURE = "https://oncepay.dev/problems/invalid-signature";

    @Inject
    PaymentRepository payments;
    @Inject
    TestClock clock;
    @Inject
    WebhookHooks hooks;
    @Inject
    DynamoRequestCounter dynamoRequests;
    @Inject
    WebhookFunction function;
    @Inject
    ObjectMapper json;

    @BeforeEach
    void reset() {
        clock.reset();
        hooks.reset();
        TestEnvironment.simulator().reset();
        TestEnvironment.simulator().stripe().clearWebhookTarget();
    }

    @AfterEach
    void resetClock() {
        clock.reset();
    }

    // --- each PaymentIntent event ---------------------------------------------------------------

    @Test
    void succeededSettlesTheUnknownPaymentWithThePaymentIntentIdAndItsRedeliveryIsADuplicate() {
        Charged charged = payment(PaymentStatus.UNKNOWN, "pm_card_visa");
        WebhookDelivery event = eventAbout(SUCCEEDED, charged.paymentId());

        dynamoRequests.reset();
        ApiResponse first = deliver(event);
        Map<String, Long> requests = dynamoRequests.snapshot();

        assertEquals(200, first.status(), first.body());
        assertEquals("applied", first.json().get("outcome").asText());
        assertEquals(event.eventId(), first.json().get("eventId").asText());
        Payment settled = payment(charged.paymentId());
        assertEquals(PaymentStatus.SUCCEEDED, settled.status());
        assertEquals(charged.intentId(), settled.providerPaymentId(), "the PaymentIntent id, as the adapter records it");
        assertEquals("webhook stripe/" + event.eventId(), settled.statusReason());
        Map<String, AttributeValue> journal = journalItem(event.eventId());
        assertEquals("PROCESSED", Attr.string(journal, Table.EVENT_STATE));
        assertEquals(SUCCEEDED, Attr.string(journal, Table.EVENT_TYPE));
        assertEquals(charged.paymentId(), Attr.string(journal, Table.PAYMENT_ID));
        assertEquals(event.body(), Attr.string(journal, Table.EVENT_BODY));
        assertEquals(Map.of("GetItem", 1L, "PutItem", 1L, "UpdateItem", 2L), requests, "as for the generic PSP");

        // Stripe redelivers (it did not see our 200): the same event, signed again.
        ApiResponse again = call(StripeEvents.request(event.body(),
                StripeEvents.signNow(event.body(), WebhookTestProfile.STRIPE_SECRET)));
        assertEquals(200, again.status(), again.body());
        assertTrue(again.json().get("duplicate").asBoolean());
        assertEquals("applied", again.json().get("outcome").asText());
        assertEquals(settled, payment(charged.paymentId()));
        assertEquals(1, hooks.paymentWrites(event.eventId()));
    }

    @Test
    void paymentFailedFailsThePaymentWithStripesDeclineCodeAndItsCancelPendingForTheSweep() {
        Charged charged = payment(PaymentStatus.UNKNOWN, "pm_card_chargeDeclinedInsufficientFunds");
        WebhookDelivery event = eventAbout(PAYMENT_FAILED, charged.paymentId());
        ApiResponse answer = deliver(event);
        assertEquals(200, answer.status(), answer.body());
        assertEquals("applied", answer.json().get("outcome").asText());
        Payment failed = payment(charged.paymentId());
        assertEquals(PaymentStatus.FAILED, failed.status());
        assertEquals("insufficient_funds", failed.declineCode());
        assertEquals(charged.intentId(), failed.providerPaymentId());
        assertTrue(failed.cancelPending(), "the PaymentIntent stays confirmable until the sweep cancels it");
        Map<String, AttributeValue> item = item("payment#" + charged.paymentId());
        long nextCheckAt = Attr.number(item, Table.NEXT_CHECK_AT, Long.MAX_VALUE);
        assertTrue(nextCheckAt <= clock.instant().toEpochMilli(), "due at once: " + nextCheckAt);
        assertTrue(item.containsKey(Table.SWEEP_SHARD), "listed in the sweep index");
        assertTrue(item.containsKey(Table.ATTENTION_KEY), "counted by the cancel-pending backlog");

        ApiResponse again = call(StripeEvents.request(event.body(),
                StripeEvents.signNow(event.body(), WebhookTestProfile.STRIPE_SECRET)));
        assertTrue(again.json().get("duplicate").asBoolean());
        assertEquals(failed, payment(charged.paymentId()), "a redelivery writes nothing");
        assertEquals("already_settled", deliver(eventAbout(PAYMENT_FAILED, charged.paymentId())).json().get("outcome")
                .asText(), "another delivery of the decline changes nothing");
        assertEquals(failed, payment(charged.paymentId()));
    }

    @Test
    void canceledFailsThePaymentAsCanceled() {
        Charged charged = payment(PaymentStatus.UNKNOWN, "pm_card_authenticationRequired");
        ApiResponse answer = deliver(eventAbout(CANCELED, charged.paymentId()));
        assertEquals(200, answer.status(), answer.body());
        assertEquals("applied", answer.json().get("outcome").asText());
        Payment failed = payment(charged.paymentId());
        assertEquals(PaymentStatus.FAILED, failed.status());
        assertEquals("canceled", failed.declineCode());
        assertEquals(charged.intentId(), failed.providerPaymentId());
        assertFalse(failed.cancelPending(), "a canceled PaymentIntent has nothing left to cancel");
        assertFalse(item("payment#" + charged.paymentId()).containsKey(Table.NEXT_CHECK_AT), "out of the sweep index");
    }

    @Test
    void processingAndRequiresActionAreJournaledAsNotFinalAndLeaveThePaymentAlone() {
        Charged charged = payment(PaymentStatus.UNKNOWN, "pm_card_authenticationRequired");
        Map<String, AttributeValue> before = item("payment#" + charged.paymentId());
        for (String type : List.of(REQUIRES_ACTION, PROCESSING)) {
            WebhookDelivery event = eventAbout(type, charged.paymentId());
            dynamoRequests.reset();
            ApiResponse answer = deliver(event);
            assertEquals(200, answer.status(), answer.body());
            assertEquals("not_final", answer.json().get("outcome").asText(), type);
            assertEquals(Map.of("PutItem", 1L, "GetItem", 1L, "UpdateItem", 1L), dynamoRequests.snapshot(),
                    "no payment write");
            Map<String, AttributeValue> journal = journalItem(event.eventId());
            assertEquals("not_final", Attr.string(journal, Table.EVENT_OUTCOME));
            assertEquals(charged.paymentId(), Attr.string(journal, Table.PAYMENT_ID));
            assertTrue(Attr.string(journal, Table.EVENT_OUTCOME_DETAIL).contains(charged.intentId()));
        }
        assertEquals(before, item("payment#" + charged.paymentId()), "not a byte changed");

        // The customer authenticates: the final event settles it.
        assertEquals("applied", deliver(eventAbout(SUCCEEDED, charged.paymentId())).json().get("outcome").asText());
        assertEquals(PaymentStatus.SUCCEEDED, payment(charged.paymentId()).status());
    }

    @Test
    void otherEventTypesAreAcknowledgedAndJournaledAsIgnored() {
        Charged charged = payment(PaymentStatus.UNKNOWN, "pm_card_visa");
        Payment before = payment(charged.paymentId());
        WebhookDelivery event = eventAbout("payment_intent.amount_capturable_updated", charged.paymentId());
        ApiResponse answer = deliver(event);
        assertEquals(200, answer.status(), answer.body());
        assertEquals("ignored_type", answer.json().get("outcome").asText());
        Map<String, AttributeValue> journal = journalItem(event.eventId());
        assertEquals("payment_intent.amount_capturable_updated", Attr.string(journal, Table.EVENT_TYPE));
        assertEquals(charged.paymentId(), Attr.string(journal, Table.PAYMENT_ID));
        assertEquals(before, payment(charged.paymentId()));
    }

    @Test
    void eventsOfTheOtherModeOrAboutPaymentIntentsWithoutOurMetadataAreJournaledNotApplied() {
        Charged charged = payment(PaymentStatus.UNKNOWN, "pm_card_visa");
        Payment before = payment(charged.paymentId());
        String body = eventAbout(SUCCEEDED, charged.paymentId()).body();

        // A live-mode event at this test-mode endpoint (the envelope's livemode, not the object's).
        String live = body.replace("\"livemode\":false,\"pending_webhooks\"", "\"livemode\":true,\"pending_webhooks\"")
                .replace("\"id\":\"evt_", "\"id\":\"evt_live");
        assertTrue(live.contains("\"livemode\":true"), live);
        // A PaymentIntent oncepay did not create: no oncepay_payment_id in its metadata.
        String foreign = body.replace("\"oncepay_payment_id\":", "\"order_id\":")
                .replace("\"id\":\"evt_", "\"id\":\"evt_foreign");
        for (String sent : List.of(live, foreign)) {
            ApiResponse answer = call(StripeEvents.request(sent, StripeEvents.signNow(sent,
                    WebhookTestProfile.STRIPE_SECRET)));
            assertEquals(200, answer.status(), answer.body());
            assertEquals("not_ours", answer.json().get("outcome").asText());
            Map<String, AttributeValue> journal = journalItem(answer.json().get("eventId").asText());
            assertEquals("not_ours", Attr.string(journal, Table.EVENT_OUTCOME));
            assertEquals(sent, Attr.string(journal, Table.EVENT_BODY));
        }
        assertEquals(before, payment(charged.paymentId()), "neither was applied");
    }

    // --- exactly once, never backwards ----------------------------------------------------------

    @Test
    void theSameEventDeliveredFiveTimesConcurrentlyIsAppliedOnce() throws Exception {
        Charged charged = payment(PaymentStatus.UNKNOWN, "pm_card_visa");
        WebhookDelivery event = eventAbout(SUCCEEDED, charged.paymentId());
        HttpApiEvent delivery = json.readValue(StripeEvents.request(event.body(), event.signature()), HttpApiEvent.class);
        ExecutorService threads = Executors.newFixedThreadPool(5);
        try {
            CountDownLatch start = new CountDownLatch(1);
            List<Future<HttpApiResponse>> answers = new ArrayList<>();
            for (int i = 0; i < 5; i++) {
                answers.add(threads.submit(() -> {
                    start.await();
                    return function.webhook(delivery);
                }));
            }
            start.countDown();
            for (Future<HttpApiResponse> answer : answers) {
                HttpApiResponse response = answer.get(30, TimeUnit.SECONDS);
                assertEquals(200, response.statusCode(), response.body());
                assertEquals("applied", json.readTree(response.body()).get("outcome").asText());
            }
        } finally {
            threads.shutdownNow();
        }
        assertEquals(1, hooks.paymentWrites(event.eventId()), "exactly one delivery moved the payment");
        assertEquals(PaymentStatus.SUCCEEDED, payment(charged.paymentId()).status());
    }

    @Test
    void outOfOrderEventsNeverMoveAPaymentBackwards() {
        Charged charged = payment(PaymentStatus.UNKNOWN, "pm_card_visa");
        String paymentId = charged.paymentId();
        assertEquals("applied", deliver(eventAbout(SUCCEEDED, paymentId)).json().get("outcome").asText());
        Payment succeeded = payment(paymentId);

        // Late non-final events and the same fact re-emitted change nothing.
        assertEquals("not_final", deliver(eventAbout(PROCESSING, paymentId)).json().get("outcome").asText());
        assertEquals("already_settled", deliver(eventAbout(SUCCEEDED, paymentId)).json().get("outcome").asText());
        assertEquals(succeeded, payment(paymentId), "nothing changed, not even updatedAt");

        // A failure after the success contradicts it: review, never FAILED.
        WebhookDelivery failed = eventAbout(PAYMENT_FAILED, paymentId);
        assertEquals("conflict", deliver(failed).json().get("outcome").asText());
        Payment review = payment(paymentId);
        assertEquals(PaymentStatus.NEEDS_REVIEW, review.status());
        assertEquals("webhook stripe/" + failed.eventId() + ": " + PAYMENT_FAILED + " contradicts recorded SUCCEEDED",
                review.statusReason());
        assertEquals(charged.intentId(), review.providerPaymentId());
        assertEquals("under_review", deliver(eventAbout(CANCELED, paymentId)).json().get("outcome").asText());
        assertEquals(review, payment(paymentId));
    }

    @Test
    void anEventAboutAnotherPaymentIntentThanTheRecordedOneGoesToReview() {
        // The charge run recorded its PaymentIntent; an event reports a second one for the same payment.
        Charged charged = payment(PaymentStatus.SUCCEEDED, "pm_card_visa");
        String body = eventAbout(SUCCEEDED, charged.paymentId()).body().replace(charged.intentId(), "pi_second");
        ApiResponse answer = call(StripeEvents.request(body, StripeEvents.signNow(body,
                WebhookTestProfile.STRIPE_SECRET)));
        assertEquals("conflict", answer.json().get("outcome").asText());
        Payment review = payment(charged.paymentId());
        assertEquals(PaymentStatus.NEEDS_REVIEW, review.status());
        assertTrue(review.statusReason().contains("charge pi_second != " + charged.intentId()), review.statusReason());
        assertEquals(charged.intentId(), review.providerPaymentId());
    }

    // --- provider binding (design rule 15) ---------------------------------------------------------

    // A Stripe event about a sim-charged payment: WebhookFunctionTest.anEventFromAnotherProviderThanThePayments...

    @Test
    void aSimEventAboutAStripeChargedPaymentIsAProviderConflict() {
        Charged charged = payment(PaymentStatus.UNKNOWN, "pm_card_visa");
        Map<String, AttributeValue> before = item("payment#" + charged.paymentId());
        String simEvent = WebhookRequests.chargeEvent(WebhookRequests.newEventId(), "charge.succeeded",
                charged.paymentId(), "ch_sim", 4200, "EUR");
        ApiResponse atSim = call(WebhookRequests.event("sim", simEvent,
                WebhookRequests.signNow(WebhookTestProfile.SIM_SECRET, simEvent)));
        assertEquals(200, atSim.status(), atSim.body());
        assertEquals("provider_conflict", atSim.json().get("outcome").asText());
        assertEquals(before, item("payment#" + charged.paymentId()), "nothing applied");

        // The payment's own provider still settles it.
        assertEquals("applied", deliver(eventAbout(SUCCEEDED, charged.paymentId())).json().get("outcome").asText());
        assertEquals(PaymentStatus.SUCCEEDED, payment(charged.paymentId()).status());
    }

    // --- signatures -----------------------------------------------------------------------------

    enum BadSignature {
        MISSING, MALFORMED, WRONG_SECRET, TOO_OLD, TOO_NEW, TAMPERED_BODY, SIM_HEADER, SIM_SECRET
    }

    @ParameterizedTest
    @EnumSource(BadSignature.class)
    void badSignaturesAre401AndStoreNothing(BadSignature bad) {
        Charged charged = payment(PaymentStatus.UNKNOWN, "pm_card_visa");
        Payment before = payment(charged.paymentId());
        WebhookDelivery event = eventAbout(SUCCEEDED, charged.paymentId());
        String body = event.body();
        long now = Instant.now().getEpochSecond();
        String secret = WebhookTestProfile.STRIPE_SECRET;
        String sent = body;
        String header = StripeMode.SIGNATURE_HEADER;
        String signature = switch (bad) {
            case MISSING -> null;
            case MALFORMED -> event.signature().replace(",v1=", ",v1 ").replace("t=", "t:");
            case WRONG_SECRET -> StripeMode.signWithEach(body, now, "whsec_not_the_secret");
            case TOO_OLD -> StripeMode.signWithEach(body, now - 360, secret); // margins: the app checks a moment later
            case TOO_NEW -> StripeMode.signWithEach(body, now + 360, secret);
            case TAMPERED_BODY -> {
                sent = body.replace("\"amount\":4200", "\"amount\":42");
                yield event.signature();
            }
            case SIM_HEADER -> {
                header = "Payment-Signature"; // the generic PSP's header is not Stripe's
                yield event.signature();
            }
            case SIM_SECRET -> StripeMode.signWithEach(body, now, WebhookTestProfile.SIM_SECRET);
        };
        assertFalse(sent.equals(body) && bad == BadSignature.TAMPERED_BODY, "the body was tampered with");
        dynamoRequests.reset();
        ApiResponse response = call(WebhookRequests.event(STRIPE, sent, header, signature));
        assertEquals(401, response.status(), response.body());
        assertEquals("application/problem+json", response.header("Content-Type"));
        assertEquals(INVALID_SIGNATURE, response.json().get("type").asText());
        assertFalse(response.body().contains(secret));
        assertEquals(Map.of(), dynamoRequests.snapshot(), "not a single DynamoDB request");
        assertTrue(item("event#stripe#" + event.eventId()).isEmpty(), "no journal item");
        assertEquals(before, payment(charged.paymentId()), "payment unchanged");
    }

    @Test
    void theToleranceIs300SecondsOfTheApplicationsClock() {
        Charged charged = payment(PaymentStatus.UNKNOWN, "pm_card_visa");
        WebhookDelivery event = eventAbout(SUCCEEDED, charged.paymentId());
        String request = StripeEvents.request(event.body(), event.signature());
        clock.advance(Duration.ofSeconds(301));
        ApiResponse late = call(request);
        assertEquals(401, late.status());
        assertEquals("timestamp too old", late.json().get("detail").asText());
        clock.reset();
        // Well past the tolerance: the event was signed a moment ago, not at this instant.
        clock.advance(Duration.ofSeconds(-310));
        assertEquals("timestamp in the future", call(request).json().get("detail").asText());
        assertTrue(item("event#stripe#" + event.eventId()).isEmpty());
        clock.reset();
        clock.advance(Duration.ofSeconds(290));
        assertEquals(200, call(request).status(), "inside the tolerance");
    }

    @Test
    void rotationAcceptsEitherActiveSecretAndAnyOfSeveralV1() {
        Charged charged = payment(PaymentStatus.UNKNOWN, "pm_card_authenticationRequired");
        String paymentId = charged.paymentId();
        String retired = "whsec_retired_stripe_secret";
        // Our two active secrets, each alone; then Stripe rolling its secret: old and new v1 in one header.
        String a = eventAbout(PROCESSING, paymentId).body();
        assertEquals(200, call(StripeEvents.request(a, StripeEvents.signNow(a, WebhookTestProfile.STRIPE_SECRET)))
                .status());
        String b = eventAbout(PROCESSING, paymentId).body();
        assertEquals(200, call(StripeEvents.request(b, StripeEvents.signNow(b, WebhookTestProfile.NEXT_STRIPE_SECRET)))
                .status());
        String c = eventAbout(PROCESSING, paymentId).body();
        assertEquals(200, call(StripeEvents.request(c, StripeEvents.signNow(c, retired,
                WebhookTestProfile.STRIPE_SECRET))).status());
        String d = eventAbout(PROCESSING, paymentId).body();
        assertEquals(401, call(StripeEvents.request(d, StripeEvents.signNow(d, retired))).status());
    }

    // --- malformed, unknown ---------------------------------------------------------------------

    @Test
    void malformedStripeEventsWithValidSignaturesAre400AndStoreNothing() {
        Charged charged = payment(PaymentStatus.UNKNOWN, "pm_card_visa");
        String body = eventAbout(SUCCEEDED, charged.paymentId()).body();
        Map<String, String> broken = Map.of(
                body.replace("\"object\":\"payment_intent\"", "\"object\":\"charge\""), "data.object.object",
                body.replace("\"status\":\"succeeded\"", "\"status\":\"processing\""), "data.object.status",
                body.replace("\"currency\":\"eur\"", "\"currency\":\"euro\""), "data.object.currency",
                body.replace("{\"id\":\"evt_", "{\"id\":\"evt_1\",\"id\":\"evt_"), "body",
                body.replace("\"id\":\"evt_", "\"id\":\"ev_"), "id");
        broken.forEach((sent, field) -> {
            assertFalse(sent.equals(body), field);
            dynamoRequests.reset();
            ApiResponse response = call(StripeEvents.request(sent, StripeEvents.signNow(sent,
                    WebhookTestProfile.STRIPE_SECRET)));
            assertEquals(400, response.status(), response.body());
            assertEquals(field, response.json().at("/errors/0/field").asText());
            assertEquals(Map.of(), dynamoRequests.snapshot(), "nothing read, nothing stored");
        });
        assertEquals(PaymentStatus.UNKNOWN, payment(charged.paymentId()).status());
    }

    @Test
    void eventsAboutAPaymentOncepayDoesNotHaveAreKeptAsUnknownPayment() {
        String paymentId = Payment.newId();
        StripeEvents.createIntent(paymentId, 4200, "EUR", "pm_card_visa");
        for (String type : List.of(SUCCEEDED, PROCESSING)) {
            WebhookDelivery event = eventAbout(type, paymentId);
            ApiResponse answer = deliver(event);
            assertEquals(200, answer.status(), answer.body());
            assertEquals("unknown_payment", answer.json().get("outcome").asText(), type);
            assertEquals(paymentId, Attr.string(journalItem(event.eventId()), Table.PAYMENT_ID));
        }
    }

    // --- the simulator's own deliveries over HTTP -----------------------------------------------

    @Test
    void theSimulatorsStripeDeliveriesOverHttpSettleAPaymentWaitingForTheCustomer() throws Exception {
        try (ApiGatewayBridge gateway = new ApiGatewayBridge()) {
            Charged charged = payment(PaymentStatus.UNKNOWN, "pm_card_authenticationRequired");
            TestEnvironment.simulator().stripe().setWebhookTarget(gateway.webhookUrl(STRIPE),
                    WebhookTestProfile.STRIPE_SECRET);
            TestEnvironment.simulator().stripe().authenticate(charged.intentId(), true);
            assertTrue(TestEnvironment.simulator().stripe().awaitWebhooks(Duration.ofSeconds(20)));
            assertTrue(TestEnvironment.simulator().stripe().webhookAttempts().stream().allMatch(a -> a.status() == 200),
                    () -> TestEnvironment.simulator().stripe().webhookAttempts().toString());
            Payment settled = payment(charged.paymentId());
            assertEquals(PaymentStatus.SUCCEEDED, settled.status());
            assertEquals(charged.intentId(), settled.providerPaymentId());
        }
    }

    // --- helpers --------------------------------------------------------------------------------

    /** A payment of ours and the PaymentIntent created for it at the simulator's Stripe API. */
    private record Charged(String paymentId, String intentId) {
    }

    /**
     * The one factory of this class's payments: a PaymentIntent for 4200 EUR confirmed with
     * {@code paymentMethod} at the simulator's Stripe API for a new payment of account stripe/stripe-test,
     * stored as its charge run (epoch 1) left it: UNKNOWN (the answer was lost) or SUCCEEDED with
     * the PaymentIntent.
     */
    private Charged payment(PaymentStatus status, String paymentMethod) {
        String id = Payment.newId();
        String intentId = StripeEvents.createIntent(id, 4200, "EUR", paymentMethod);
        Instant now = clock.instant();
        assertTrue(payments.createPending(new Payment(id, "merchant-a", PaymentStatus.PENDING, 4200, "EUR",
                "order_" + id, null, null, null, null, now, now, 1, 0, STRIPE_TEST, now.plusSeconds(35), null, null),
                now.plusSeconds(70)));
        Transition run = switch (status) {
            case UNKNOWN -> new Transition(PaymentStatus.PENDING, PaymentStatus.UNKNOWN, null, null, "read timeout",
                    now.plusSeconds(30), OptionalLong.of(1));
            case SUCCEEDED -> new Transition(PaymentStatus.PENDING, PaymentStatus.SUCCEEDED, intentId, null, null, null,
                    OptionalLong.of(1));
            default -> throw new IllegalArgumentException("not a state a charge run leaves: " + status);
        };
        assertTrue(payments.apply(id, "merchant-a", run, Actor.chargeRun(1), now));
        return new Charged(id, intentId);
    }

    private Payment payment(String id) {
        return payments.find(id).orElseThrow();
    }

    private static Map<String, AttributeValue> journalItem(String eventId) {
        Map<String, AttributeValue> item = item("event#stripe#" + eventId);
        assertFalse(item.isEmpty(), "journal item for " + eventId);
        return item;
    }

    private static Map<String, AttributeValue> item(String key) {
        Map<String, AttributeValue> item = TestEnvironment.dynamo().getItem(b -> b.tableName(TestEnvironment.TABLE)
                .key(Map.of(Table.PK, AttributeValue.fromS(key))).consistentRead(true)).item();
        return item == null ? Map.of() : item;
    }
}
