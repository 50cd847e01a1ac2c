package dev.oncepay.webhook;

import static dev.oncepay.webhook.StripeEvents.PROCESSING;
import static dev.oncepay.webhook.StripeEvents.SUCCEEDED;
import static dev.oncepay.webhook.StripeEvents.eventAbout;
import static dev.oncepay.webhook.WebhookRequests.call;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.oncepay.contract.Attr;
import dev.oncepay.contract.Table;
import dev.oncepay.payment.Actor;
import dev.oncepay.payment.Payment;
import dev.oncepay.payment.PaymentRepository;
import dev.oncepay.payment.PaymentStatus;
import dev.oncepay.payment.ProviderAccount;
import dev.oncepay.payment.Transition;
import dev.oncepay.sim.LedgerEntry;
import dev.oncepay.testing.LambdaClient.ApiResponse;
import dev.oncepay.testing.TestClock;
import dev.oncepay.testing.TestEnvironment;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import jakarta.inject.Inject;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * A webhook fact binds to the provider account whose signing secret verified it: two Stripe
 * accounts, A ({@code stripe-test}) and B ({@code stripe-other}), each with its own secrets, and
 * events delivered to {@code POST /webhooks/stripe} through the function's real entry point. An
 * event signed with A's secret about B's payment is acknowledged and journaled {@code not_ours},
 * and B's payment stays as it was.
 */
@QuarkusTest
@TestProfile(WebhookTestProfile.class)
@WithTestResource(value = TestEnvironment.class, scope = TestResourceScope.GLOBAL)
class WebhookAccountBindingTest {
    private static final ProviderAccount ACCOUNT_A = new ProviderAccount("stripe", WebhookTestProfile.STRIPE_ACCOUNT);
    private static final ProviderAccount ACCOUNT_B = new ProviderAccount("stripe", WebhookTestProfile.OTHER_STRIPE_ACCOUNT);

    @Inject
    PaymentRepository payments;
    @Inject
    TestClock clock;

    @BeforeEach
    void reset() {
        clock.reset();
        TestEnvironment.simulator().reset();
        TestEnvironment.simulator().stripe().clearWebhookTarget();
    }

    @Test
    void accountAsSecretOnAnEventAboutAccountBsPaymentIsJournaledNotOursAndChangesNothing() {
        String paymentOfB = unknownPayment(ACCOUNT_B);
        Map<String, AttributeValue> before = item("payment#" + paymentOfB);
        List<LedgerEntry> ledger = TestEnvironment.simulator().ledger();
        String body = eventAbout(SUCCEEDED, paymentOfB).body();

        ApiResponse answer = call(StripeEvents.request(body, StripeEvents.signNow(body,
                WebhookTestProfile.NEXT_STRIPE_SECRET)));

        assertEquals(200, answer.status(), answer.body());
        assertEquals("not_ours", answer.json().get("outcome").asText());
        String eventId = answer.json().get("eventId").asText();
        Map<String, AttributeValue> journal = journalItem(eventId);
        assertEquals("PROCESSED", Attr.string(journal, Table.EVENT_STATE));
        assertEquals("not_ours", Attr.string(journal, Table.EVENT_OUTCOME));
        String detail = Attr.string(journal, Table.EVENT_OUTCOME_DETAIL);
        assertTrue(detail.contains(ACCOUNT_A.toString()) && detail.contains(ACCOUNT_B.toString()), detail);
        assertFalse(detail.contains(WebhookTestProfile.NEXT_STRIPE_SECRET), "no secret in the journal");
        assertEquals(before, item("payment#" + paymentOfB), "not a byte of B's payment changed");
        assertEquals(PaymentStatus.UNKNOWN, payments.find(paymentOfB).orElseThrow().status());
        assertEquals(ledger, TestEnvironment.simulator().ledger(), "the simulator was not called");

        // Its redelivery is a duplicate of the same answer.
        ApiResponse again = call(StripeEvents.request(body, StripeEvents.signNow(body,
                WebhookTestProfile.NEXT_STRIPE_SECRET)));
        assertEquals(200, again.status(), again.body());
        assertTrue(again.json().get("duplicate").asBoolean());
        assertEquals("not_ours", again.json().get("outcome").asText());
        assertEquals(before, item("payment#" + paymentOfB));
    }

    @Test
    void aNotFinalEventSignedByAnotherAccountIsNotOursToo() {
        String paymentOfB = unknownPayment(ACCOUNT_B);
        Map<String, AttributeValue> before = item("payment#" + paymentOfB);
        String body = eventAbout(PROCESSING, paymentOfB).body();
        ApiResponse answer = call(StripeEvents.request(body, StripeEvents.signNow(body,
                WebhookTestProfile.NEXT_STRIPE_SECRET)));
        assertEquals(200, answer.status(), answer.body());
        assertEquals("not_ours", answer.json().get("outcome").asText());
        assertEquals(before, item("payment#" + paymentOfB));
    }

