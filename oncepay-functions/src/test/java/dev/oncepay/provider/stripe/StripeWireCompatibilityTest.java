package dev.oncepay.provider.stripe;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.stripe.Stripe;
import com.stripe.StripeClient;
import com.stripe.exception.CardException;
import com.stripe.exception.StripeException;
import com.stripe.model.PaymentIntent;
import com.stripe.model.PaymentIntentSearchResult;
import com.stripe.net.ApiResource;
import com.stripe.net.RequestOptions;
import com.stripe.param.PaymentIntentCreateParams;
import dev.oncepay.config.OncepayConfig;
import dev.oncepay.payment.Payment;
import dev.oncepay.provider.spi.AccountEndpoint;
import dev.oncepay.provider.spi.ChargeResult;
import dev.oncepay.provider.spi.FoundCharge;
import dev.oncepay.provider.spi.ProviderOutcome;
import dev.oncepay.provider.spi.ProviderReply;
import dev.oncepay.provider.spi.ReplyClass;
import dev.oncepay.sim.PspSimulator;
import dev.oncepay.testing.TestEnvironment;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The adapter and Stripe's own Java client (stripe-java 33.3.0, unmodified, network retries off)
 * agree on the wire. stripe-java makes the first request under the payment's provider key and the
 * adapter repeats it: the simulator, like Stripe, answers a key reused with other parameters with
 * {@code idempotency_error}, so a replay proves the adapter's form is stripe-java's parameter for
 * parameter; then both read the same body and must reach the same facts.
 */
