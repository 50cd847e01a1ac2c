package dev.oncepay.webhook;

import dev.oncepay.payment.Actor;
import static dev.oncepay.webhook.WebhookRequests.call;
import static dev.oncepay.webhook.WebhookRequests.chargeEvent;
import static dev.oncepay.webhook.WebhookRequests.event;
import static dev.oncepay.webhook.WebhookRequests.newEventId;
import static dev.oncepay.webhook.WebhookRequests.sign;
import static dev.oncepay.webhook.WebhookRequests.signNow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.oncepay.function.WebhookFunction;
import dev.oncepay.http.HttpApiEvent;
import dev.oncepay.http.HttpApiResponse;
import dev.oncepay.payment.Payment;
import dev.oncepay.payment.PaymentRepository;
import dev.oncepay.payment.PaymentStatus;
import dev.oncepay.payment.ReviewReason;
import dev.oncepay.payment.ProviderAccount;
import dev.oncepay.provider.ProviderAccounts;
import dev.oncepay.payment.Transition;
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
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.UUID;
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
 * The {@code webhook} function through its real entry point (API Gateway event JSON through the
 * Lambda mock event server), except where true concurrency needs direct calls of the function bean.
 */
@QuarkusTest
@TestProfile(WebhookTestProfile.class)
@WithTestResource(value = TestEnvironment.class, scope = TestResourceScope.GLOBAL)
class WebhookFunctionTest {
    private static final String SIM = "sim";
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
    @Inject
    ProviderAccounts accounts;

    @BeforeEach
    void reset() {
        clock.reset();
        hooks.reset();
        TestEnvironment.simulator().reset();
        TestEnvironment.simulator().clearWebhookTarget();
    }

    @AfterEach
    void resetClock() {
        clock.reset();
    }

    // --- applied once ---------------------------------------------------------------------------

    @Test
    void appliesAValidEventAndAcknowledgesItsRedeliveryAsDuplicate() {
        String paymentId = unknownPayment(4200, "EUR");
        String eventId = newEventId();
        String body = chargeEvent(eventId, "charge.succeeded", paymentId, "ch_ok1", 4200, "EUR");

        dynamoRequests.reset();
        ApiResponse first = call(event(SIM, body, signNow(WebhookTestProfile.SIM_SECRET, body)));
        Map<String, Long> firstRequests = dynamoRequests.snapshot();

        assertEquals(200, first.status(), first.body());
        assertEquals("application/json", first.header("Content-Type"));
        assertEquals(eventId, first.json().get("eventId").asText());
        assertEquals("applied", first.json().get("outcome").asText());
        assertFalse(first.json().get("duplicate").asBoolean());
        Payment settled = payment(paymentId);
        assertEquals(PaymentStatus.SUCCEEDED, settled.status());
        assertEquals("ch_ok1", settled.providerPaymentId());
        assertEquals("webhook sim/" + eventId, settled.statusReason());
        Map<String, AttributeValue> paymentItem = item(Table.PK, "payment#" + paymentId);
        assertFalse(paymentItem.containsKey(Table.NEXT_CHECK_AT), "settled: out of the sweep index");
        assertFalse(paymentItem.containsKey(Table.SWEEP_SHARD));

        Map<String, AttributeValue> journal = journalItem(SIM, eventId);
        assertEquals("PROCESSED", Attr.string(journal, Table.EVENT_STATE));
        assertEquals("applied", Attr.string(journal, Table.EVENT_OUTCOME));
        assertEquals(Table.KIND_EVENT, Attr.string(journal, Table.KIND));
        assertEquals(paymentId, Attr.string(journal, Table.PAYMENT_ID));
        assertEquals(body, Attr.string(journal, Table.EVENT_BODY));
        long ttl = Attr.number(journal, Table.EXPIRES_AT, 0);
        long expected = clock.instant().plus(Duration.ofDays(7)).getEpochSecond();
        assertTrue(Math.abs(ttl - expected) < 60, "retention 7 days: " + ttl + " vs " + expected);

        // The provider retries (it did not see our 200, say): signed again, later.
        dynamoRequests.reset();
        ApiResponse again = call(event(SIM, body, sign(WebhookTestProfile.SIM_SECRET, body,
                Instant.now().getEpochSecond() + 1)));
        Map<String, Long> duplicateRequests = dynamoRequests.snapshot();
        assertEquals(200, again.status(), again.body());
        assertTrue(again.json().get("duplicate").asBoolean());
        assertEquals("applied", again.json().get("outcome").asText());
        assertEquals(settled, payment(paymentId), "a duplicate changes nothing");
        assertEquals(1, hooks.paymentWrites(eventId));

        System.out.println("DynamoDB requests per webhook event: first delivery " + firstRequests
                + ", duplicate " + duplicateRequests);
        assertEquals(Map.of("GetItem", 1L, "PutItem", 1L, "UpdateItem", 2L), firstRequests);
        // The payment is read first (a fact it already records needs no journal); then the journal's put
        // fails. On AWS the failed put returns the old item (ReturnValuesOnConditionCheckFailure): GetItem +
        // PutItem. dynalite ignores that option, so the journal reads the item: PutItem + 2 GetItem.
        assertEquals(Map.of("GetItem", 2L, "PutItem", 1L), duplicateRequests);
    }

