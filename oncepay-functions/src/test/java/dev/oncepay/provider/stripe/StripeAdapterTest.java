package dev.oncepay.provider.stripe;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.oncepay.config.OncepayConfig;
import dev.oncepay.payment.Payment;
import dev.oncepay.payment.PaymentInstrument;
import dev.oncepay.payment.PaymentStatus;
import dev.oncepay.payment.ProviderAccount;
import dev.oncepay.provider.spi.AccountEndpoint;
import dev.oncepay.provider.spi.ChargeResult;
import dev.oncepay.provider.spi.FoundCharge;
import dev.oncepay.provider.spi.IndeterminateProviderFault;
import dev.oncepay.provider.spi.ProviderOutcome;
import dev.oncepay.provider.spi.ProviderReply;
import dev.oncepay.provider.spi.ReplyClass;
import dev.oncepay.sim.Faults;
import dev.oncepay.sim.LedgerEntry;
import dev.oncepay.sim.PspSimulator;
import dev.oncepay.testing.TestEnvironment;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The Stripe adapter against the simulator's Stripe mode over real HTTP: each exchange is sent by
 * the adapter, classified and read by it, with the simulator's ledger as the oracle of what was
 * charged. One exchange per call: the adapter never retries ({@code chargeRequests} counts them).
 */
@QuarkusTest
@WithTestResource(value = TestEnvironment.class, scope = TestResourceScope.GLOBAL)
class StripeAdapterTest {
    static final String API_KEY = "sk_test_oncepay";
    private static final ObjectMapper JSON = new ObjectMapper();

    @Inject
    StripeAdapter adapter;

    @Inject
    OncepayConfig config;

    private PspSimulator sim;
    private AccountEndpoint endpoint;

    @BeforeEach
    void cleanSlate() {
        sim = TestEnvironment.simulator();
        sim.reset();
        endpoint = endpoint(sim, API_KEY);
    }

    // --- PaymentIntent statuses -----------------------------------------------------------------

    @Test
    void aSucceededPaymentIntentOfOursIsACaptureWithItsId() {
        Payment payment = payment("pm_card_visa");

        ChargeResult result = chargeAnswer(payment);

        assertEquals(ProviderOutcome.SUCCEEDED, result.outcome(), result::toString);
        assertTrue(result.providerPaymentId().startsWith("pi_"), result.providerPaymentId());
        List<LedgerEntry> ledger = ledgerOf(payment);
        assertEquals(1, ledger.size());
        assertEquals("succeeded", ledger.get(0).status());
        assertEquals(payment.providerIdempotencyKey(), ledger.get(0).idempotencyKey());
        assertEquals(4200, ledger.get(0).amount());
        assertEquals("EUR", ledger.get(0).currency());
        assertEquals(1, sim.chargeRequests());
    }

    @Test
    void aDeclineIsFinalWithStripesDeclineCodeAndThePaymentIntentsId() {
        Payment generic = payment("pm_card_chargeDeclined");
        Payment insufficient = payment("pm_card_chargeDeclinedInsufficientFunds");

        ProviderReply genericReply = adapter.sendCharge(endpoint, generic);
        ChargeResult genericResult = read(genericReply, generic);
        ChargeResult insufficientResult = chargeAnswer(insufficient);

        assertEquals(402, genericReply.status());
        assertEquals(ProviderOutcome.FAILED, genericResult.outcome(), genericResult::toString);
        assertEquals("generic_decline", genericResult.declineCode());
        assertEquals(sim.stripe().paymentIntentId(generic.id()).orElseThrow(), genericResult.providerPaymentId());
        assertEquals(ProviderOutcome.FAILED, insufficientResult.outcome(), insufficientResult::toString);
        assertEquals("insufficient_funds", insufficientResult.declineCode());
        assertEquals("declined", ledgerOf(insufficient).get(0).status());
    }