    @Test
    void eachAccountsOwnSecretSettlesItsOwnPayment() {
        String paymentOfA = unknownPayment(ACCOUNT_A);
        String paymentOfB = unknownPayment(ACCOUNT_B);

        String aboutA = eventAbout(SUCCEEDED, paymentOfA).body();
        ApiResponse byA = call(StripeEvents.request(aboutA, StripeEvents.signNow(aboutA,
                WebhookTestProfile.NEXT_STRIPE_SECRET)));
        assertEquals(200, byA.status(), byA.body());
        assertEquals("applied", byA.json().get("outcome").asText());
        assertEquals(PaymentStatus.SUCCEEDED, payments.find(paymentOfA).orElseThrow().status());

        String aboutB = eventAbout(SUCCEEDED, paymentOfB).body();
        ApiResponse byB = call(StripeEvents.request(aboutB, StripeEvents.signNow(aboutB,
                WebhookTestProfile.OTHER_STRIPE_SECRET)));
        assertEquals(200, byB.status(), byB.body());
        assertEquals("applied", byB.json().get("outcome").asText());
        Payment settled = payments.find(paymentOfB).orElseThrow();
        assertEquals(PaymentStatus.SUCCEEDED, settled.status());
        assertEquals(ACCOUNT_B, settled.providerAccount());
    }

    @Test
    void aRotatedSecretOfAccountAStillVerifiesForAccountAOnly() {
        String paymentOfA = unknownPayment(ACCOUNT_A);
        String paymentOfB = unknownPayment(ACCOUNT_B);
        Map<String, AttributeValue> beforeB = item("payment#" + paymentOfB);

        // STRIPE_SECRET is A's previous secret, still active during the overlap.
        String aboutB = eventAbout(SUCCEEDED, paymentOfB).body();
        ApiResponse onB = call(StripeEvents.request(aboutB, StripeEvents.signNow(aboutB,
                WebhookTestProfile.STRIPE_SECRET)));
        assertEquals(200, onB.status(), onB.body());
        assertEquals("not_ours", onB.json().get("outcome").asText());
        assertEquals(beforeB, item("payment#" + paymentOfB));

        String aboutA = eventAbout(SUCCEEDED, paymentOfA).body();
        ApiResponse onA = call(StripeEvents.request(aboutA, StripeEvents.signNow(aboutA,
                WebhookTestProfile.STRIPE_SECRET)));
        assertEquals(200, onA.status(), onA.body());
        assertEquals("applied", onA.json().get("outcome").asText());
        assertEquals(PaymentStatus.SUCCEEDED, payments.find(paymentOfA).orElseThrow().status());
    }

    @Test
    void anEventSignedWithNoKnownSecretIs401AndNothingIsJournaled() {
        String paymentOfB = unknownPayment(ACCOUNT_B);
        Map<String, AttributeValue> before = item("payment#" + paymentOfB);
        String body = eventAbout(SUCCEEDED, paymentOfB).body();
        String eventId = body.substring(body.indexOf("evt_"), body.indexOf('"', body.indexOf("evt_")));

        ApiResponse answer = call(StripeEvents.request(body, StripeEvents.signNow(body, "whsec_of_no_account")));

        assertEquals(401, answer.status(), answer.body());
        assertEquals("https://oncepay.dev/problems/invalid-signature", answer.json().get("type").asText());
        assertTrue(item("event#stripe#" + eventId).isEmpty(), "no journal item");
        assertEquals(before, item("payment#" + paymentOfB));
    }

    /**
     * A new payment of {@code account} whose PaymentIntent (4200 EUR) was confirmed at the
     * simulator's Stripe API and whose charge run lost the answer: UNKNOWN, as the run left it.
     */
    private String unknownPayment(ProviderAccount account) {
        String id = Payment.newId();
        StripeEvents.createIntent(id, 4200, "EUR", "pm_card_visa");
        Instant now = clock.instant();
        assertTrue(payments.createPending(new Payment(id, "merchant-a", PaymentStatus.PENDING, 4200, "EUR",
                "order_" + id, null, null, null, null, now, now, 1, 0, account, now.plusSeconds(35), null, null),
                now.plusSeconds(70)));
        assertTrue(payments.apply(id, "merchant-a", new Transition(PaymentStatus.PENDING, PaymentStatus.UNKNOWN, null, null,
                "read timeout", now.plusSeconds(30), OptionalLong.of(1)), Actor.chargeRun(1), now));
        return id;
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