    @Test
    void theSameEventDeliveredFiveTimesConcurrentlyIsAppliedOnce() throws Exception {
        ExecutorService threads = Executors.newFixedThreadPool(5);
        try {
            for (int round = 0; round < 3; round++) {
                String paymentId = unknownPayment(4200, "EUR");
                String eventId = newEventId();
                String body = chargeEvent(eventId, "charge.succeeded", paymentId, "ch_c" + round, 4200, "EUR");
                HttpApiEvent delivery = json.readValue(event(SIM, body, signNow(WebhookTestProfile.SIM_SECRET, body)),
                        HttpApiEvent.class);
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
                assertEquals(1, hooks.paymentWrites(eventId), "exactly one delivery moved the payment");
                assertEquals(PaymentStatus.SUCCEEDED, payment(paymentId).status());
                assertEquals("PROCESSED", Attr.string(journalItem(SIM, eventId), Table.EVENT_STATE));
            }
        } finally {
            threads.shutdownNow();
        }
    }

    // --- the state machine ----------------------------------------------------------------------

    @Test
    void outOfOrderEventsNeverMoveAPaymentBackwards() {
        String paymentId = unknownPayment(4200, "EUR");
        assertEquals("applied", deliver(chargeEvent(newEventId(), "charge.succeeded", paymentId, "ch_o", 4200, "EUR")));
        Payment succeeded = payment(paymentId);

        // A "pending" event (a type oncepay does not apply) arriving late: acknowledged, ignored.
        String pending = "{\"id\":\"" + newEventId() + "\",\"type\":\"charge.pending\",\"data\":{\"chargeId\":\"ch_o\","
                + "\"reference\":\"" + paymentId + "\",\"status\":\"pending\",\"amount\":4200,\"currency\":\"EUR\"}}";
        assertEquals("ignored_type", deliver(pending));
        // The same fact again under another event id (the provider re-emitted it): one read, no write,
        // no journal item (the usual case: the charge run settled the payment before its webhook came).
        String reEmitted = newEventId();
        dynamoRequests.reset();
        assertEquals("already_settled",
                deliver(chargeEvent(reEmitted, "charge.succeeded", paymentId, "ch_o", 4200, "EUR")));
        assertEquals(Map.of("GetItem", 1L), dynamoRequests.snapshot());
        assertTrue(journalItemOrEmpty(SIM, reEmitted).isEmpty(), "nothing to apply, nothing journaled");
        assertEquals(succeeded, payment(paymentId), "nothing changed, not even updatedAt");

        // A failed event after succeeded never makes it FAILED: contradicting facts go to review.
        String failedId = newEventId();
        assertEquals("conflict", deliver(chargeEvent(failedId, "charge.failed", paymentId, "ch_o", 4200, "EUR")));
        Payment review = payment(paymentId);
        assertEquals(PaymentStatus.NEEDS_REVIEW, review.status());
        assertEquals("webhook sim/" + failedId + ": charge.failed contradicts recorded SUCCEEDED", review.statusReason());
        assertEquals("ch_o", review.providerPaymentId());

        // Further facts leave a payment under review alone.
        assertEquals("under_review",
                deliver(chargeEvent(newEventId(), "charge.succeeded", paymentId, "ch_o", 4200, "EUR")));
        assertEquals(review, payment(paymentId));
    }