    @Test
    void requiresActionHandsTheCustomerTheClientSecretAndNextActionAndSettlesByLookup() throws Exception {
        Payment approved = payment("pm_card_authenticationRequired");
        Payment refused = payment("pm_card_authenticationRequired");

        ChargeResult result = chargeAnswer(approved);
        ChargeResult refusedResult = chargeAnswer(refused);

        assertEquals(ProviderOutcome.UNKNOWN, result.outcome(), result::toString);
        String id = result.providerPaymentId();
        assertTrue(id.startsWith("pi_"), id);
        assertTrue(result.customerAction().clientSecret().startsWith(id + "_secret_"), "client secret of " + id);
        JsonNode nextAction = JSON.readTree(result.customerAction().nextActionJson());
        assertEquals("use_stripe_sdk", nextAction.get("type").asText());
        assertTrue(nextAction.get("use_stripe_sdk").isObject(), nextAction::toString);
        assertEquals(List.of(), ledgerOf(approved), "nothing is charged before the customer acts");
        assertEquals(List.of(ProviderOutcome.UNKNOWN), outcomes(lookup(withProviderId(approved, id))));

        sim.stripe().authenticate(id, true);
        sim.stripe().authenticate(refusedResult.providerPaymentId(), false);

        FoundCharge succeeded = single(lookup(withProviderId(approved, id)));
        assertEquals(ProviderOutcome.SUCCEEDED, succeeded.outcome(), succeeded::toString);
        // requires_payment_method after a failed attempt is a decline, with the attempt's code.
        FoundCharge failed = single(lookup(withProviderId(refused, refusedResult.providerPaymentId())));
        assertEquals(ProviderOutcome.FAILED, failed.outcome(), failed::toString);
        assertEquals("requires_payment_method", failed.providerStatus());
        assertEquals("payment_intent_authentication_failure", failed.declineCode());
    }

    @Test
    void processingIsNotFinalUntilStripeSettlesIt() {
        sim.stripe().settleLater(true);
        Payment succeeds = payment("pm_card_visa");
        Payment fails = payment("pm_card_visa");

        ChargeResult first = chargeAnswer(succeeds);
        ChargeResult second = chargeAnswer(fails);

        assertEquals(ProviderOutcome.UNKNOWN, first.outcome(), first::toString);
        assertTrue(first.providerPaymentId().startsWith("pi_"), "a processing charge is asked for by id later");
        assertNull(first.customerAction());
        assertEquals(ProviderOutcome.UNKNOWN, single(lookup(withProviderId(succeeds, first.providerPaymentId()))).outcome());

        sim.stripe().settle(first.providerPaymentId(), true);
        sim.stripe().settle(second.providerPaymentId(), false);

        assertEquals(ProviderOutcome.SUCCEEDED, single(lookup(withProviderId(succeeds, first.providerPaymentId()))).outcome());
        FoundCharge failed = single(lookup(withProviderId(fails, second.providerPaymentId())));
        assertEquals(ProviderOutcome.FAILED, failed.outcome());
        assertEquals("generic_decline", failed.declineCode());
    }

    @Test
    void aCanceledPaymentIntentIsFailedAsCanceled() {
        Payment payment = payment("pm_card_authenticationRequired");
        String id = chargeAnswer(payment).providerPaymentId();

        sim.stripe().cancel(id);

        FoundCharge canceled = single(lookup(withProviderId(payment, id)));
        assertEquals(ProviderOutcome.FAILED, canceled.outcome());
        assertEquals("canceled", canceled.declineCodeOrStatus());
    }

    @Test
    void aProcessingAnswerForACommittedChargeStaysUnknownWhileTheLookupTellsTheTruth() {
        sim.setFaults(Faults.none().withNonFinalRate(1.0));
        Payment payment = payment("pm_card_visa");

        ChargeResult result = chargeAnswer(payment);

        assertEquals(ProviderOutcome.UNKNOWN, result.outcome(), result::toString);
        assertEquals(ProviderOutcome.SUCCEEDED, single(lookup(payment)).outcome(), "search by our metadata");
    }

    // --- idempotency ----------------------------------------------------------------------------

    @Test
    void theSameChargeAgainIsStripesReplayOfTheFirstAnswerAndNoSecondCharge() {
        Payment payment = payment("pm_card_visa");

        ProviderReply first = adapter.sendCharge(endpoint, payment);
        ProviderReply again = adapter.sendCharge(endpoint, payment);

        assertNull(first.header("Idempotent-Replayed"));
        assertEquals("true", again.header("Idempotent-Replayed"));
        assertEquals(first.body(), again.body());
        assertEquals(read(first, payment), read(again, payment));
        assertEquals(1, ledgerOf(payment).size());
    }

