package dev.oncepay.provider.stripe;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.stripe.StripeClient;
import com.stripe.model.Refund;
import com.stripe.net.ApiResource;
import com.stripe.net.RequestOptions;
import com.stripe.param.RefundCreateParams;
import com.sun.net.httpserver.HttpServer;
import dev.oncepay.config.OncepayConfig;
import dev.oncepay.payment.Payment;
import dev.oncepay.payment.RefundStatus;
import dev.oncepay.provider.spi.AccountEndpoint;
import dev.oncepay.provider.spi.FoundRefund;
import dev.oncepay.provider.spi.IndeterminateProviderFault;
import dev.oncepay.provider.spi.ProviderOutcome;
import dev.oncepay.provider.spi.ProviderReply;
import dev.oncepay.provider.spi.RefundResult;
import dev.oncepay.provider.spi.ReplyClass;
import dev.oncepay.testing.TestEnvironment;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Refunds through Stripe's Refunds API: what the adapter sends (against a loopback server that
 * records each request, and against stripe-java's own encoding of the same refund), and how it
 * reads each answer Stripe may give, strictly: only Stripe's final word about this very refund is
 * final, and a lookup never says "none" unless a whole, well-formed list says so.
 */
@QuarkusTest
@WithTestResource(value = TestEnvironment.class, scope = TestResourceScope.GLOBAL)
class StripeRefundsTest {
    private static final String INTENT = "pi_3Qrefunds";

    @Inject
    StripeAdapter adapter;
    @Inject
    OncepayConfig config;

    private final Payment payment = StripeAdapterTest.withProviderId(StripeAdapterTest.payment("pm_card_visa"), INTENT);
    private final dev.oncepay.payment.Refund refund = refund(1500, "requested_by_customer", Map.of("ticket", "T-9"));
    private final List<Recorded> requests = new CopyOnWriteArrayList<>();
    private volatile String answer = "{}";
    private HttpServer server;
    private AccountEndpoint endpoint;

    /** One request as the loopback server received it. */
    record Recorded(String method, String pathAndQuery, Map<String, List<String>> headers, String body) {
        String header(String name) {
            List<String> values = headers.get(name);
            return values == null ? null : values.get(0);
        }
    }