    @Test
    void conflictingTerminalFactMovesToNeedsReview() {
        // The charge run recorded a decline; the provider later says the same charge succeeded.
        String paymentId = settledPayment(PaymentStatus.FAILED, "ch_d", 4200, "EUR");
        String eventId = newEventId();
        assertEquals("conflict", deliver(chargeEvent(eventId, "charge.succeeded", paymentId, "ch_d", 4200, "EUR")));
        Payment review = payment(paymentId);
        assertEquals(PaymentStatus.NEEDS_REVIEW, review.status());
        assertTrue(review.statusReason().contains("charge.succeeded contradicts recorded FAILED"), review.statusReason());
        assertEquals("card_declined", review.declineCode(), "the recorded facts are kept for the reviewer");
        assertEquals(ReviewReason.CONFLICTING_FACTS, review.reviewReason());
        Map<String, AttributeValue> journal = journalItem(SIM, eventId);
        assertEquals("conflict", Attr.string(journal, Table.EVENT_OUTCOME));
        assertEquals(review.statusReason(), Attr.string(journal, Table.EVENT_OUTCOME_DETAIL));
    }

    @Test
    void amountCurrencyOrChargeMismatchIsAConflictNotApplied() {
        String unknown = unknownPayment(4200, "EUR");
        assertEquals("conflict", deliver(chargeEvent(newEventId(), "charge.succeeded", unknown, "ch_m1", 4300, "EUR")));
        assertEquals(PaymentStatus.NEEDS_REVIEW, payment(unknown).status());
        assertTrue(payment(unknown).statusReason().contains("amount 4300 != 4200"));
        assertNull(payment(unknown).providerPaymentId(), "a mismatching fact is not applied");

        // PENDING cannot jump to NEEDS_REVIEW: it goes through UNKNOWN, both conditional.
        String pending = pendingPayment(4200, "EUR");
        dynamoRequests.reset();
        assertEquals("conflict", deliver(chargeEvent(newEventId(), "charge.succeeded", pending, "ch_m2", 4200, "USD")));
        assertEquals(Map.of("GetItem", 1L, "PutItem", 1L, "UpdateItem", 3L), dynamoRequests.snapshot());
        assertEquals(PaymentStatus.NEEDS_REVIEW, payment(pending).status());
        assertTrue(payment(pending).statusReason().contains("currency USD != EUR"));
        assertEquals(ReviewReason.CONFLICTING_FACTS, payment(pending).reviewReason(), "kept through the UNKNOWN step");

        // Same outcome, different charge: a second charge for one payment is never "already settled".
        String succeeded = settledPayment(PaymentStatus.SUCCEEDED, "ch_first", 4200, "EUR");
        assertEquals("conflict",
                deliver(chargeEvent(newEventId(), "charge.succeeded", succeeded, "ch_second", 4200, "EUR")));
        assertEquals(PaymentStatus.NEEDS_REVIEW, payment(succeeded).status());
        assertEquals("ch_first", payment(succeeded).providerPaymentId());
    }

    @Test
    void aWebhookSettlesAPendingPaymentWithoutTheFenceAndTheRunsFencedSettleThenFails() {
        String paymentId = pendingPayment(4200, "EUR");
        assertEquals("applied", deliver(chargeEvent(newEventId(), "charge.failed", paymentId, "ch_p", 4200, "EUR")));
        assertEquals(PaymentStatus.FAILED, payment(paymentId).status());
        assertFalse(payment(paymentId).cancelPending(), "the generic PSP leaves no declined charge open");
        assertFalse(item(Table.PK, "payment#" + paymentId).containsKey(Table.NEXT_CHECK_AT), "out of the sweep index");
        // The charge run (epoch 1) now tries to record its timeout: its fenced write no longer matches.
        Instant now = clock.instant();
        assertFalse(payments.apply(paymentId, "merchant-a", new Transition(PaymentStatus.PENDING, PaymentStatus.UNKNOWN, null, null,
                "timeout", now.plusSeconds(30), OptionalLong.of(1)), Actor.chargeRun(1), now));
        assertEquals(PaymentStatus.FAILED, payment(paymentId).status());
    }