    @Test
    void ourKeyWithOtherParametersIsAnIdempotencyErrorForReviewNeverADecline() {
        Payment payment = payment("pm_card_visa");
        chargeAnswer(payment);
        Payment tampered = new Payment(payment.id(), payment.tenant(), payment.status(), 9999, payment.currency(),
                payment.reference(), null, null, null, null, payment.createdAt(), payment.updatedAt(), 1, 0,
                payment.providerAccount(), payment.leaseExpiresAt(), payment.instrument(), null);

        ProviderReply reply = adapter.sendCharge(endpoint, tampered);
        ChargeResult result = read(reply, tampered);

        assertEquals(400, reply.status());
        assertEquals(ProviderOutcome.NEEDS_REVIEW, result.outcome(), result::toString);
        assertNull(result.declineCode());
        assertTrue(result.detail().contains("idempotency_error"), result.detail());
        assertEquals(1, ledgerOf(payment).size());
    }

    @Test
    void aKeyInUseAtStripeIsRetriedAndTheRetryGetsTheStoredAnswer() {
        sim.setFaults(Faults.none().withConflictRate(1.0));
        Payment payment = payment("pm_card_visa");

        ProviderReply inUse = adapter.sendCharge(endpoint, payment);
        sim.setFaults(Faults.none());
        ProviderReply retry = adapter.sendCharge(endpoint, payment);

        assertEquals(409, inUse.status());
        ReplyClass.Retry retryClass = assertInstanceOf(ReplyClass.Retry.class, adapter.classify(inUse));
        assertTrue(retryClass.maybeExecuted(), "the request holding the key may be charging");
        assertTrue(retryClass.detail().contains("idempotency_key_in_use"), retryClass.detail());
        assertEquals("true", retry.header("Idempotent-Replayed"));
        assertEquals(ProviderOutcome.SUCCEEDED, read(retry, payment).outcome());
        assertEquals(1, ledgerOf(payment).size());
    }

    @Test
    void aSecondRequestWhileTheFirstRunsAtStripeIsTheKeyInUseAndNeverASecondCharge() throws Exception {
        Payment payment = payment("pm_card_visa");
        sim.holdCharges();
        CompletableFuture<ProviderReply> first = CompletableFuture.supplyAsync(() -> adapter.sendCharge(endpoint, payment));
        assertTrue(sim.awaitHeldRequests(1, Duration.ofSeconds(10)), "the first request reached Stripe");

        ProviderReply second = adapter.sendCharge(endpoint, payment);
        sim.releaseCharges();

        assertEquals(409, second.status());
        assertTrue(assertInstanceOf(ReplyClass.Retry.class, adapter.classify(second)).maybeExecuted());
        assertEquals(ProviderOutcome.SUCCEEDED, read(first.get(10, TimeUnit.SECONDS), payment).outcome());
        assertEquals(1, ledgerOf(payment).size());
    }

    // --- errors and Stripe-Should-Retry ---------------------------------------------------------

    @Test
    void anApiErrorIsRetriedWithStripesRetryAfterAsMaybeExecuted() {
        sim.setFaults(Faults.none().withServerErrorRate(1.0).withServerErrorRetryAfterSeconds(3));
        Payment payment = payment("pm_card_visa");

        ProviderReply reply = adapter.sendCharge(endpoint, payment);

        assertTrue(reply.status() == 500 || reply.status() == 502, "status " + reply.status());
        assertEquals("true", reply.header("Stripe-Should-Retry"));
        ReplyClass.Retry retry = assertInstanceOf(ReplyClass.Retry.class, adapter.classify(reply));
        assertTrue(retry.maybeExecuted());
        assertEquals(Duration.ofSeconds(3), retry.retryAfter());
        assertEquals(1, sim.chargeRequests(), "the adapter sends once; retries are the common layer's");
    }

