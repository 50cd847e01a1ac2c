package dev.oncepay.provider.stripe;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.stripe.exception.SignatureVerificationException;
import com.stripe.model.Event;
import com.stripe.model.PaymentIntent;
import com.stripe.model.Refund;
import com.stripe.net.Webhook;
import dev.oncepay.payment.PaymentStatus;
import dev.oncepay.payment.RefundStatus;
import dev.oncepay.provider.webhook.InvalidSignatureException;
import dev.oncepay.provider.webhook.MalformedEventException;
import dev.oncepay.provider.webhook.ProviderEvent;
import dev.oncepay.config.SigningSecret;
import dev.oncepay.provider.webhook.ProviderEvent.ChargeFact;
import dev.oncepay.provider.webhook.ProviderEvent.RefundFact;
import dev.oncepay.sim.StripeMode;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Stripe's event format on its own, and against the real client: stripe-java 33.3.0 signs and
 * verifies Stripe-Signature exactly as we do, and reads these events as we do.
 */
class StripeWebhookFormatTest {
    private static final String SECRET = "whsec_test_secret";
    private static final Duration TOLERANCE = Duration.ofSeconds(300);
    private static final Instant NOW = Instant.parse("2026-11-30T10:00:00Z");
    private static final long T = NOW.getEpochSecond();
    private static final StripeWebhookFormat TEST_MODE = new StripeWebhookFormat(false);

    /** A {@code payment_intent.*} event as Stripe sends it (API version of stripe-java 33.3.0). */
    private static String event(String type, String status, String lastPaymentError) {
        return "{\"id\":\"evt_1Q\",\"object\":\"event\",\"api_version\":\"2026-07-29.dahlia\",\"created\":" + T
                + ",\"data\":{\"object\":{\"id\":\"pi_3Q\",\"object\":\"payment_intent\",\"amount\":4200,"
                + "\"amount_received\":0,\"client_secret\":\"pi_3Q_secret_x\",\"currency\":\"eur\","
                + "\"last_payment_error\":" + lastPaymentError + ",\"latest_charge\":\"ch_3Q\",\"livemode\":false,"
                + "\"metadata\":{\"oncepay_payment_id\":\"pay_0123456789abcdef0123456789abcdef\",\"note\":\"Café ☕\"},"
                + "\"payment_method\":\"pm_card_visa\",\"status\":\"" + status + "\"}},"
                + "\"livemode\":false,\"pending_webhooks\":1,\"request\":{\"id\":null,\"idempotency_key\":\"oncepay-pay_0\"},"
                + "\"type\":\"" + type + "\"}";
    }

    private static final String CARD_ERROR = "{\"type\":\"card_error\",\"code\":\"card_declined\","
            + "\"decline_code\":\"insufficient_funds\",\"message\":\"Your card has insufficient funds.\"}";

    private static ProviderEvent parse(String body) {
        return StripeWebhookFormat.parse(body.getBytes(StandardCharsets.UTF_8), false);
    }

    // --- reading --------------------------------------------------------------------------------

    @ParameterizedTest
    @CsvSource(nullValues = "null", value = {
        "payment_intent.succeeded, succeeded, FACT, SUCCEEDED, null, false",
        "payment_intent.payment_failed, requires_payment_method, FACT, FAILED, insufficient_funds, true",
        "payment_intent.canceled, canceled, FACT, FAILED, canceled, false",
        "payment_intent.processing, processing, NOT_FINAL, null, null, false",
        "payment_intent.requires_action, requires_action, NOT_FINAL, null, null, false" })
    void readsEachPaymentIntentEvent(String type, String status, ProviderEvent.Kind kind, PaymentStatus outcome,
            String declineCode, boolean cancelRequired) {
        String error = type.endsWith("payment_failed") ? CARD_ERROR : "null";
        ProviderEvent e = parse(event(type, status, error));
        assertEquals("evt_1Q", e.id());
        assertEquals(type, e.type());
        assertEquals("pay_0123456789abcdef0123456789abcdef", e.reference());
        assertEquals(kind, e.kind());
        if (outcome == null) {
            assertTrue(e.fact().isEmpty());
            assertTrue(e.detail().contains("pi_3Q") && e.detail().contains(status), e.detail());
        } else {
            assertEquals(new ChargeFact(outcome, "pi_3Q", 4200, "EUR", declineCode, cancelRequired),
                    e.fact().orElseThrow(), "the PaymentIntent id is the charge id; currencies compare in upper case;"
                            + " a declined PaymentIntent left confirmable requires its cancel");
        }
    }