    // --- provider binding (design rule 15) ---------------------------------------------------------

    @Test
    void anEventFromAnotherProviderThanThePaymentsIsJournaledAsAConflictAcknowledgedAndNotApplied() {
        String paymentId = unknownPayment(4200, "EUR");
        Map<String, AttributeValue> before = item(Table.PK, "payment#" + paymentId);
        assertEquals(SIM, Attr.string(before, Table.PROVIDER), "the payment records its provider");
        assertEquals("default", Attr.string(before, Table.PROVIDER_ACCOUNT), "and its account");
        // Validly signed by Stripe, about a PaymentIntent naming this payment; but sim charged it.
        StripeEvents.createIntent(paymentId, 4200, "EUR", "pm_card_chargeDeclined");
        dev.oncepay.sim.WebhookDelivery stripeEvent = StripeEvents.eventAbout(StripeEvents.PAYMENT_FAILED, paymentId);
        String eventId = stripeEvent.eventId();
        String body = stripeEvent.body();

        ApiResponse answer = StripeEvents.deliver(stripeEvent);

        assertEquals(200, answer.status(), answer.body());
        assertEquals("provider_conflict", answer.json().get("outcome").asText());
        assertEquals(before, item(Table.PK, "payment#" + paymentId), "nothing applied, not a byte");
        assertEquals(0, hooks.paymentWrites(eventId));
        Map<String, AttributeValue> journal = journalItem(StripeEvents.PROVIDER, eventId);
        assertEquals("PROCESSED", Attr.string(journal, Table.EVENT_STATE));
        assertEquals("provider_conflict", Attr.string(journal, Table.EVENT_OUTCOME));
        assertTrue(Attr.string(journal, Table.EVENT_OUTCOME_DETAIL).contains("sim/default"),
                () -> Attr.string(journal, Table.EVENT_OUTCOME_DETAIL));
        assertEquals(body, Attr.string(journal, Table.EVENT_BODY), "kept for whoever looks into it");

        ApiResponse again = call(StripeEvents.request(body, StripeEvents.signNow(body, WebhookTestProfile.STRIPE_SECRET)));
        assertTrue(again.json().get("duplicate").asBoolean(), "its redelivery is a duplicate");
        assertEquals("provider_conflict", again.json().get("outcome").asText());
        // Not even a non-final event of the other provider is taken as news about this payment.
        assertEquals("provider_conflict", StripeEvents.deliver(StripeEvents.eventAbout(StripeEvents.REQUIRES_ACTION,
                paymentId)).json().get("outcome").asText());
        assertEquals(before, item(Table.PK, "payment#" + paymentId));
        // The payment's own provider still settles it.
        String simBody = chargeEvent(newEventId(), "charge.succeeded", paymentId, "ch_sim1", 4200, "EUR");
        assertEquals("applied", deliver(simBody));
        assertEquals(PaymentStatus.SUCCEEDED, payment(paymentId).status());
        assertEquals("ch_sim1", payment(paymentId).providerPaymentId());
    }