    @Test
    void aServerErrorStripeSaysNotToRetryIsNoAnswerAndTheSearchFindsTheCharge() {
        sim.stripe().scriptError(500, "api_error", null, Map.of("Stripe-Should-Retry", "false"), true);
        Payment payment = payment("pm_card_visa");

        ProviderReply reply = adapter.sendCharge(endpoint, payment);

        assertEquals(500, reply.status());
        ReplyClass.NoAnswer noAnswer = assertInstanceOf(ReplyClass.NoAnswer.class, adapter.classify(reply));
        assertTrue(noAnswer.maybeExecuted());
        FoundCharge found = single(lookup(payment));
        assertEquals(ProviderOutcome.SUCCEEDED, found.outcome());
        assertEquals(payment.id(), found.reference());
        assertEquals(4200L, found.amount());
        assertEquals("EUR", found.currency());
    }

    @Test
    void stripeShouldRetryDecidesWhereItIsPresent() {
        Payment payment = payment("pm_card_visa");
        sim.stripe().scriptError(409, "invalid_request_error", "idempotency_key_in_use",
                Map.of("Stripe-Should-Retry", "false"), false);
        sim.stripe().scriptError(400, "invalid_request_error", "lock_timeout", Map.of("Stripe-Should-Retry", "true"),
                false);
        sim.stripe().scriptError(503, "api_error", null, Map.of(), false);

        ReplyClass conflictNotToRetry = adapter.classify(adapter.sendCharge(endpoint, payment));
        ReplyClass badRequestToRetry = adapter.classify(adapter.sendCharge(endpoint, payment));
        ReplyClass serverErrorWithoutHeader = adapter.classify(adapter.sendCharge(endpoint, payment));

        assertTrue(assertInstanceOf(ReplyClass.NoAnswer.class, conflictNotToRetry).maybeExecuted());
        assertTrue(assertInstanceOf(ReplyClass.Retry.class, badRequestToRetry).maybeExecuted());
        assertInstanceOf(ReplyClass.Retry.class, serverErrorWithoutHeader);
        assertEquals(List.of(), ledgerOf(payment));
    }

    @Test
    void aRateLimitIsRetriedAfterRetryAfterInSecondsOrAsAnHttpDateAndRanNothing() {
        sim.setFaults(Faults.none().withRateLimitRate(1.0).withRetryAfterSeconds(2));
        Payment payment = payment("pm_card_visa");

        ProviderReply limited = adapter.sendCharge(endpoint, payment);
        sim.setFaults(Faults.none());
        String in30Seconds = DateTimeFormatter.RFC_1123_DATE_TIME.format(
                ZonedDateTime.now(ZoneOffset.UTC).plusSeconds(30).truncatedTo(ChronoUnit.SECONDS));
        sim.stripe().scriptError(429, "rate_limit_error", "rate_limit", Map.of("Retry-After", in30Seconds), false);
        ProviderReply limitedUntil = adapter.sendCharge(endpoint, payment);

        assertEquals(429, limited.status());
        ReplyClass.Retry retry = assertInstanceOf(ReplyClass.Retry.class, adapter.classify(limited));
        assertEquals(false, retry.maybeExecuted(), "a 429 ran nothing");
        assertEquals(Duration.ofSeconds(2), retry.retryAfter());
        Duration untilDate = assertInstanceOf(ReplyClass.Retry.class, adapter.classify(limitedUntil)).retryAfter();
        assertTrue(untilDate.compareTo(Duration.ofSeconds(25)) > 0 && untilDate.compareTo(Duration.ofSeconds(30)) <= 0,
                untilDate::toString);
        assertEquals(List.of(), ledgerOf(payment));
    }

    @Test
    void aRateLimitStripeSaysNotToRetryIsNoAnswerThatRanNothing() {
        sim.stripe().scriptError(429, "rate_limit_error", "rate_limit", Map.of("Stripe-Should-Retry", "false"), false);

        ReplyClass result = adapter.classify(adapter.sendCharge(endpoint, payment("pm_card_visa")));

        assertEquals(false, assertInstanceOf(ReplyClass.NoAnswer.class, result).maybeExecuted());
    }

    @Test
    void anInvalidRequestIsARefusalOfWhatWasSentWithStripesCode() {
        Payment unknownCard = payment("pm_card_unknownToStripe");

        ChargeResult result = chargeAnswer(unknownCard);

        assertEquals(ProviderOutcome.FAILED, result.outcome(), result::toString);
        assertEquals("provider_rejected_resource_missing", result.declineCode());
        assertNull(result.providerPaymentId());
        assertEquals(List.of(), ledgerOf(unknownCard));
    }