@QuarkusTest
@WithTestResource(value = TestEnvironment.class, scope = TestResourceScope.GLOBAL)
class StripeWireCompatibilityTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @Inject
    StripeAdapter adapter;
    @Inject
    OncepayConfig config;

    private PspSimulator sim;
    private AccountEndpoint endpoint;
    private StripeClient stripe;

    @BeforeEach
    void cleanSlate() {
        sim = TestEnvironment.simulator();
        sim.reset();
        endpoint = StripeAdapterTest.endpoint(sim, StripeAdapterTest.API_KEY);
        stripe = StripeClient.builder().setApiKey(StripeAdapterTest.API_KEY).setApiBase(sim.baseUrl())
                .setMaxNetworkRetries(0).build();
    }

    @Test
    void theAdapterPinsTheApiVersionOfStripeJava() {
        assertEquals(Stripe.API_VERSION, config.provider().stripe().apiVersion());
    }

    @Test
    void aSucceededPaymentIntentStripeJavaCreatedIsReplayedToTheAdapterAndReadAlike() throws Exception {
        Payment payment = StripeAdapterTest.payment("pm_card_visa");
        PaymentIntent created = createWithStripeJava(payment);

        ProviderReply replay = adapter.sendCharge(endpoint, payment);
        ChargeResult result = read(replay, payment);

        assertEquals("true", replay.header("Idempotent-Replayed"), replay::body);
        assertEquals(ProviderOutcome.SUCCEEDED, result.outcome(), result::toString);
        assertEquals(created.getId(), result.providerPaymentId());
        assertEquals("succeeded", created.getStatus());
        assertEquals(1, sim.ledger().size());
    }

    @Test
    void aCustomerActionReadsAsStripeJavaReadsTheSamePaymentIntent() throws Exception {
        Payment payment = StripeAdapterTest.payment("pm_card_authenticationRequired");
        createWithStripeJava(payment);

        ProviderReply replay = adapter.sendCharge(endpoint, payment);
        ChargeResult result = read(replay, payment);
        PaymentIntent parsed = ApiResource.GSON.fromJson(replay.body(), PaymentIntent.class);

        assertEquals("true", replay.header("Idempotent-Replayed"), replay::body);
        assertEquals("requires_action", parsed.getStatus());
        assertEquals(parsed.getId(), result.providerPaymentId());
        assertEquals(parsed.getClientSecret(), result.customerAction().clientSecret());
        assertEquals(parsed.getNextAction().getType(),
                JSON.readTree(result.customerAction().nextActionJson()).get("type").asText());
        assertNotNull(parsed.getNextAction().getUseStripeSdk(), "next_action handed on whole, as stripe-java reads it");
    }

    @Test
    void aCardErrorCarriesTheDeclineCodeAndPaymentIntentStripeJavaReads() {
        for (String card : List.of("pm_card_chargeDeclined", "pm_card_chargeDeclinedInsufficientFunds")) {
            Payment payment = StripeAdapterTest.payment(card);
            CardException declined = assertThrows(CardException.class, () -> createWithStripeJava(payment));

            ProviderReply replay = adapter.sendCharge(endpoint, payment);
            ChargeResult result = read(replay, payment);

            assertEquals("true", replay.header("Idempotent-Replayed"), replay::body);
            assertEquals(ProviderOutcome.FAILED, result.outcome(), result::toString);
            assertEquals(declined.getDeclineCode(), result.declineCode());
            assertEquals(declined.getStripeError().getPaymentIntent().getId(), result.providerPaymentId());
        }
    }

    @Test
    void theAdaptersLookupsFindWhatStripeJavaSearchesAndRetrieves() throws Exception {
        Payment payment = StripeAdapterTest.payment("pm_card_visa");
        PaymentIntent created = createWithStripeJava(payment);

        ProviderReply search = lookup(payment);
        ProviderReply retrieve = lookup(StripeAdapterTest.withProviderId(payment, created.getId()));
        PaymentIntentSearchResult parsedSearch = ApiResource.GSON.fromJson(search.body(), PaymentIntentSearchResult.class);
        PaymentIntent parsedRetrieve = ApiResource.GSON.fromJson(retrieve.body(), PaymentIntent.class);

        FoundCharge found = adapter.readLookup(search, payment).get(0);
        assertEquals(1, parsedSearch.getData().size());
        assertEquals(parsedSearch.getData().get(0).getId(), found.id());
        assertEquals(parsedSearch.getData().get(0).getStatus(), found.providerStatus());
        assertEquals(parsedSearch.getData().get(0).getMetadata().get("oncepay_payment_id"), found.reference());
        assertEquals(parsedSearch.getData().get(0).getAmount(), found.amount());
        assertEquals(parsedSearch.getData().get(0).getCurrency().toUpperCase(Locale.ROOT), found.currency());
        assertEquals(List.of(found), adapter.readLookup(retrieve, payment));
        assertEquals(created.getId(), parsedRetrieve.getId());
        assertEquals(payment.id(), stripe.v1().paymentIntents().search(
                com.stripe.param.PaymentIntentSearchParams.builder()
                        .setQuery("metadata['oncepay_payment_id']:'" + payment.id() + "'").build())
                .getData().get(0).getMetadata().get("oncepay_payment_id"));
    }

    /** What the adapter sends for {@code payment}, sent by stripe-java under the payment's provider key. */
    private PaymentIntent createWithStripeJava(Payment payment) throws StripeException {
        PaymentIntentCreateParams params = PaymentIntentCreateParams.builder()
                .setAmount(payment.amount())
                .setCurrency(payment.currency().toLowerCase(Locale.ROOT))
                .setPaymentMethod(payment.instrument().paymentMethod())
                .setConfirm(true)
                .putMetadata("oncepay_payment_id", payment.id())
                .putMetadata("oncepay_reference", payment.reference())
                .build();
        return stripe.v1().paymentIntents().create(params,
                RequestOptions.builder().setIdempotencyKey(payment.providerIdempotencyKey()).build());
    }

    private ChargeResult read(ProviderReply reply, Payment payment) {
        assertEquals(ReplyClass.Answer.class, adapter.classify(reply).getClass(), reply::body);
        return adapter.readCharge(reply, payment);
    }

    private ProviderReply lookup(Payment payment) {
        ProviderReply reply = adapter.sendLookup(endpoint, payment);
        assertEquals(200, reply.status(), reply::body);
        return reply;
    }
}