    @Test
    void aFailureWithoutDeclineCodeUsesTheErrorCode() {
        String error = "{\"type\":\"card_error\",\"code\":\"expired_card\"}";
        ChargeFact fact = parse(event("payment_intent.payment_failed", "requires_payment_method", error)).fact()
                .orElseThrow();
        assertEquals("expired_card", fact.declineCode());
        assertNull(parse(event("payment_intent.payment_failed", "requires_payment_method", "null")).fact()
                .orElseThrow().declineCode(), "no code invented");
    }

    @Test
    void eventsOfTheOtherModeOrWithoutOurMetadataAreNotOurs() {
        String body = event("payment_intent.succeeded", "succeeded", "null");
        assertNotOursInTheOtherModeOrWithout(body, ProviderEvent.Kind.FACT,
                "\"oncepay_payment_id\":\"pay_0123456789abcdef0123456789abcdef\",", "pi_3Q has no metadata.oncepay_payment_id");
        assertEquals(ProviderEvent.Kind.NOT_OURS,
                StripeWebhookFormat.parse(body.getBytes(StandardCharsets.UTF_8), true).kind(), "a live endpoint");
    }

    /**
     * {@code body} (a test-mode event of ours) is not ours as live at a test-mode endpoint, is
     * {@code kind} there at a live one, and is not ours without {@code ourMetadata}.
     */
    private static void assertNotOursInTheOtherModeOrWithout(String body, ProviderEvent.Kind kind, String ourMetadata,
            String foreignDetail) {
        String live = body.replace("\"livemode\":false,\"pending", "\"livemode\":true,\"pending");
        ProviderEvent e = parse(live);
        assertEquals(ProviderEvent.Kind.NOT_OURS, e.kind());
        assertEquals(parse(body).reference(), e.reference(), "the reference kept for the journal");
        assertEquals("a live-mode event at a test-mode endpoint", e.detail());
        assertEquals(kind, StripeWebhookFormat.parse(live.getBytes(StandardCharsets.UTF_8), true).kind(), "a live endpoint");

        assertTrue(body.contains(ourMetadata), ourMetadata);
        ProviderEvent foreign = parse(body.replace(ourMetadata, ""));
        assertEquals(ProviderEvent.Kind.NOT_OURS, foreign.kind());
        assertNull(foreign.reference());
        assertTrue(foreign.detail().contains(foreignDetail), foreign.detail());
    }