    @Test
    void aRefusedApiKeyIsCredentialsRefusedAndRanNothing() {
        AccountEndpoint wrongKey = endpoint(sim, "sk_live_not_for_this_account");
        Payment payment = payment("pm_card_visa");

        ReplyClass charge = adapter.classify(adapter.sendCharge(wrongKey, payment));
        ReplyClass lookup = adapter.classify(adapter.sendLookup(wrongKey, payment));

        assertInstanceOf(ReplyClass.CredentialsRefused.class, charge);
        assertInstanceOf(ReplyClass.CredentialsRefused.class, lookup);
        assertEquals(List.of(), ledgerOf(payment));
    }

    @Test
    void anAnswerWithoutAReadablePaymentIntentOfOursIsUnknownThoughTheChargeRan() {
        Payment empty = payment("pm_card_visa");
        Payment unreadable = payment("pm_card_visa");
        Payment another = payment("pm_card_visa");
        sim.setFaults(Faults.none().withEmptyBodyRate(1.0));
        ChargeResult emptyResult = chargeAnswer(empty);
        sim.setFaults(Faults.none());
        sim.scriptAnswerAfterCommit(200, "{\"id\":\"pi_1\",\"object\":\"payment_intent\",\"status\":");
        ChargeResult unreadableResult = chargeAnswer(unreadable);
        sim.scriptAnswerAfterCommit(200, "{\"id\":\"pi_other\",\"object\":\"payment_intent\",\"status\":\"succeeded\","
                + "\"amount\":4200,\"currency\":\"eur\",\"metadata\":{\"oncepay_payment_id\":\"pay_someoneelse\"}}");
        ChargeResult anotherResult = chargeAnswer(another);

        for (ChargeResult result : List.of(emptyResult, unreadableResult, anotherResult)) {
            assertEquals(ProviderOutcome.UNKNOWN, result.outcome(), result::toString);
            assertNull(result.providerPaymentId(), result::toString);
        }
        assertTrue(anotherResult.detail().contains("another PaymentIntent"), anotherResult.detail());
        assertEquals(1, ledgerOf(another).size(), "the charge ran; only its answer is no outcome");
    }

    @Test
    void everyRequestPinsStripesApiVersion() {
        Payment payment = payment("pm_card_visa");

        ProviderReply charge = adapter.sendCharge(endpoint, payment);
        ProviderReply search = adapter.sendLookup(endpoint, payment);
        ProviderReply retrieve = adapter.sendLookup(endpoint, withProviderId(payment, read(charge, payment).providerPaymentId()));

        for (ProviderReply reply : List.of(charge, search, retrieve)) {
            assertEquals(config.provider().stripe().apiVersion(), reply.header("Stripe-Version"), "the version Stripe answered in");
        }
    }

    // --- transport: failures propagate for the common layer ---------------------------------------

    @Test
    void aRefusedConnectionPropagatesAsAConnectFailureNothingRan() throws Exception {
        int closedPort;
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            closedPort = socket.getLocalPort();
        }
        AccountEndpoint nobody = new AccountEndpoint(ACCOUNT, URI.create("http://127.0.0.1:" + closedPort), API_KEY);

        RuntimeException failure = assertThrows(RuntimeException.class, () -> adapter.sendCharge(nobody, payment("pm_card_visa")));