    @Test
    void aPaymentItemWithoutProviderOrAccountReadsAsTheDefaultAccount() {
        String paymentId = unknownPayment(4300, "EUR");
        Instant createdAt = payment(paymentId).createdAt();
        // An item without provider, account or lease end: it reads as the default account and the first run's lease.
        TestEnvironment.dynamo().updateItem(b -> b.tableName(TestEnvironment.TABLE)
                .key(Attr.key("payment#" + paymentId))
                .updateExpression("REMOVE #p, #a, #l").expressionAttributeNames(Map.of("#p", Table.PROVIDER,
                        "#a", Table.PROVIDER_ACCOUNT, "#l", Table.LEASE_EXPIRES_AT)));
        Payment old = payment(paymentId);
        assertEquals(new ProviderAccount(SIM, "default"), old.providerAccount());
        assertEquals(createdAt.plus(Duration.ofSeconds(35)), old.leaseExpiresAt(), "the first run's lease");

        StripeEvents.createIntent(paymentId, 4300, "EUR", "pm_card_visa");
        ApiResponse foreign = StripeEvents.deliver(StripeEvents.eventAbout(StripeEvents.SUCCEEDED, paymentId));
        assertEquals("provider_conflict", foreign.json().get("outcome").asText());
        assertEquals(PaymentStatus.UNKNOWN, payment(paymentId).status());
        assertEquals("applied", deliver(chargeEvent(newEventId(), "charge.succeeded", paymentId, "ch_sim2", 4300,
                "EUR")));
        assertEquals(PaymentStatus.SUCCEEDED, payment(paymentId).status());
    }

    // --- signatures -----------------------------------------------------------------------------

    enum BadSignature {
        WRONG_SECRET, TAMPERED_BODY, STALE_TIMESTAMP, FUTURE_TIMESTAMP, MALFORMED_HEADER, MISSING_HEADER
    }

    @ParameterizedTest
    @EnumSource(BadSignature.class)
    void badSignaturesAre401AndStoreNothing(BadSignature bad) {
        String paymentId = unknownPayment(4200, "EUR");
        Payment before = payment(paymentId);
        String eventId = newEventId();
        String body = chargeEvent(eventId, "charge.succeeded", paymentId, "ch_x", 4200, "EUR");
        long now = Instant.now().getEpochSecond();
        String secret = WebhookTestProfile.SIM_SECRET;
        String sent = body;
        String header = switch (bad) {
            case WRONG_SECRET -> sign("not-the-secret", body, now);
            case TAMPERED_BODY -> {
                sent = body.replace("\"amount\":4200", "\"amount\":4201");
                yield sign(secret, body, now);
            }
            case STALE_TIMESTAMP -> sign(secret, body, now - 360); // margins: the app checks a moment later
            case FUTURE_TIMESTAMP -> sign(secret, body, now + 360);
            case MALFORMED_HEADER -> sign(secret, body, now).replace(",v1=", ";v1=");
            case MISSING_HEADER -> null;
        };
        dynamoRequests.reset();
        ApiResponse response = call(event(SIM, sent, header));
        assertEquals(401, response.status(), response.body());
        assertEquals("application/problem+json", response.header("Content-Type"));
        assertEquals(INVALID_SIGNATURE, response.json().get("type").asText());
        assertFalse(response.body().contains(secret));
        assertEquals(Map.of(), dynamoRequests.snapshot(), "not a single DynamoDB request");
        assertTrue(journalItemOrEmpty(SIM, eventId).isEmpty(), "no journal item");
        assertEquals(before, payment(paymentId), "payment unchanged");
    }

    @Test
    void theApplicationClockDecidesTheTimestampTolerance() {
        String paymentId = unknownPayment(4200, "EUR");
        String eventId = newEventId();
        String body = chargeEvent(eventId, "charge.succeeded", paymentId, "ch_t", 4200, "EUR");
        String request = event(SIM, body, signNow(WebhookTestProfile.SIM_SECRET, body));
        clock.advance(Duration.ofSeconds(301));
        assertEquals(401, call(request).status());
        assertTrue(journalItemOrEmpty(SIM, eventId).isEmpty());
        clock.reset();
        assertEquals(200, call(request).status());
    }