    @BeforeEach
    void startServer() throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/", exchange -> {
            String body = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
            requests.add(new Recorded(exchange.getRequestMethod(), exchange.getRequestURI().toString(),
                    Map.copyOf(exchange.getRequestHeaders()), body));
            byte[] reply = answer.getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().set("Content-Type", "application/json");
            exchange.sendResponseHeaders(200, reply.length);
            exchange.getResponseBody().write(reply);
            exchange.close();
        });
        server.start();
        endpoint = new AccountEndpoint(StripeAdapterTest.ACCOUNT,
                URI.create("http://127.0.0.1:" + server.getAddress().getPort()), StripeAdapterTest.API_KEY);
    }

    @AfterEach
    void stopServer() {
        server.stop(0);
    }

    // --- what is sent ---------------------------------------------------------------------------

    @Test
    void aRefundIsOneFormPostOfThePaymentIntentUnderTheRefundsKey() {
        answer = stripeRefund("succeeded", "");

        ProviderReply reply = adapter.sendRefund(endpoint, refund, payment);

        assertEquals(200, reply.status());
        Recorded sent = single();
        assertEquals("POST", sent.method());
        assertEquals("/v1/refunds", sent.pathAndQuery());
        assertEquals("Bearer " + StripeAdapterTest.API_KEY, sent.header("Authorization"));
        assertEquals(config.provider().stripe().apiVersion(), sent.header("Stripe-version"));
        assertEquals("oncepay-" + refund.id(), sent.header("Idempotency-key"));
        assertTrue(sent.header("Content-type").startsWith("application/x-www-form-urlencoded"), sent.header("Content-type"));
        assertEquals("payment_intent=" + INTENT + "&amount=1500&reason=requested_by_customer&metadata[ticket]=T-9"
                + "&metadata[oncepay_refund_id]=" + refund.id() + "&metadata[oncepay_payment_id]=" + payment.id(),
                sent.body(), "no currency: a PaymentIntent's refund is in its currency");
    }

    @Test
    void aFreeTextReasonTravelsInTheMetadataAndOurKeysWinOverTheMerchants() {
        dev.oncepay.payment.Refund freeText = refund(700, "Mug arrived broken & chipped",
                Map.of("oncepay_refund_id", "ref_forged", "z key", "ü=1", "a", "b"));

        adapter.sendRefund(endpoint, freeText, payment);

        List<String> fields = List.of(single().body().split("&"));
        assertEquals(List.of("payment_intent=" + INTENT, "amount=700", "metadata[a]=b", "metadata[z+key]=%C3%BC%3D1",
                "metadata[oncepay_refund_id]=" + freeText.id(), "metadata[oncepay_payment_id]=" + payment.id(),
                "metadata[oncepay_reason]=Mug+arrived+broken+%26+chipped"), fields);
        assertFalse(fields.stream().anyMatch(field -> field.startsWith("reason=")), "Stripe takes only its three words");
    }

    @Test
    void theFormHasStripeJavasParametersForTheSameRefund() throws Exception {
        answer = stripeRefund("succeeded", "");
        StripeClient stripe = StripeClient.builder().setApiKey(StripeAdapterTest.API_KEY)
                .setApiBase(endpoint.baseUrl().toString()).setMaxNetworkRetries(0).build();
        RefundCreateParams params = RefundCreateParams.builder()
                .setPaymentIntent(INTENT)
                .setAmount(refund.amount())
                .setReason(RefundCreateParams.Reason.REQUESTED_BY_CUSTOMER)
                .putMetadata("ticket", "T-9")
                .putMetadata("oncepay_refund_id", refund.id())
                .putMetadata("oncepay_payment_id", payment.id())
                .build();

        Refund created = stripe.v1().refunds().create(params,
                RequestOptions.builder().setIdempotencyKey(refund.providerIdempotencyKey()).build());
        adapter.sendRefund(endpoint, refund, payment);

        assertEquals(2, requests.size());
        Recorded byStripeJava = requests.get(0);
        Recorded ours = requests.get(1);
        assertEquals(byStripeJava.pathAndQuery(), ours.pathAndQuery());
        assertEquals(byStripeJava.header("Idempotency-key"), ours.header("Idempotency-key"));
        assertEquals(sortedPairs(byStripeJava.body()), sortedPairs(ours.body()));
        assertEquals(created.getId(), adapter.readRefund(new ProviderReply(200, Map.of(), answer), refund).providerRefundId());
    }

    @Test
    void theLookupListsThePaymentIntentsRefundsOnOnePageOfOneHundred() {
        answer = "{\"object\":\"list\",\"data\":[],\"has_more\":false,\"url\":\"/v1/refunds\"}";

        ProviderReply reply = adapter.sendRefundLookup(endpoint, refund, payment);

        Recorded sent = single();
        assertEquals("GET", sent.method());
        assertEquals("/v1/refunds?payment_intent=" + INTENT + "&limit=100", sent.pathAndQuery());
        assertEquals("Bearer " + StripeAdapterTest.API_KEY, sent.header("Authorization"));
        assertEquals(config.provider().stripe().apiVersion(), sent.header("Stripe-version"));
        assertNull(sent.header("Idempotency-key"));
        assertEquals(List.of(), adapter.readRefundLookup(reply, refund));
    }

    @Test
    void aPaymentWithoutAPaymentIntentIsNeverRefundedNorLookedUp() {
        for (String id : new String[] { null, "ch_3Q", "pi_" }) {
            Payment noIntent = StripeAdapterTest.withProviderId(payment, id);
            assertThrows(IllegalArgumentException.class, () -> adapter.sendRefund(endpoint, refund, noIntent), id);
            assertThrows(IllegalArgumentException.class, () -> adapter.sendRefundLookup(endpoint, refund, noIntent), id);
        }
        assertEquals(List.of(), requests);
    }

    // --- the answer -----------------------------------------------------------------------------

    @ParameterizedTest
    @CsvSource(nullValues = "null", value = {
        "succeeded, null, SUCCEEDED, null",
        "failed, expired_or_canceled_card, FAILED, expired_or_canceled_card",
        "failed, null, FAILED, failed",
        "canceled, null, FAILED, canceled",
        "canceled, merchant_request, FAILED, merchant_request",
        "pending, null, UNKNOWN, null",
        "requires_action, null, UNKNOWN, null",
        "Succeeded, null, UNKNOWN, null",
        "refunded, null, UNKNOWN, null" })
    void eachRefundStatusMapsToItsOutcome(String status, String failureReason, ProviderOutcome outcome, String failureCode) {
        String extra = failureReason == null ? "" : ",\"failure_reason\":\"" + failureReason + "\"";

        RefundResult result = read(200, stripeRefund(status, extra));

        assertEquals(outcome, result.outcome(), result::toString);
        assertEquals("re_3Qrefund", result.providerRefundId(), "Stripe holds it: asked for by the lookup later");
        assertEquals(failureCode, result.failureCode());
        if (outcome == ProviderOutcome.UNKNOWN) {
            assertTrue(result.detail().contains("'" + status + "', not final"), result.detail());
        }
    }

    @Test
    void aRefundWithoutStatusIsNotFinal() {
        RefundResult result = read(200, stripeRefund("succeeded", "").replace("\"status\":\"succeeded\"", "\"status\":null"));

        assertEquals(RefundResult.unknown("re_3Qrefund", result.detail()), result);
    }

    @Test
    void onlyARefundOfOursIsAnAnswerAboutIt() {
        String ours = stripeRefund("succeeded", "");
        assertEquals(RefundResult.succeeded("re_3Qrefund"), read(200, ours));
        assertEquals(RefundResult.succeeded("re_3Qrefund"), read(200, ours.replace(
                "\"metadata\":{\"oncepay_refund_id\":\"" + refund.id() + "\",", "\"metadata\":{")),
                "without our id in its metadata, the answer under our key is ours");
        assertEquals(RefundResult.succeeded("pyr_3Qrefund"), read(200, ours.replace("re_3Qrefund", "pyr_3Qrefund")));
        for (String notOurs : List.of(
                ours.replace(refund.id(), "ref_00000000000000000000000000000000"),
                ours.replace("\"amount\":1500", "\"amount\":1501"),
                ours.replace("\"amount\":1500", "\"amount\":\"1500\""),
                ours.replace("\"amount\":1500,", ""),
                ours.replace("\"currency\":\"eur\"", "\"currency\":\"usd\""),
                ours.replace("\"object\":\"refund\"", "\"object\":\"payment_intent\""),
                ours.replace("\"re_3Qrefund\"", "\"ch_3Qrefund\""),
                "[" + ours + "]",
                "{\"status\":\"succeeded\"",
                "")) {
            RefundResult result = read(200, notOurs);
            assertEquals(ProviderOutcome.UNKNOWN, result.outcome(), notOurs);
            assertNull(result.providerRefundId(), notOurs);
        }
        assertTrue(read(200, ours.replace("\"amount\":1500", "\"amount\":1501")).detail().contains("another Refund"));
    }

    @ParameterizedTest
    @CsvSource(nullValues = "null", value = {
        "400, invalid_request_error, amount_too_large, FAILED, amount_too_large",
        "400, invalid_request_error, charge_already_refunded, FAILED, charge_already_refunded",
        "404, invalid_request_error, resource_missing, FAILED, resource_missing",
        "402, invalid_request_error, charge_disputed, FAILED, charge_disputed",
        "400, invalid_request_error, null, FAILED, provider_rejected_400",
        "400, idempotency_error, null, NEEDS_REVIEW, null",
        "422, invalid_request_error, amount_too_large, UNKNOWN, null",
        "402, card_error, card_declined, UNKNOWN, null",
        "400, api_error, null, UNKNOWN, null" })
    void eachStripeErrorIsARefusalForReviewOrNoOutcome(int status, String type, String code, ProviderOutcome outcome,
            String failureCode) {
        String body = "{\"error\":{\"type\":\"" + type + "\"" + (code == null ? "" : ",\"code\":\"" + code + "\"")
                + ",\"message\":\"from Stripe\"}}";

        RefundResult result = read(status, body);

        assertEquals(outcome, result.outcome(), result::toString);
        assertEquals(failureCode, result.failureCode());
        assertNull(result.providerRefundId());
        if (outcome == ProviderOutcome.NEEDS_REVIEW) {
            assertTrue(result.detail().contains("idempotency_error") && result.detail().contains(refund.providerIdempotencyKey()),
                    result.detail());
        }
    }

    @Test
    void anErrorAnswerWithoutStripesErrorIsNoOutcome() {
        for (String body : new String[] { null, "", "<html>Bad Request</html>", "{\"error\":{\"code\":\"amount_too_large\"}}" }) {
            assertEquals(ProviderOutcome.UNKNOWN, read(400, body).outcome(), body);
        }
    }

    @Test
    void serverErrorsRateLimitsAndAKeyInUseAreTheCommonLayersToRetry() {
        ReplyClass.Retry serverError = assertInstanceOf(ReplyClass.Retry.class,
                adapter.classify(new ProviderReply(500, Map.of(), "{\"error\":{\"type\":\"api_error\"}}")));
        ReplyClass.Retry rateLimited = assertInstanceOf(ReplyClass.Retry.class,
                adapter.classify(new ProviderReply(429, Map.of(), "{\"error\":{\"type\":\"rate_limit_error\"}}")));
        ReplyClass.Retry keyInUse = assertInstanceOf(ReplyClass.Retry.class, adapter.classify(new ProviderReply(409,
                Map.of(), "{\"error\":{\"type\":\"invalid_request_error\",\"code\":\"idempotency_key_in_use\"}}")));

        assertTrue(serverError.maybeExecuted(), "a refund may have run");
        assertFalse(rateLimited.maybeExecuted());
        assertTrue(keyInUse.maybeExecuted());
    }

    // --- the lookup -----------------------------------------------------------------------------

    @Test
    void theLookupFindsOnlyOurRefundAmongThePaymentIntents() {
        String ours = stripeRefund("failed", ",\"failure_reason\":\"lost_or_stolen_card\"");
        String dashboardRefund = "{\"id\":\"re_3Qdashboard\",\"object\":\"refund\",\"amount\":100,\"currency\":\"eur\","
                + "\"metadata\":{},\"payment_intent\":\"" + INTENT + "\",\"status\":\"succeeded\"}";
        String anotherOfOurs = stripeRefund("succeeded", "").replace(refund.id(), "ref_11111111111111111111111111111111")
                .replace("re_3Qrefund", "re_3Qother");

        List<FoundRefund> found = lookup(list(false, dashboardRefund, ours, anotherOfOurs));

        assertEquals(List.of(new FoundRefund("re_3Qrefund", ProviderOutcome.FAILED, "failed", refund.id(), 1500L, "EUR",
                "lost_or_stolen_card")), found);
    }

    @Test
    void aFoundRefundCarriesTheSameStatusMappingAsTheAnswer() {
        FoundRefund pending = single(lookup(list(false, stripeRefund("pending", ""))));
        FoundRefund canceled = single(lookup(list(true, stripeRefund("canceled", ""))));
        FoundRefund succeeded = single(lookup(list(false, stripeRefund("succeeded", ""))));

        assertEquals(ProviderOutcome.UNKNOWN, pending.outcome());
        assertNull(pending.failureCode());
        assertEquals(ProviderOutcome.FAILED, canceled.outcome(), "ours is on this page, whatever the next pages hold");
        assertEquals("canceled", canceled.failureCodeOrStatus());
        assertEquals(ProviderOutcome.SUCCEEDED, succeeded.outcome());
        assertEquals(1500L, succeeded.amount());
    }

    @Test
    void noneIsAnAnswerOnlyFromTheLastPage() {
        String others = "{\"id\":\"re_3Qdashboard\",\"object\":\"refund\",\"amount\":100,\"currency\":\"eur\","
                + "\"status\":\"succeeded\"}";

        assertEquals(List.of(), lookup(list(false)));
        assertEquals(List.of(), lookup(list(false, others)));
        assertThrows(IndeterminateProviderFault.class, () -> lookup(list(true, others)), "ours may be on a later page");
        assertThrows(IndeterminateProviderFault.class, () -> lookup(list(true)));
    }

    @Test
    void aMalformedLookupAnswerIsNoAnswerNeverNone() {
        String ours = stripeRefund("succeeded", "");
        for (String noAnswer : List.of(
                "{\"object\":\"list\",\"data\":[]}",
                "{\"object\":\"list\",\"data\":[],\"has_more\":\"false\"}",
                "{\"object\":\"list\",\"has_more\":false}",
                "{\"object\":\"list\",\"data\":{},\"has_more\":false}",
                "{\"object\":\"search_result\",\"data\":[],\"has_more\":false}",
                "{\"data\":[],\"has_more\":false}",
                list(false, "1"),
                list(false, ours.replace("\"object\":\"refund\"", "\"object\":\"charge\"")),
                list(false, ours, ours.replace("\"re_3Qrefund\"", "\"3Qrefund\"")),
                ours,
                "[]",
                "not json",
                "")) {
            assertThrows(IndeterminateProviderFault.class, () -> lookup(noAnswer), noAnswer);
        }
        for (int status : new int[] { 404, 400, 500 }) {
            ProviderReply error = new ProviderReply(status, Map.of(),
                    "{\"error\":{\"type\":\"invalid_request_error\",\"code\":\"resource_missing\"}}");
            assertThrows(IndeterminateProviderFault.class, () -> adapter.readRefundLookup(error, refund), "HTTP " + status);
        }
    }

    // --- support --------------------------------------------------------------------------------

    /** A Refund object of ours, as Stripe's API (the version stripe-java pins) returns it. */
    private String stripeRefund(String status, String extra) {
        return "{\"id\":\"re_3Qrefund\",\"object\":\"refund\",\"amount\":1500,\"balance_transaction\":\"txn_3Q\","
                + "\"charge\":\"ch_3Q\",\"created\":1764669000,\"currency\":\"eur\","
                + "\"destination_details\":{\"card\":{\"reference_status\":\"pending\",\"type\":\"refund\"},\"type\":\"card\"},"
                + "\"metadata\":{\"oncepay_refund_id\":\"" + refund.id() + "\",\"oncepay_payment_id\":\"" + payment.id() + "\"},"
                + "\"payment_intent\":\"" + INTENT + "\",\"reason\":\"requested_by_customer\",\"receipt_number\":null,"
                + "\"source_transfer_reversal\":null,\"status\":\"" + status + "\",\"transfer_reversal\":null" + extra + "}";
    }

    private static String list(boolean hasMore, String... refunds) {
        return "{\"object\":\"list\",\"data\":[" + String.join(",", refunds) + "],\"has_more\":" + hasMore
                + ",\"url\":\"/v1/refunds\"}";
    }

    private RefundResult read(int status, String body) {
        ProviderReply reply = new ProviderReply(status, Map.of(), body);
        assertInstanceOf(ReplyClass.Answer.class, adapter.classify(reply), () -> status + " " + body);
        return adapter.readRefund(reply, refund);
    }

    private List<FoundRefund> lookup(String body) {
        return adapter.readRefundLookup(new ProviderReply(200, Map.of(), body), refund);
    }

    private Recorded single() {
        assertEquals(1, requests.size(), requests::toString);
        return requests.get(0);
    }

    private static FoundRefund single(List<FoundRefund> found) {
        assertEquals(1, found.size(), found::toString);
        return found.get(0);
    }

    /** A form's name=value pairs, decoded and sorted: the parameters, whatever their order. */
    private static List<String> sortedPairs(String form) {
        List<String> pairs = new ArrayList<>();
        for (String pair : form.split("&")) {
            pairs.add(URLDecoder.decode(pair, StandardCharsets.UTF_8));
        }
        pairs.sort(null);
        return pairs;
    }

    private dev.oncepay.payment.Refund refund(long amount, String reason, Map<String, String> metadata) {
        Instant now = Instant.now();
        return new dev.oncepay.payment.Refund(dev.oncepay.payment.Refund.newId(), payment.id(), payment.tenant(),
                RefundStatus.PENDING, amount, "EUR", reason, metadata, null, null, null, now, now, 1,
                now.plusSeconds(35), 0, StripeAdapterTest.ACCOUNT);
    }
}