        assertTrue(causedBy(failure, ConnectException.class), () -> "a connect failure the common layer can tell: " + failure);
    }

    @Test
    void aConnectionDroppedAfterSendingPropagatesAsNoConnectFailure() {
        sim.setFaults(Faults.none().withResetRate(1.0));
        Payment payment = payment("pm_card_visa");

        RuntimeException failure = assertThrows(RuntimeException.class, () -> adapter.sendCharge(endpoint, payment));

        assertTrue(!causedBy(failure, ConnectException.class), () -> "it may have run: " + failure);
        assertEquals(1, sim.chargeRequests(), "sent once, never again by the adapter");
    }

    @Test
    void anAnswerLaterThanTheReadTimeoutPropagatesAfterItAndTheChargeRan() {
        sim.setFaults(Faults.none().withCommitThenTimeoutRate(1.0).withCommitThenTimeoutMs(30_000));
        Payment payment = payment("pm_card_visa");

        long started = System.nanoTime();
        assertThrows(RuntimeException.class, () -> adapter.sendCharge(endpoint, payment));
        Duration waited = Duration.ofNanos(System.nanoTime() - started);
        Duration readTimeout = config.provider().readTimeout();

        assertTrue(waited.compareTo(readTimeout) >= 0 && waited.compareTo(readTimeout.plusSeconds(10)) < 0,
                () -> "waited " + waited + " for a read timeout of " + readTimeout);
        assertEquals(1, ledgerOf(payment).size());
        assertEquals(1, sim.chargeRequests());
    }

    // --- lookups --------------------------------------------------------------------------------

    @Test
    void aSearchWithinStripesLagIsAWellFormedNoneWhileTheIdFindsTheCharge() {
        sim.setFaults(Faults.none().withLookupLagMs(60_000));
        Payment payment = payment("pm_card_visa");
        String id = chargeAnswer(payment).providerPaymentId();

        List<FoundCharge> bySearch = lookup(payment);
        List<FoundCharge> byId = lookup(withProviderId(payment, id));

        assertEquals(List.of(), bySearch, "not indexed yet: none, which reconcile weighs against lookupLag");
        assertEquals(Duration.ofHours(1), adapter.defaultLookupLag());
        assertEquals(id, single(byId).id());
        assertEquals(ProviderOutcome.SUCCEEDED, single(byId).outcome());
    }

    @Test
    void aSearchForAPaymentNeverChargedIsNone() {
        assertEquals(List.of(), lookup(payment("pm_card_visa")));
    }

    @Test
    void aSearchAnswerWithoutItsDataListIsNoAnswerNeverNone() {
        Payment payment = payment("pm_card_visa");
        chargeAnswer(payment);
        sim.setFaults(Faults.none().withMalformedLookupRate(1.0));

        for (int i = 0; i < 3; i++) { // the simulator's three shapes, seeded
            ProviderReply reply = adapter.sendLookup(endpoint, payment);
            assertEquals(200, reply.status());
            assertInstanceOf(ReplyClass.Answer.class, adapter.classify(reply));
            assertThrows(IndeterminateProviderFault.class, () -> adapter.readLookup(reply, payment), reply::body);
        }
    }

    @Test
    void aLookupOfAPaymentIntentStripeDoesNotKnowIsNoAnswerNeverNone() {
        Payment payment = withProviderId(payment("pm_card_visa"), "pi_neverCreated");

        ProviderReply reply = adapter.sendLookup(endpoint, payment);

        assertEquals(404, reply.status());
        assertThrows(IndeterminateProviderFault.class, () -> adapter.readLookup(reply, payment));
    }

    @Test
    void aLookupDuringAnOutageIsRetried() {
        sim.setFaults(Faults.none().withOutage(true));

        ReplyClass result = adapter.classify(adapter.sendLookup(endpoint, payment("pm_card_visa")));

        assertInstanceOf(ReplyClass.Retry.class, result);
    }

    // --- the instrument -------------------------------------------------------------------------

    @Test
    void aChargeNeedsAPaymentMethodIdAndAtMostACustomerId() {
        assertEquals(List.of(), adapter.check(new PaymentInstrument("pm_card_visa", null)));
        assertEquals(List.of(), adapter.check(new PaymentInstrument("pm_1PqR2sT3uV4wX5yZ", "cus_Q1w2E3r4")));
        assertEquals("paymentMethod", adapter.check(PaymentInstrument.NONE).get(0).field());
        assertEquals("paymentMethod", adapter.check(new PaymentInstrument("", null)).get(0).field());
        assertEquals("paymentMethod", adapter.check(new PaymentInstrument("card_4242", null)).get(0).field());
        assertEquals("paymentMethod", adapter.check(new PaymentInstrument("pm_card visa", null)).get(0).field());
        assertEquals("paymentMethod", adapter.check(new PaymentInstrument("pm_" + "x".repeat(251), null)).get(0).field());
        assertEquals("customer", adapter.check(new PaymentInstrument("pm_card_visa", "cust_1")).get(0).field());
        assertEquals("customer", adapter.check(new PaymentInstrument("pm_card_visa", "cus_")).get(0).field());
        assertEquals(2, adapter.check(new PaymentInstrument(null, "cus_a'b")).size());
    }

    @Test
    void theChargeCarriesTheCustomerAndTheMerchantsReference() {
        Payment payment = new Payment(Payment.newId(), "merchant-stripe", PaymentStatus.PENDING, 1999, "USD",
                "order_77", "two mugs", null, null, null, Instant.now(), Instant.now(), 1, 0, ACCOUNT,
                Instant.now().plusSeconds(35), new PaymentInstrument("pm_card_mastercard", "cus_42"), null);

        ChargeResult result = chargeAnswer(payment);
        JsonNode intent = readTree(adapter.sendLookup(endpoint, withProviderId(payment, result.providerPaymentId())).body());

        assertEquals(ProviderOutcome.SUCCEEDED, result.outcome(), result::toString);
        assertEquals("usd", intent.get("currency").asText());
        assertEquals("cus_42", intent.get("customer").asText());
        assertEquals("pm_card_mastercard", intent.get("payment_method").asText());
        assertEquals("two mugs", intent.get("description").asText());
        assertEquals(payment.id(), intent.get("metadata").get("oncepay_payment_id").asText());
        assertEquals("order_77", intent.get("metadata").get("oncepay_reference").asText());
    }

    // --- support --------------------------------------------------------------------------------

    static final ProviderAccount ACCOUNT = new ProviderAccount(StripeAdapter.ID, "stripe-test");

    static AccountEndpoint endpoint(PspSimulator sim, String apiKey) {
        return new AccountEndpoint(ACCOUNT, URI.create(sim.baseUrl()), apiKey);
    }

    static Payment payment(String paymentMethod) {
        Instant now = Instant.now();
        String id = Payment.newId();
        return new Payment(id, "merchant-stripe", PaymentStatus.PENDING, 4200, "EUR", "order-" + id.substring(4, 12),
                null, null, null, null, now, now, 1, 0, ACCOUNT, now.plusSeconds(35),
                new PaymentInstrument(paymentMethod, null), null);
    }

    static Payment withProviderId(Payment p, String providerPaymentId) {
        return new Payment(p.id(), p.tenant(), PaymentStatus.UNKNOWN, p.amount(), p.currency(), p.reference(),
                p.description(), providerPaymentId, null, null, p.createdAt(), p.updatedAt(), p.leaseEpoch(), 0,
                p.providerAccount(), p.leaseExpiresAt(), p.instrument(), null);
    }

    /** Sends the charge and reads it, after checking the reply is an answer to read. */
    private ChargeResult chargeAnswer(Payment payment) {
        return read(adapter.sendCharge(endpoint, payment), payment);
    }

    private ChargeResult read(ProviderReply reply, Payment payment) {
        assertInstanceOf(ReplyClass.Answer.class, adapter.classify(reply), () -> reply.status() + " " + reply.body());
        return adapter.readCharge(reply, payment);
    }

    private List<FoundCharge> lookup(Payment payment) {
        ProviderReply reply = adapter.sendLookup(endpoint, payment);
        assertInstanceOf(ReplyClass.Answer.class, adapter.classify(reply), () -> reply.status() + " " + reply.body());
        return adapter.readLookup(reply, payment);
    }

    private static boolean causedBy(Throwable error, Class<? extends Throwable> type) {
        for (Throwable t = error; t != null; t = t.getCause()) {
            if (type.isInstance(t)) {
                return true;
            }
        }
        return false;
    }

    private static List<ProviderOutcome> outcomes(List<FoundCharge> found) {
        return found.stream().map(FoundCharge::outcome).toList();
    }

    private static FoundCharge single(List<FoundCharge> found) {
        assertEquals(1, found.size(), found::toString);
        return found.get(0);
    }

    private List<LedgerEntry> ledgerOf(Payment payment) {
        return sim.ledger().stream().filter(entry -> payment.id().equals(entry.reference())).toList();
    }

    private static JsonNode readTree(String body) {
        try {
            return JSON.readTree(body);
        } catch (Exception e) {
            throw new AssertionError("not JSON: " + body, e);
        }
    }
}