    @Test
    void rotationAcceptsEitherActiveSecretPerProvider() {
        String paymentId = unknownPayment(4200, "EUR");
        String a = chargeEvent(newEventId(), "charge.succeeded", paymentId, "ch_r", 4200, "EUR");
        assertEquals(200, call(event(SIM, a, signNow(WebhookTestProfile.SIM_SECRET, a))).status());
        String b = chargeEvent(newEventId(), "charge.succeeded", paymentId, "ch_r", 4200, "EUR");
        assertEquals(200, call(event(SIM, b, signNow(WebhookTestProfile.NEXT_SIM_SECRET, b))).status());
        String c = chargeEvent(newEventId(), "charge.succeeded", paymentId, "ch_r", 4200, "EUR");
        assertEquals(401, call(event(SIM, c, signNow("retired-sim-secret", c))).status());
        // Secrets are per provider: Stripe's secret is no good on sim's endpoint, and vice versa.
        assertEquals(401, call(event(SIM, c, signNow(WebhookTestProfile.STRIPE_SECRET, c))).status());
        assertEquals(401, call(StripeEvents.request(c, StripeEvents.signNow(c, WebhookTestProfile.SIM_SECRET)))
                .status());
        assertTrue(journalItemOrEmpty(SIM, idOf(c)).isEmpty());
        assertTrue(journalItemOrEmpty(StripeEvents.PROVIDER, idOf(c)).isEmpty());
    }

    @Test
    void base64EncodedBodyIsVerifiedOverItsRawBytes() {
        String paymentId = unknownPayment(4200, "EUR");
        String eventId = newEventId();
        // Non-ASCII content: the signature covers the bytes as sent, not a re-encoding of them.
        String body = chargeEvent(eventId, "charge.succeeded", paymentId, "ch_b64", 4200, "EUR")
                .replace("\"data\":", "\"note\":\"Café ☕ — zurück\",\"data\":");
        byte[] raw = body.getBytes(StandardCharsets.UTF_8);
        String signature = signNow(WebhookTestProfile.SIM_SECRET, body);

        byte[] tampered = raw.clone();
        tampered[tampered.length - 3] ^= 1;
        ApiResponse rejected = call(WebhookRequests.base64Event(SIM, tampered, signature));
        assertEquals(401, rejected.status());

        ApiResponse accepted = call(WebhookRequests.base64Event(SIM, raw, signature));
        assertEquals(200, accepted.status(), accepted.body());
        assertEquals("applied", accepted.json().get("outcome").asText());
        assertEquals(PaymentStatus.SUCCEEDED, payment(paymentId).status());
        assertEquals(body, Attr.string(journalItem(SIM, eventId), Table.EVENT_BODY));
    }

    // --- unknown things and malformed input -----------------------------------------------------

    @Test
    void eventsForUnknownPaymentsAndTypesAreAcknowledgedAndKept() {
        String eventId = newEventId();
        String body = chargeEvent(eventId, "charge.succeeded", "pay_nobodyknows", "ch_u", 100, "EUR");
        dynamoRequests.reset();
        ApiResponse response = call(event(SIM, body, signNow(WebhookTestProfile.SIM_SECRET, body)));
        assertEquals(Map.of("GetItem", 1L, "PutItem", 1L, "UpdateItem", 1L), dynamoRequests.snapshot());
        assertEquals(200, response.status(), response.body());
        assertEquals("unknown_payment", response.json().get("outcome").asText());
        Map<String, AttributeValue> journal = journalItem(SIM, eventId);
        assertEquals("PROCESSED", Attr.string(journal, Table.EVENT_STATE));
        assertEquals("unknown_payment", Attr.string(journal, Table.EVENT_OUTCOME));
        assertEquals("pay_nobodyknows", Attr.string(journal, Table.PAYMENT_ID));
        assertEquals(body, Attr.string(journal, Table.EVENT_BODY));
        assertTrue(call(event(SIM, body, signNow(WebhookTestProfile.SIM_SECRET, body))).json().get("duplicate")
                .asBoolean());

        String typeId = newEventId();
        String refund = "{\"id\":\"" + typeId + "\",\"type\":\"charge.refunded\",\"data\":{\"reference\":\"pay_x\"}}";
        dynamoRequests.reset();
        ApiResponse ignored = call(event(SIM, refund, signNow(WebhookTestProfile.SIM_SECRET, refund)));
        assertEquals(Map.of("PutItem", 1L, "UpdateItem", 1L), dynamoRequests.snapshot(), "no payment read");
        assertEquals(200, ignored.status());
        assertEquals("ignored_type", ignored.json().get("outcome").asText());
        assertEquals("charge.refunded", Attr.string(journalItem(SIM, typeId), Table.EVENT_TYPE));
    }