    @Test
    void otherTypesAreKeptWithoutValidatingTheirObject() {
        ProviderEvent charge = parse("{\"id\":\"evt_2\",\"object\":\"event\",\"type\":\"charge.refunded\","
                + "\"data\":{\"object\":{\"id\":\"ch_1\",\"object\":\"charge\",\"amount\":\"odd\","
                + "\"metadata\":{\"oncepay_payment_id\":\"pay_9\"}}}}");
        assertEquals(ProviderEvent.Kind.IGNORED_TYPE, charge.kind());
        assertEquals("pay_9", charge.reference());
        assertNull(parse("{\"id\":\"evt_3\",\"object\":\"event\",\"type\":\"customer.created\"}").reference());
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "\"id\":\"evt_1Q\"|\"id\":\"evt_1Q\",\"id\":\"evt_2\"|body",
        "\"id\":\"evt_1Q\"|\"id\":\"ev_1Q\"|id",
        "\"id\":\"evt_1Q\"|\"id\":\"evt 1Q\"|id",
        "\"object\":\"event\"|\"object\":\"evnt\"|object",
        "\"type\":\"payment_intent.succeeded\"|\"type\":7|type",
        "\"livemode\":false,\"pending|\"livemode\":\"false\",\"pending|livemode",
        "\"object\":\"payment_intent\"|\"object\":\"setup_intent\"|data.object.object",
        "\"id\":\"pi_3Q\"|\"id\":\"seti_3Q\"|data.object.id",
        "\"amount\":4200|\"amount\":42.5|data.object.amount",
        "\"amount\":4200|\"amount\":-1|data.object.amount",
        "\"currency\":\"eur\"|\"currency\":\"euro\"|data.object.currency",
        "\"status\":\"succeeded\"|\"status\":\"processing\"|data.object.status",
        "\"metadata\":{|\"metadata\":[],\"x\":{|data.object.metadata",
        "\"oncepay_payment_id\":\"pay_0123456789abcdef0123456789abcdef\"|\"oncepay_payment_id\":\"pay 0\"|data.object.metadata.oncepay_payment_id" })
    void rejectsWhatIsNotAStripePaymentIntentEvent(String find, String replacement, String field) {
        assertMalformed(event("payment_intent.succeeded", "succeeded", "null"), find, replacement, field);
    }

    /** {@code body} with its first {@code find} replaced is refused, naming {@code field}. */
    private static void assertMalformed(String body, String find, String replacement, String field) {
        assertTrue(body.contains(find), find);
        MalformedEventException e = assertThrows(MalformedEventException.class,
                () -> parse(body.replaceFirst(java.util.regex.Pattern.quote(find),
                        java.util.regex.Matcher.quoteReplacement(replacement))));
        assertEquals(field, e.field());
    }

    @Test
    void rejectsADataObjectMissingFromAPaymentIntentEvent() {
        assertEquals("data.object", assertThrows(MalformedEventException.class, () -> parse(
                "{\"id\":\"evt_4\",\"object\":\"event\",\"type\":\"payment_intent.succeeded\",\"livemode\":false}"))
                .field());
    }

    // --- refund events --------------------------------------------------------------------------

    private static final String REFUND_ID = "ref_0123456789abcdef0123456789abcdef";

    /** A {@code refund.*} event as Stripe sends it, its Refund of a PaymentIntent of ours. */
    private static String refundEvent(String type, String status, String failureReason) {
        return "{\"id\":\"evt_1R\",\"object\":\"event\",\"api_version\":\"2026-07-29.dahlia\",\"created\":" + T
                + ",\"data\":{\"object\":{\"id\":\"re_3Q\",\"object\":\"refund\",\"amount\":1500,"
                + "\"balance_transaction\":\"txn_3Q\",\"charge\":\"ch_3Q\",\"created\":" + T + ",\"currency\":\"eur\","
                + "\"failure_reason\":" + (failureReason == null ? "null" : "\"" + failureReason + "\"") + ","
                + "\"metadata\":{\"oncepay_refund_id\":\"" + REFUND_ID + "\","
                + "\"oncepay_payment_id\":\"pay_0123456789abcdef0123456789abcdef\"},"
                + "\"payment_intent\":\"pi_3Q\",\"reason\":\"requested_by_customer\",\"status\":\"" + status + "\"}},"
                + "\"livemode\":false,\"pending_webhooks\":1,\"request\":{\"id\":null,\"idempotency_key\":\"oncepay-"
                + REFUND_ID + "\"},\"type\":\"" + type + "\"}";
    }

    @ParameterizedTest
    @CsvSource(nullValues = "null", value = {
        "refund.created, succeeded, null, SUCCEEDED, null",
        "refund.created, pending, null, PENDING, null",
        "refund.created, requires_action, null, PENDING, null",
        "refund.updated, succeeded, null, SUCCEEDED, null",
        "refund.updated, canceled, null, FAILED, canceled",
        "refund.updated, failed, insufficient_funds, FAILED, insufficient_funds",
        "refund.updated, some_future_status, null, PENDING, null",
        "refund.failed, failed, expired_or_canceled_card, FAILED, expired_or_canceled_card",
        "refund.failed, failed, null, FAILED, failed",
        "refund.failed, canceled, merchant_request, FAILED, merchant_request" })
    void readsEachRefundEventByTheRefundsStatus(String type, String status, String failureReason, RefundStatus outcome,
            String failureCode) {
        ProviderEvent e = parse(refundEvent(type, status, failureReason));

        assertEquals("evt_1R", e.id());
        assertEquals(type, e.type());
        assertEquals(ProviderEvent.Kind.REFUND_FACT, e.kind());
        assertEquals(REFUND_ID, e.reference(), "our refund id, from the Refund's metadata");
        assertTrue(e.fact().isEmpty());
        assertEquals(new RefundFact(outcome, "re_3Q", 1500, "EUR", failureCode), e.refundFact().orElseThrow());
    }

    @Test
    void aRefundWithoutStatusIsPending() {
        ProviderEvent e = parse(refundEvent("refund.updated", "pending", null).replace("\"status\":\"pending\"", "\"status\":null"));

        assertEquals(RefundStatus.PENDING, e.refundFact().orElseThrow().outcome());
    }

    @Test
    void refundEventsOfTheOtherModeOrWithoutOurRefundIdAreNotOurs() {
        assertNotOursInTheOtherModeOrWithout(refundEvent("refund.updated", "succeeded", null), ProviderEvent.Kind.REFUND_FACT,
                "\"oncepay_refund_id\":\"" + REFUND_ID + "\",", "re_3Q has no metadata.oncepay_refund_id");
    }

    @Test
    void chargeRefundedIsKeptForAuditAsTheRefundEventsCarryTheFacts() {
        ProviderEvent e = parse("{\"id\":\"evt_5\",\"object\":\"event\",\"type\":\"charge.refunded\",\"livemode\":false,"
                + "\"data\":{\"object\":{\"id\":\"ch_3Q\",\"object\":\"charge\",\"amount\":4200,\"amount_refunded\":1500,"
                + "\"currency\":\"eur\",\"payment_intent\":\"pi_3Q\",\"refunded\":false,\"status\":\"succeeded\","
                + "\"metadata\":{\"oncepay_payment_id\":\"pay_0123456789abcdef0123456789abcdef\"}}}}");

        assertEquals(ProviderEvent.Kind.IGNORED_TYPE, e.kind());
        assertEquals("pay_0123456789abcdef0123456789abcdef", e.reference());
        assertTrue(e.refundFact().isEmpty() && e.fact().isEmpty());
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "\"livemode\":false,\"pending|\"livemode\":null,\"pending|livemode",
        "\"object\":\"refund\"|\"object\":\"charge\"|data.object.object",
        "\"id\":\"re_3Q\"|\"id\":\"ch_3Q\"|data.object.id",
        "\"amount\":1500|\"amount\":\"1500\"|data.object.amount",
        "\"currency\":\"eur\"|\"currency\":null|data.object.currency",
        "\"status\":\"failed\"|\"status\":\"succeeded\"|data.object.status",
        "\"status\":\"failed\"|\"status\":\"pending\"|data.object.status",
        "\"status\":\"failed\"|\"status\":7|data.object.status",
        "\"failure_reason\":\"declined\"|\"failure_reason\":\"not a code\"|data.object.failure_reason",
        "\"metadata\":{|\"metadata\":[],\"x\":{|data.object.metadata",
        "\"oncepay_refund_id\":\"ref_|\"oncepay_refund_id\":\" ref_|data.object.metadata.oncepay_refund_id" })
    void rejectsWhatIsNotAStripeRefundEvent(String find, String replacement, String field) {
        assertMalformed(refundEvent("refund.failed", "failed", "declined"), find, replacement, field);
    }

    @Test
    void rejectsARefundEventWithoutItsRefund() {
        assertEquals("data.object", assertThrows(MalformedEventException.class, () -> parse(
                "{\"id\":\"evt_6\",\"object\":\"event\",\"type\":\"refund.updated\",\"livemode\":false}"))
                .field());
    }

    @Test
    void stripeJavaReadsTheRefundEventAsWeDo() throws Exception {
        ReadByBoth both = readByBoth(refundEvent("refund.failed", "failed", "expired_or_canceled_card"));
        Refund refund = (Refund) both.stripeJava().getDataObjectDeserializer().getObject().orElseThrow();
        ProviderEvent ours = both.ours();
        RefundFact fact = ours.refundFact().orElseThrow();
        assertEquals(refund.getId(), fact.refundId());
        assertEquals(refund.getAmount().longValue(), fact.amount());
        assertEquals(refund.getCurrency().toUpperCase(java.util.Locale.ROOT), fact.currency());
        assertEquals(refund.getStatus(), fact.outcome().apiName());
        assertEquals(refund.getFailureReason(), fact.failureCode());
        assertEquals(refund.getMetadata().get(StripeRefund.REFERENCE_KEY), ours.reference());
    }

    // --- the signature, against stripe-java -----------------------------------------------------

    private static ProviderEvent read(String header, String body) {
        return TEST_MODE.read(header, body.getBytes(StandardCharsets.UTF_8), List.of(new SigningSecret("acct", SECRET)),
                NOW, TOLERANCE).event();
    }

    @Test
    void aHeaderStripeJavaGeneratesVerifiesWithOurs() throws Exception {
        String body = event("payment_intent.succeeded", "succeeded", "null");
        String header = Webhook.Signature.generateSignatureHeader(body, SECRET, T);
        assertEquals("Stripe-Signature", TEST_MODE.signatureHeader());
        assertEquals("evt_1Q", read(header, body).id());
        String mac = Webhook.Util.computeHmacSha256(SECRET, T + "." + body);
        assertDoesNotThrow(() -> read("t=" + T + ",v1=" + mac, body));
    }

    /** Stripe's headers that we accept, stripe-java accepts, and the other way round. */
    @Test
    void weAndStripeJavaAgreeOnEveryHeader() throws Exception {
        String body = event("payment_intent.succeeded", "succeeded", "null");
        String tampered = body.replace("4200", "4201");
        Clock stripeClock = Clock.fixed(NOW, ZoneOffset.UTC);
        String[][] cases = {
            { StripeMode.signWithEach(body, T, SECRET), body, "accept" },
            { StripeMode.signWithEach(body, T, "whsec_old", SECRET), body, "accept" },
            { StripeMode.signWithEach(body, T - 300, SECRET), body, "accept" },
            { StripeMode.signWithEach(body, T, "whsec_other"), body, "reject" },
            { StripeMode.signWithEach(body, T, SECRET), tampered, "reject" },
            { StripeMode.signWithEach(body, T - 301, SECRET), body, "reject" },
            { StripeMode.signWithEach(body, T, SECRET).replace("v1=", "v0="), body, "reject" },
            { "t=" + T, body, "reject" },
            { "garbage", body, "reject" } };
        for (String[] c : cases) {
            boolean ours = accepts(() -> read(c[0], c[1]));
            boolean stripeJava = accepts(() -> Webhook.Signature.verifyHeader(c[1], c[0], SECRET, 300, stripeClock));
            assertEquals(c[2].equals("accept"), ours, "ours: " + c[0]);
            assertEquals(ours, stripeJava, "stripe-java disagrees on " + c[0]);
        }
        // The one difference, deliberately: a timestamp far in the future is refused by us, not by stripe-java.
        String future = StripeMode.signWithEach(body, T + 301, SECRET);
        assertThrows(InvalidSignatureException.class, () -> read(future, body));
        assertTrue(Webhook.Signature.verifyHeader(body, future, SECRET, 300, stripeClock));
    }

    @Test
    void stripeJavaReadsTheEventAsWeDo() throws Exception {
        ReadByBoth both = readByBoth(event("payment_intent.payment_failed", "requires_payment_method", CARD_ERROR));
        PaymentIntent intent = (PaymentIntent) both.stripeJava().getDataObjectDeserializer().getObject().orElseThrow();
        ProviderEvent ours = both.ours();
        ChargeFact fact = ours.fact().orElseThrow();
        assertEquals(intent.getId(), fact.chargeId());
        assertEquals(intent.getAmount().longValue(), fact.amount());
        assertEquals(intent.getCurrency().toUpperCase(java.util.Locale.ROOT), fact.currency());
        assertEquals(intent.getMetadata().get(StripePaymentIntent.REFERENCE_KEY), ours.reference());
        assertEquals(intent.getLastPaymentError().getDeclineCode(), fact.declineCode());
    }

    /** One signed event as stripe-java reads it and as we read it. */
    private record ReadByBoth(Event stripeJava, ProviderEvent ours) {
    }

    /** Signs {@code body}, reads it both ways, and checks both name the same event. */
    private static ReadByBoth readByBoth(String body) throws SignatureVerificationException {
        String header = StripeMode.signWithEach(body, T, SECRET);
        Event event = Webhook.constructEvent(body, header, SECRET, 300, Clock.fixed(NOW, ZoneOffset.UTC));
        ProviderEvent ours = read(header, body);
        assertEquals(event.getId(), ours.id());
        assertEquals(event.getType(), ours.type());
        return new ReadByBoth(event, ours);
    }

    private static boolean accepts(SignatureCheck check) {
        try {
            check.run();
            return true;
        } catch (InvalidSignatureException | SignatureVerificationException refused) {
            return false;
        }
    }

    @FunctionalInterface
    private interface SignatureCheck {
        void run() throws SignatureVerificationException;
    }
}