    @Test
    void malformedEventsWithValidSignaturesAre400AndStoreNothing() {
        for (String[] c : new String[][] {
            { "{\"id\":\"evt_broken\",\"type\":", "body" },
            { "{\"id\":\"evt_noamount\",\"type\":\"charge.succeeded\",\"data\":{\"reference\":\"pay_1\",\"currency\":\"EUR\"}}",
                "data.amount" } }) {
            dynamoRequests.reset();
            ApiResponse response = call(event(SIM, c[0], signNow(WebhookTestProfile.SIM_SECRET, c[0])));
            assertEquals(400, response.status(), response.body());
            assertEquals("application/problem+json", response.header("Content-Type"));
            assertEquals(c[1], response.json().at("/errors/0/field").asText());
            assertEquals(Map.of(), dynamoRequests.snapshot(), "nothing read, nothing stored");
        }
        assertTrue(journalItemOrEmpty(SIM, "evt_noamount").isEmpty());
    }

    @Test
    void unknownProviderAndWrongMethodStoreNothing() {
        String body = chargeEvent(newEventId(), "charge.succeeded", "pay_1", "ch_1", 1, "EUR");
        dynamoRequests.reset();
        ApiResponse unknown = call(event("nobody", body, signNow(WebhookTestProfile.SIM_SECRET, body)));
        assertEquals(404, unknown.status());
        assertEquals("https://oncepay.dev/problems/not-found", unknown.json().get("type").asText());
        // Secrets alone make no endpoint: oncepay has no webhook format for acme.
        ApiResponse noFormat = call(event("acme", body, signNow(WebhookTestProfile.ACME_SECRET, body)));
        assertEquals(404, noFormat.status(), noFormat.body());
        String get = event(SIM, body, signNow(WebhookTestProfile.SIM_SECRET, body)).replace("\"method\":\"POST\"",
                "\"method\":\"GET\"");
        assertEquals(405, call(get).status());
        assertEquals(Map.of(), dynamoRequests.snapshot());
    }

    // --- crashes between the writes -------------------------------------------------------------

    @ParameterizedTest
    @EnumSource(WebhookPhase.class)
    void aCrashAfterAnyPhaseIsRecoveredByTheRedeliveryExactlyOnce(WebhookPhase phase) {
        String paymentId = unknownPayment(4200, "EUR");
        String eventId = newEventId();
        String body = chargeEvent(eventId, "charge.succeeded", paymentId, "ch_crash", 4200, "EUR");
        hooks.crashOnceAfter(phase);
        ApiResponse crashed = call(event(SIM, body, signNow(WebhookTestProfile.SIM_SECRET, body)));
        assertEquals(-1, crashed.status(), "the invocation failed: " + crashed.body());

        String state = Attr.string(journalItem(SIM, eventId), Table.EVENT_STATE);
        PaymentStatus status = payment(paymentId).status();
        switch (phase) {
            case JOURNALED -> {
                assertEquals("RECEIVED", state);
                assertEquals(PaymentStatus.UNKNOWN, status, "not applied yet");
            }
            case PAYMENT_UPDATED -> {
                assertEquals("RECEIVED", state);
                assertEquals(PaymentStatus.SUCCEEDED, status);
            }
            case PROCESSED -> {
                assertEquals("PROCESSED", state);
                assertEquals(PaymentStatus.SUCCEEDED, status);
            }
        }

        // The provider saw no 2xx and redelivers.
        ApiResponse redelivered = call(event(SIM, body, signNow(WebhookTestProfile.SIM_SECRET, body)));
        assertEquals(200, redelivered.status(), redelivered.body());
        assertEquals("applied", redelivered.json().get("outcome").asText());
        assertEquals(phase == WebhookPhase.PROCESSED, redelivered.json().get("duplicate").asBoolean());
        assertEquals(1, hooks.paymentWrites(eventId), "applied exactly once over both deliveries");
        assertEquals(PaymentStatus.SUCCEEDED, payment(paymentId).status());
        Map<String, AttributeValue> journal = journalItem(SIM, eventId);
        assertEquals("PROCESSED", Attr.string(journal, Table.EVENT_STATE));
        assertEquals("applied", Attr.string(journal, Table.EVENT_OUTCOME));
    }

    @Test
    void anExpiredJournalEntryCountsAsAbsentEvenBeforeTtlDeletesIt() {
        String paymentId = unknownPayment(4200, "EUR");
        String eventId = newEventId();
        String body = chargeEvent(eventId, "charge.succeeded", paymentId, "ch_e", 4200, "EUR");
        assertEquals("applied", deliver(body));
        String firstReceipt = Attr.string(journalItem(SIM, eventId), Table.RECEIVED_AT);

        clock.advance(Duration.ofDays(8));
        ApiResponse late = call(event(SIM, body, sign(WebhookTestProfile.SIM_SECRET, body,
                clock.instant().getEpochSecond())));
        assertEquals(200, late.status(), late.body());
        assertFalse(late.json().get("duplicate").asBoolean(), "past retention: journaled afresh");
        assertEquals("applied", late.json().get("outcome").asText(), "and recognised as the event that settled it");
        assertEquals(1, hooks.paymentWrites(eventId), "re-applying wrote nothing");
        assertNotEquals(firstReceipt, Attr.string(journalItem(SIM, eventId), Table.RECEIVED_AT));
    }

    // --- helpers --------------------------------------------------------------------------------

    /** Delivers a correctly signed event through the function; returns the outcome. */
    private String deliver(String body) {
        ApiResponse response = call(event(SIM, body, signNow(WebhookTestProfile.SIM_SECRET, body)));
        assertEquals(200, response.status(), response.body());
        return response.json().get("outcome").asText();
    }

    private String idOf(String body) {
        try {
            return json.readTree(body).get("id").asText();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /** A PENDING payment whose charge run (epoch 1) is still running. */
    private String pendingPayment(long amount, String currency) {
        String id = "pay_" + UUID.randomUUID().toString().replace("-", "");
        Instant now = clock.instant();
        Payment p = new Payment(id, "merchant-a", PaymentStatus.PENDING, amount, currency, "order_" + id, null, null,
                null, null, now, now, 1, 0, accounts.forTenant("merchant-a"), now.plusSeconds(35), null, null);
        assertTrue(payments.createPending(p, now.plusSeconds(70)));
        return id;
    }

    /** A payment whose charge call timed out: UNKNOWN, waiting for the sweep or a webhook. */
    private String unknownPayment(long amount, String currency) {
        String id = pendingPayment(amount, currency);
        Instant now = clock.instant();
        assertTrue(payments.apply(id, "merchant-a", new Transition(PaymentStatus.PENDING, PaymentStatus.UNKNOWN, null, null,
                "read timeout", now.plusSeconds(30), OptionalLong.of(1)), Actor.chargeRun(1), now));
        return id;
    }

    /** A payment the charge run settled with the provider's answer. */
    private String settledPayment(PaymentStatus to, String chargeId, long amount, String currency) {
        String id = pendingPayment(amount, currency);
        boolean failed = to == PaymentStatus.FAILED;
        assertTrue(payments.apply(id, "merchant-a", new Transition(PaymentStatus.PENDING, to, chargeId,
                failed ? "card_declined" : null, failed ? "declined" : null, null, OptionalLong.of(1)), Actor.chargeRun(1),
                clock.instant()));
        return id;
    }

    private Payment payment(String id) {
        return payments.find(id).orElseThrow();
    }

    private static Map<String, AttributeValue> journalItem(String provider, String eventId) {
        Map<String, AttributeValue> item = journalItemOrEmpty(provider, eventId);
        assertFalse(item.isEmpty(), "journal item for " + eventId);
        return item;
    }

    private static Map<String, AttributeValue> journalItemOrEmpty(String provider, String eventId) {
        return item(Table.PK, "event#" + provider + "#" + eventId);
    }

    private static Map<String, AttributeValue> item(String keyName, String key) {
        Map<String, AttributeValue> item = TestEnvironment.dynamo().getItem(b -> b.tableName(TestEnvironment.TABLE)
                .key(Map.of(keyName, AttributeValue.fromS(key))).consistentRead(true)).item();
        return item == null ? Map.of() : item;
    }
}
