package dev.oncepay.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.oncepay.testkit.SettableClock;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Drives the simulator's Stripe API through real HTTP, as a Stripe adapter will. */
class StripeSimulatorTest {

    private static final String API_KEY = "sk_test_simulator";
    private static final String FORM = "amount=4200&currency=eur&payment_method=pm_card_visa&confirm=true"
            + "&metadata%5Boncepay_payment_id%5D=pay_1";
    private static final ObjectMapper JSON = new ObjectMapper();

    private final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    private PspSimulator sim;

    @BeforeEach
    void start() {
        sim = PspSimulator.start(0);
    }

    @AfterEach
    void stop() {
        sim.close();
    }

    // --- the test payment methods -------------------------------------------------------------

    @Test
    void visaSucceedsWithAPaymentIntentAndOneLedgerEntry() throws Exception {
        HttpResponse<String> response = create("key-1", FORM + "&customer=cus_42&description=order_9182");

        assertEquals(200, response.statusCode());
        assertEquals("application/json", response.headers().firstValue("Content-Type").orElseThrow());
        assertTrue(response.headers().firstValue("Request-Id").orElseThrow().startsWith("req_"));
        assertTrue(response.headers().firstValue("Idempotent-Replayed").isEmpty());
        JsonNode intent = JSON.readTree(response.body());
        String id = intent.get("id").asText();
        assertTrue(id.startsWith("pi_"), id);
        assertEquals("payment_intent", intent.get("object").asText());
        assertEquals(4200, intent.get("amount").asLong());
        assertEquals(4200, intent.get("amount_received").asLong());
        assertEquals("eur", intent.get("currency").asText());
        assertEquals("succeeded", intent.get("status").asText());
        assertTrue(intent.get("client_secret").asText().startsWith(id + "_secret_"));
        assertEquals("pay_1", intent.get("metadata").get("oncepay_payment_id").asText());
        assertEquals("pm_card_visa", intent.get("payment_method").asText());
        assertEquals("cus_42", intent.get("customer").asText());
        assertTrue(intent.get("last_payment_error").isNull());
        assertTrue(intent.get("next_action").isNull());
        assertFalse(intent.get("livemode").asBoolean());
        String charge = intent.get("latest_charge").asText();
        assertTrue(charge.startsWith("ch_"), charge);

        JsonNode ledger = JSON.readTree(get("/_sim/ledger").body()).get("charges");
        assertEquals(1, ledger.size());
        JsonNode entry = ledger.get(0);
        assertEquals(charge, entry.get("id").asText());
        assertEquals("pay_1", entry.get("reference").asText());
        assertEquals("key-1", entry.get("idempotencyKey").asText());
        assertEquals(4200, entry.get("amount").asLong());
        assertEquals("EUR", entry.get("currency").asText()); // oncepay's view, as in the generic API
        assertEquals("succeeded", entry.get("status").asText());
    }

    @Test
    void chargeDeclinedIsA402CardErrorAndLeavesThePaymentIntentRequiringAPaymentMethod() throws Exception {
        HttpResponse<String> response = create("key-1", FORM.replace("pm_card_visa", "pm_card_chargeDeclined"));

        assertEquals(402, response.statusCode());
        assertEquals("false", response.headers().firstValue("Stripe-Should-Retry").orElseThrow());
        JsonNode error = JSON.readTree(response.body()).get("error");
        assertEquals("card_error", error.get("type").asText());
        assertEquals("card_declined", error.get("code").asText());
        assertEquals("generic_decline", error.get("decline_code").asText());
        assertEquals("Your card was declined.", error.get("message").asText());
        JsonNode intent = error.get("payment_intent");
        assertEquals("requires_payment_method", intent.get("status").asText());
        assertEquals("generic_decline", intent.get("last_payment_error").get("decline_code").asText());
        assertEquals("card_error", intent.get("last_payment_error").get("type").asText());
        assertEquals(error.get("charge").asText(), intent.get("latest_charge").asText());

        JsonNode retrieved = JSON.readTree(get("/v1/payment_intents/" + intent.get("id").asText()).body());
        assertEquals("requires_payment_method", retrieved.get("status").asText());
        assertEquals("card_declined", retrieved.get("last_payment_error").get("code").asText());
        // The failed attempt is a charge Stripe executed: in the ledger, declined.
        assertEquals(1, sim.ledger().size());
        assertEquals("declined", sim.ledger().get(0).status());
        assertEquals(error.get("charge").asText(), sim.ledger().get(0).id());
    }

    @Test
    void insufficientFundsDeclinesWithItsOwnDeclineCode() throws Exception {
        HttpResponse<String> response = create("key-1",
                FORM.replace("pm_card_visa", "pm_card_chargeDeclinedInsufficientFunds"));

        assertEquals(402, response.statusCode());
        JsonNode error = JSON.readTree(response.body()).get("error");
        assertEquals("card_declined", error.get("code").asText());
        assertEquals("insufficient_funds", error.get("decline_code").asText());
        assertEquals("insufficient_funds",
                error.get("payment_intent").get("last_payment_error").get("decline_code").asText());
    }

    @Test
    void authenticationRequiredAnswersRequiresActionAndMovesNoMoneyUntilAuthenticated() throws Exception {
        HttpResponse<String> response = create("key-1", FORM.replace("pm_card_visa", "pm_card_authenticationRequired"));

        assertEquals(200, response.statusCode());
        JsonNode intent = JSON.readTree(response.body());
        assertEquals("requires_action", intent.get("status").asText());
        assertEquals("use_stripe_sdk", intent.get("next_action").get("type").asText());
        assertTrue(intent.get("client_secret").asText().startsWith(intent.get("id").asText() + "_secret_"));
        assertTrue(intent.get("latest_charge").isNull());
        assertTrue(sim.ledger().isEmpty());

        sim.stripe().authenticate(intent.get("id").asText(), true);

        JsonNode settled = JSON.readTree(get("/v1/payment_intents/" + intent.get("id").asText()).body());
        assertEquals("succeeded", settled.get("status").asText());
        assertTrue(settled.get("next_action").isNull());
        assertEquals(1, sim.ledger().size());
        assertEquals(settled.get("latest_charge").asText(), sim.ledger().get(0).id());
    }

    @Test
    void failedAuthenticationLeavesRequiresPaymentMethodAndCancelCancels() throws Exception {
        String first = JSON.readTree(create("key-1", FORM.replace("pm_card_visa", "pm_card_authenticationRequired")).body())
                .get("id").asText();
        String second = JSON.readTree(create("key-2", FORM.replace("pm_card_visa", "pm_card_authenticationRequired")
                .replace("pay_1", "pay_2")).body()).get("id").asText();

        sim.stripe().authenticate(first, false);
        sim.stripe().cancel(second);

        JsonNode failed = JSON.readTree(get("/v1/payment_intents/" + first).body());
        assertEquals("requires_payment_method", failed.get("status").asText());
        assertEquals("payment_intent_authentication_failure", failed.get("last_payment_error").get("code").asText());
        assertEquals("canceled", JSON.readTree(get("/v1/payment_intents/" + second).body()).get("status").asText());
        assertThrows(IllegalStateException.class, () -> sim.stripe().authenticate(second, true));
    }

    // --- cancel and confirm again -------------------------------------------------------------

    @Test
    void aDeclinedIntentIsConfirmedAgainWithItsClientSecretAndPays() throws Exception {
        JsonNode declined = JSON.readTree(create("key-1", FORM.replace("pm_card_visa", "pm_card_chargeDeclined")).body())
                .get("error").get("payment_intent");
        String id = declined.get("id").asText();

        HttpResponse<String> wrongSecret = confirmInBrowser(id, id + "_secret_other", "pm_card_visa");
        assertEquals(400, wrongSecret.statusCode(), wrongSecret.body());
        assertEquals("client_secret", errorField(wrongSecret, "param"));
        HttpResponse<String> again = confirmInBrowser(id, declined.get("client_secret").asText(), "pm_card_visa");

        assertEquals(200, again.statusCode(), again.body());
        assertEquals("succeeded", JSON.readTree(again.body()).get("status").asText());
        assertEquals(List.of("declined", "succeeded"), sim.ledger().stream().map(LedgerEntry::status).toList());
        HttpResponse<String> cancelLate = cancel("cancel-1", id, "cancellation_reason=abandoned");
        assertEquals(400, cancelLate.statusCode(), cancelLate.body());
        assertEquals("invalid_request_error", errorField(cancelLate, "type"));
        assertEquals("payment_intent_unexpected_state", errorField(cancelLate, "code"));
        assertEquals("succeeded", JSON.readTree(cancelLate.body()).get("error").get("payment_intent").get("status").asText());
    }

    @Test
    void aCanceledIntentCannotBeConfirmedAndItsCancelReplaysPerKey() throws Exception {
        JsonNode declined = JSON.readTree(create("key-1", FORM.replace("pm_card_visa", "pm_card_chargeDeclined")).body())
                .get("error").get("payment_intent");
        String id = declined.get("id").asText();

        HttpResponse<String> canceled = cancel("cancel-1", id, "cancellation_reason=abandoned");
        assertEquals(200, canceled.statusCode(), canceled.body());
        JsonNode intent = JSON.readTree(canceled.body());
        assertEquals("canceled", intent.get("status").asText());
        assertEquals("abandoned", intent.get("cancellation_reason").asText());
        assertTrue(intent.get("canceled_at").isIntegralNumber(), canceled.body());
        HttpResponse<String> replay = cancel("cancel-1", id, "cancellation_reason=abandoned");
        assertEquals(canceled.body(), replay.body());
        assertEquals("true", replay.headers().firstValue("Idempotent-Replayed").orElse(null));
        assertEquals("idempotency_error", errorField(cancel("cancel-1", id, "cancellation_reason=duplicate"), "type"));
        HttpResponse<String> twice = cancel("cancel-2", id, "");
        assertEquals("payment_intent_unexpected_state", errorField(twice, "code"), twice.body());

        HttpResponse<String> confirm = confirmInBrowser(id, declined.get("client_secret").asText(), "pm_card_visa");
        assertEquals(400, confirm.statusCode(), confirm.body());
        assertEquals("payment_intent_unexpected_state", errorField(confirm, "code"));
        assertEquals(List.of("declined"), sim.ledger().stream().map(LedgerEntry::status).toList(), "nothing paid");
        assertEquals("parameter_unknown", errorField(cancel("cancel-3", id, "amount=1"), "code"));
        assertEquals(404, cancel("cancel-4", "pi_missing", "").statusCode());
    }

    @Test
    void aScriptedCancelErrorAnswersOnceAndCancelsNothingUnlessItExecutes() throws Exception {
        String id = JSON.readTree(create("key-1", FORM.replace("pm_card_visa", "pm_card_chargeDeclined")).body())
                .get("error").get("payment_intent").get("id").asText();
        sim.stripe().scriptCancelError(500, "api_error", null, Map.of("Stripe-Should-Retry", "true"), false);

        assertEquals(500, cancel("cancel-1", id, "").statusCode());
        assertEquals("requires_payment_method", JSON.readTree(get("/v1/payment_intents/" + id).body()).get("status").asText());
        assertEquals(200, cancel("cancel-1", id, "").statusCode(), "nothing was stored for the key");
    }

    @Test
    void aPaymentHeldInProcessingSettlesLaterWithItsEvents() throws Exception {
        try (WebhookReceiver receiver = new WebhookReceiver("/webhooks/stripe", "Stripe-Signature", 0)) {
            sim.stripe().setWebhookTarget(receiver.uri(), "whsec_test");
            sim.stripe().settleLater(true);
            JsonNode intent = JSON.readTree(create("key-1", FORM).body());
            String id = intent.get("id").asText();
            WebhookReceiver.Received processing = receiver.next();

            assertEquals("processing", intent.get("status").asText());
            assertEquals("payment_intent.processing", processing.json().get("type").asText());
            assertTrue(sim.ledger().isEmpty());
            assertEquals("processing", JSON.readTree(get("/v1/payment_intents/" + id).body()).get("status").asText());

            sim.stripe().settle(id, true);

            assertEquals("payment_intent.succeeded", receiver.next().json().get("type").asText());
            assertEquals("succeeded", JSON.readTree(get("/v1/payment_intents/" + id).body()).get("status").asText());
            assertEquals(1, sim.ledger().size());
            assertThrows(IllegalStateException.class, () -> sim.stripe().settle(id, false));
            // A replay of the key tells the answer first given, as Stripe does.
            assertEquals("processing", JSON.readTree(create("key-1", FORM).body()).get("status").asText());
        }
    }

    /** Two Stripe accounts, two endpoint secrets: each account's events are signed with its own. */
    @Test
    void eachAccountsEventsAreSignedWithItsOwnSecret() throws Exception {
        try (WebhookReceiver receiver = new WebhookReceiver("/webhooks/stripe", "Stripe-Signature", 0)) {
            sim.stripe().setWebhookTarget(receiver.uri(), "whsec_test");
            sim.stripe().setAccountWebhookSecret("sk_test_account_b", "whsec_account_b");

            assertEquals(200, create("key-a", FORM).statusCode());
            WebhookReceiver.Received ofA = receiver.next();
            HttpResponse<String> createdByB = send(HttpRequest.newBuilder(uri("/v1/payment_intents"))
                    .header("Authorization", "Bearer sk_test_account_b").header("Idempotency-Key", "key-b")
                    .header("Content-Type", "application/x-www-form-urlencoded")
                    .POST(HttpRequest.BodyPublishers.ofString(FORM.replace("pay_1", "pay_2"))).build());
            assertEquals(200, createdByB.statusCode(), createdByB.body());
            WebhookReceiver.Received ofB = receiver.next();

            assertTrue(signedWith(ofA.signature(), ofA.body(), "whsec_test"), "the target's secret for the other key");
            assertFalse(signedWith(ofA.signature(), ofA.body(), "whsec_account_b"));
            assertTrue(signedWith(ofB.signature(), ofB.body(), "whsec_account_b"), "account B's own secret");
            assertFalse(signedWith(ofB.signature(), ofB.body(), "whsec_test"));
            WebhookDelivery later = sim.stripe().webhookFor("payment_intent.succeeded", "pay_2");
            assertTrue(signedWith(later.signature(), later.body(), "whsec_account_b"), "events built on demand too");

            sim.stripe().clearWebhookTarget();
            WebhookDelivery cleared = sim.stripe().webhookFor("payment_intent.succeeded", "pay_2");
            assertTrue(signedWith(cleared.signature(), cleared.body(), StripeMode.DEFAULT_WEBHOOK_SECRET),
                    "clearing the target clears the accounts' secrets");
        }
    }

    private static boolean signedWith(String header, String body, String secret) {
        String t = header.substring(2, header.indexOf(','));
        return header.contains("v1=" + WebhookSignature.hmacHex(secret, t + "." + body));
    }

    @Test
    void anUnknownPaymentMethodIsAResourceMissingErrorAndNothingIsStored() throws Exception {
        HttpResponse<String> response = create("key-1", FORM.replace("pm_card_visa", "pm_card_unknown"));

        assertEquals(400, response.statusCode());
        JsonNode error = JSON.readTree(response.body()).get("error");
        assertEquals("invalid_request_error", error.get("type").asText());
        assertEquals("resource_missing", error.get("code").asText());
        assertEquals("payment_method", error.get("param").asText());
        assertTrue(sim.ledger().isEmpty());
        assertEquals(0, search("pay_1").get("data").size());
        // A request that failed validation stores no answer (Stripe): the key is still free.
        HttpResponse<String> retry = create("key-1", FORM);
        assertEquals(200, retry.statusCode());
        assertTrue(retry.headers().firstValue("Idempotent-Replayed").isEmpty());
    }

    @Test
    void badRequestsAreRefusedInStripesShapeAndExecuteNothing() throws Exception {
        HttpResponse<String> noAuth = send(HttpRequest.newBuilder(uri("/v1/payment_intents"))
                .header("Idempotency-Key", "k").header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofString(FORM)).build());
        assertEquals(401, noAuth.statusCode());
        assertEquals("invalid_request_error", errorField(noAuth, "type"));
        HttpResponse<String> liveKey = send(HttpRequest.newBuilder(uri("/v1/payment_intents"))
                .header("Authorization", "Bearer sk_live_x").header("Idempotency-Key", "k")
                .header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofString(FORM)).build());
        assertEquals(401, liveKey.statusCode());
        HttpResponse<String> json = send(HttpRequest.newBuilder(uri("/v1/payment_intents"))
                .header("Authorization", "Bearer " + API_KEY).header("Idempotency-Key", "k")
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("{\"amount\":4200}")).build());
        assertEquals(400, json.statusCode());
        HttpResponse<String> noKey = send(HttpRequest.newBuilder(uri("/v1/payment_intents"))
                .header("Authorization", "Bearer " + API_KEY)
                .header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofString(FORM)).build());
        assertEquals(400, noKey.statusCode());

        record Invalid(String form, String code, String param) {
        }
        for (Invalid invalid : List.of(
                new Invalid(FORM.replace("currency=eur", "currency=EUR"), "invalid_currency", "currency"),
                new Invalid(FORM.replace("amount=4200", "amount=42.5"), "parameter_invalid_integer", "amount"),
                new Invalid(FORM.replace("amount=4200", "amount=0"), "parameter_invalid_integer", "amount"),
                new Invalid(FORM.replace("amount=4200&", ""), "parameter_missing", "amount"),
                new Invalid(FORM.replace("payment_method=pm_card_visa&", ""), "parameter_missing", "payment_method"),
                new Invalid(FORM.replace("&metadata%5Boncepay_payment_id%5D=pay_1", ""), "parameter_missing",
                        "metadata[oncepay_payment_id]"),
                new Invalid(FORM + "&customer=42", "resource_missing", "customer"),
                new Invalid(FORM + "&amount_to_capture=1", "parameter_unknown", "amount_to_capture"))) {
            HttpResponse<String> response = create("key-" + invalid.form().hashCode(), invalid.form());
            assertEquals(400, response.statusCode(), invalid.form());
            assertEquals("invalid_request_error", errorField(response, "type"));
            assertEquals(invalid.code(), errorField(response, "code"), invalid.form());
            assertEquals(invalid.param(), errorField(response, "param"), invalid.form());
        }
        assertTrue(sim.ledger().isEmpty());
        assertEquals(0, search("pay_1").get("data").size());
    }

    @Test
    void confirmFalseCreatesAPaymentIntentThatRequiresConfirmationWithoutCharging() throws Exception {
        JsonNode intent = JSON.readTree(create("key-1", FORM.replace("&confirm=true", "")).body());

        assertEquals("requires_confirmation", intent.get("status").asText());
        assertTrue(sim.ledger().isEmpty());
    }

    // --- idempotency ----------------------------------------------------------------------------

    @Test
    void sameKeyAndParametersReplayTheStoredAnswerMarkedIdempotentReplayed() throws Exception {
        HttpResponse<String> first = create("key-1", FORM);
        // The same parameters in another order: the same request for Stripe.
        HttpResponse<String> replay = create("key-1", "metadata%5Boncepay_payment_id%5D=pay_1&confirm=true"
                + "&payment_method=pm_card_visa&currency=eur&amount=4200");
        HttpResponse<String> declined = create("key-2", FORM.replace("pm_card_visa", "pm_card_chargeDeclined"));
        HttpResponse<String> declinedReplay = create("key-2", FORM.replace("pm_card_visa", "pm_card_chargeDeclined"));

        assertEquals(200, replay.statusCode());
        assertEquals(first.body(), replay.body());
        assertEquals("true", replay.headers().firstValue("Idempotent-Replayed").orElseThrow());
        assertEquals(402, declinedReplay.statusCode()); // Stripe stores card errors too
        assertEquals(declined.body(), declinedReplay.body());
        assertEquals("true", declinedReplay.headers().firstValue("Idempotent-Replayed").orElseThrow());
        assertEquals(2, sim.ledger().size());
    }

    @Test
    void sameKeyWithOtherParametersIsAnIdempotencyError() throws Exception {
        create("key-1", FORM);
        HttpResponse<String> other = create("key-1", FORM.replace("4200", "4300"));

        assertEquals(400, other.statusCode());
        assertEquals("idempotency_error", errorField(other, "type"));
        assertEquals("false", other.headers().firstValue("Stripe-Should-Retry").orElseThrow());
        assertEquals(1, sim.ledger().size());
        assertEquals(4200, sim.ledger().get(0).amount());
    }

    @Test
    void aKeyStillInFlightIsAnswered409AndTheFirstRequestExecutesOnce() throws Exception {
        sim.holdCharges();
        CompletableFuture<HttpResponse<String>> first = client.sendAsync(createRequest("key-1", FORM),
                HttpResponse.BodyHandlers.ofString());
        assertTrue(sim.awaitHeldRequests(1, Duration.ofSeconds(5)));

        HttpResponse<String> second = create("key-1", FORM);
        sim.releaseCharges();
        HttpResponse<String> firstAnswer = first.join();
        HttpResponse<String> third = create("key-1", FORM);

        assertEquals(409, second.statusCode());
        assertEquals("idempotency_key_in_use", errorField(second, "code"));
        assertEquals("true", second.headers().firstValue("Stripe-Should-Retry").orElseThrow());
        assertEquals(200, firstAnswer.statusCode());
        assertEquals(firstAnswer.body(), third.body());
        assertEquals("true", third.headers().firstValue("Idempotent-Replayed").orElseThrow());
        assertEquals(1, sim.ledger().size());
    }

    @Test
    void keysAreKeptForTwentyFourHoursOfTheProvidersClock() throws Exception {
        SettableClock clock = new SettableClock();
        sim.close();
        sim = PspSimulator.start(SimulatorOptions.onPort(0).withClock(clock));
        create("key-1", FORM);

        clock.advance(Duration.ofHours(24).minusSeconds(1));
        assertEquals(400, create("key-1", FORM.replace("4200", "4300")).statusCode());
        clock.advance(Duration.ofSeconds(2));
        HttpResponse<String> reused = create("key-1", FORM.replace("4200", "4300"));

        assertEquals(200, reused.statusCode());
        assertTrue(reused.headers().firstValue("Idempotent-Replayed").isEmpty());
        assertEquals(2, sim.ledger().size());
    }

    // --- retrieve and search --------------------------------------------------------------------

    @Test
    void retrieveAnswersThePaymentIntentOrResourceMissing() throws Exception {
        JsonNode created = JSON.readTree(create("key-1", FORM).body());

        HttpResponse<String> found = get("/v1/payment_intents/" + created.get("id").asText());
        HttpResponse<String> missing = get("/v1/payment_intents/pi_doesnotexist");
        HttpResponse<String> unauthorized = send(HttpRequest.newBuilder(uri("/v1/payment_intents/"
                + created.get("id").asText())).GET().build());

        assertEquals(200, found.statusCode());
        assertEquals(created, JSON.readTree(found.body()));
        assertEquals(404, missing.statusCode());
        assertEquals("resource_missing", errorField(missing, "code"));
        assertEquals(401, unauthorized.statusCode());
    }

    @Test
    void searchFindsByOurPaymentIdOnlyAfterTheLookupLag() throws Exception {
        SettableClock clock = new SettableClock();
        sim.close();
        sim = PspSimulator.start(SimulatorOptions.onPort(0).withClock(clock));
        post("/_sim/faults", "{\"lookupLagMs\":60000}");
        JsonNode created = JSON.readTree(create("key-1", FORM).body());
        create("key-2", FORM.replace("pay_1", "pay_2"));

        JsonNode early = search("pay_1");
        clock.advance(Duration.ofSeconds(59));
        JsonNode stillEarly = search("pay_1");
        clock.advance(Duration.ofSeconds(1));
        JsonNode visible = search("pay_1");

        assertEquals("search_result", early.get("object").asText());
        assertFalse(early.get("has_more").asBoolean());
        assertEquals(0, early.get("data").size()); // well formed and empty: the lag looks like "none"
        assertEquals(0, stillEarly.get("data").size());
        assertEquals(1, visible.get("data").size());
        assertEquals(created.get("id").asText(), visible.get("data").get(0).get("id").asText());
        // Retrieve by id does not lag.
        assertEquals(200, get("/v1/payment_intents/" + created.get("id").asText()).statusCode());

        HttpResponse<String> unsupported = get("/v1/payment_intents/search?query="
                + URLEncoder.encode("status:'succeeded'", StandardCharsets.UTF_8));
        assertEquals(400, unsupported.statusCode());
        assertEquals("query", errorField(unsupported, "param"));
    }

    // --- webhooks -------------------------------------------------------------------------------

    @Test
    void eventsAreStripeSignedEnvelopesOfThePaymentIntent() throws Exception {
        try (WebhookReceiver receiver = new WebhookReceiver("/webhooks/stripe", "Stripe-Signature", 0)) {
            sim.stripe().setWebhookTarget(receiver.uri(), "whsec_test");
            create("key-1", FORM);
            WebhookReceiver.Received succeeded = receiver.next();
            create("key-2", FORM.replace("pm_card_visa", "pm_card_chargeDeclined").replace("pay_1", "pay_2"));
            WebhookReceiver.Received failed = receiver.next();
            create("key-3", FORM.replace("pm_card_visa", "pm_card_authenticationRequired").replace("pay_1", "pay_3"));
            WebhookReceiver.Received requiresAction = receiver.next();
            sim.stripe().cancel(sim.stripe().paymentIntentId("pay_3").orElseThrow());
            WebhookReceiver.Received canceled = receiver.next();
            sim.stripe().sendWebhook("payment_intent.processing", "pay_1");
            WebhookReceiver.Received processing = receiver.next();

            JsonNode event = succeeded.json();
            assertTrue(event.get("id").asText().startsWith("evt_"));
            assertEquals("event", event.get("object").asText());
            assertEquals("payment_intent.succeeded", event.get("type").asText());
            assertTrue(event.get("created").isIntegralNumber());
            assertFalse(event.get("livemode").asBoolean());
            assertEquals("payment_intent", event.get("data").get("object").get("object").asText());
            assertEquals("pay_1", event.get("data").get("object").get("metadata").get("oncepay_payment_id").asText());
            assertEquals("succeeded", event.get("data").get("object").get("status").asText());
            assertEquals("application/json", succeeded.contentType());
            assertTrue(succeeded.signedWith("whsec_test"));
            assertFalse(succeeded.signedWith("whsec_other"));

            assertEquals("payment_intent.payment_failed", failed.json().get("type").asText());
            assertEquals("generic_decline",
                    failed.json().get("data").get("object").get("last_payment_error").get("decline_code").asText());
            assertEquals("payment_intent.requires_action", requiresAction.json().get("type").asText());
            assertEquals("payment_intent.canceled", canceled.json().get("type").asText());
            assertEquals("canceled", canceled.json().get("data").get("object").get("status").asText());
            assertEquals("payment_intent.processing", processing.json().get("type").asText());
            assertEquals("processing", processing.json().get("data").get("object").get("status").asText());
            for (WebhookReceiver.Received received : List.of(failed, requiresAction, canceled, processing)) {
                assertTrue(received.signedWith("whsec_test"));
            }
        }
    }

    @Test
    void duplicateFaultsDeliverTheSameStripeEventTwice() throws Exception {
        try (WebhookReceiver receiver = new WebhookReceiver("/webhooks/stripe", "Stripe-Signature", 0)) {
            sim.stripe().setWebhookTarget(receiver.uri(), "whsec_test");
            post("/_sim/faults", "{\"webhookDuplicateRate\":1.0}");
            create("key-1", FORM);

            assertEquals(receiver.next().json().get("id"), receiver.next().json().get("id"));
            assertTrue(sim.stripe().awaitWebhooks(Duration.ofSeconds(5)));
            assertEquals(2, sim.stripe().webhookAttempts().size());
            assertTrue(sim.webhookAttempts().isEmpty()); // the generic API's events are separate
        }
    }

    @Test
    void testsCanBuildSignedEventsToPostThemselves() throws Exception {
        try (WebhookReceiver receiver = new WebhookReceiver("/webhooks/stripe", "Stripe-Signature", 0)) {
            create("key-1", FORM);
            WebhookDelivery delivery = sim.stripe().webhookFor("payment_intent.succeeded", "pay_1");

            assertEquals(200, client.send(delivery.toRequest(receiver.uri(), StripeMode.SIGNATURE_HEADER),
                    HttpResponse.BodyHandlers.ofString()).statusCode());
            assertTrue(receiver.next().signedWith(StripeMode.DEFAULT_WEBHOOK_SECRET));
            assertThrows(IllegalStateException.class, () -> sim.stripe().webhookFor("payment_intent.succeeded", "nope"));
        }
    }

    @Test
    void aRolledSecretSignsWithOneV1PerSecret() throws Exception {
        long t = 1_700_000_000L;
        String header = StripeMode.signWithEach("{}", t, "whsec_old", "whsec_new");

        String[] parts = header.split(",");
        assertEquals(List.of("t=" + t, "v1=" + hmac("whsec_old", t + ".{}"), "v1=" + hmac("whsec_new", t + ".{}")),
                List.of(parts));
        assertEquals(sim.stripe().sign("{}", t), StripeMode.signWithEach("{}", t, sim.stripe().webhookSecret()));
    }

    // --- faults in Stripe's shape ---------------------------------------------------------------

    @Test
    void outageAndServerErrorsAreRetryableApiErrorsAndExecuteNothing() throws Exception {
        post("/_sim/faults", "{\"serverErrorRate\":1.0,\"serverErrorRetryAfterSeconds\":7}");
        List<Integer> statuses = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            HttpResponse<String> response = create("key-" + i, FORM);
            statuses.add(response.statusCode());
            assertEquals("api_error", errorField(response, "type"));
            assertEquals("true", response.headers().firstValue("Stripe-Should-Retry").orElseThrow());
            assertEquals("7", response.headers().firstValue("Retry-After").orElseThrow());
        }
        post("/_sim/faults", "{\"serverErrorRate\":0,\"outage\":true}");
        HttpResponse<String> outage = create("key-9", FORM);
        HttpResponse<String> outageLookup = get("/v1/payment_intents/search?query="
                + URLEncoder.encode("metadata['oncepay_payment_id']:'pay_1'", StandardCharsets.UTF_8));

        assertTrue(Set.of(500, 502).containsAll(statuses), statuses.toString());
        assertEquals(503, outage.statusCode());
        assertEquals("api_error", errorField(outage, "type"));
        assertEquals(503, outageLookup.statusCode());
        assertTrue(sim.ledger().isEmpty());
    }

    @Test
    void statsCountStripeRequestsUnderTheirOwnProviderRefusedOnesIncluded() throws Exception {
        assertEquals(200, create("key-1", FORM).statusCode());
        assertEquals(401, send(HttpRequest.newBuilder(uri("/v1/payment_intents"))
                .header("Idempotency-Key", "key-2")
                .header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofString(FORM)).build()).statusCode()); // no API key
        search("pay_1");
        post("/_sim/faults", "{\"outage\":true}");
        assertEquals(503, create("key-3", FORM).statusCode());
        assertEquals(503, get("/v1/payment_intents/pi_unknown").statusCode());
        post("/_sim/faults", "{\"outage\":false}");
        assertEquals(200, send(HttpRequest.newBuilder(uri("/v1/charges")).header("Idempotency-Key", "key-4")
                .POST(HttpRequest.BodyPublishers.ofString("{\"amount\":100,\"currency\":\"EUR\",\"reference\":\"pay_2\"}"))
                .build()).statusCode());

        JsonNode stats = JSON.readTree(get("/_sim/stats").body());

        assertEquals(JSON.readTree("""
                {"chargeRequests":4,"lookupRequests":2,"cancelRequests":0,"confirmRequests":0,"refundRequests":0,"refundLookupRequests":0,
                 "providers":{"sim":{"chargeRequests":1,"lookupRequests":0,"refundRequests":0,"refundLookupRequests":0},
                              "stripe":{"chargeRequests":3,"lookupRequests":2,"cancelRequests":0,"confirmRequests":0,
                                       "refundRequests":0,"refundLookupRequests":0}}}"""),
                stats);
    }

    @Test
    void statsCountCancelsAndConfirmsRefusedOnesIncludedUntilReset() throws Exception {
        JsonNode declined = JSON.readTree(create("key-1", FORM.replace("pm_card_visa", "pm_card_chargeDeclined")).body())
                .get("error").get("payment_intent");
        String id = declined.get("id").asText();
        String secret = declined.get("client_secret").asText();
        assertEquals(400, confirmInBrowser(id, id + "_secret_other", "pm_card_visa").statusCode()); // wrong secret
        assertEquals(402, confirmInBrowser(id, secret, "pm_card_chargeDeclined").statusCode());
        post("/_sim/faults", "{\"outage\":true}");
        assertEquals(503, cancel("cancel-1", id, "").statusCode()); // refused by the outage: counted
        post("/_sim/faults", "{\"outage\":false}");
        assertEquals(200, cancel("cancel-1", id, "").statusCode());
        assertEquals(200, cancel("cancel-1", id, "").statusCode()); // a replay is a request too
        assertEquals(400, confirmInBrowser(id, secret, "pm_card_visa").statusCode()); // canceled: refused, counted
        assertEquals(405, get("/v1/payment_intents/" + id + "/cancel").statusCode()); // no such endpoint: not counted

        JsonNode stats = JSON.readTree(get("/_sim/stats").body());

        assertEquals(JSON.readTree("""
                {"chargeRequests":1,"lookupRequests":0,"cancelRequests":3,"confirmRequests":3,"refundRequests":0,"refundLookupRequests":0,
                 "providers":{"sim":{"chargeRequests":0,"lookupRequests":0,"refundRequests":0,"refundLookupRequests":0},
                              "stripe":{"chargeRequests":1,"lookupRequests":0,"cancelRequests":3,"confirmRequests":3,
                                       "refundRequests":0,"refundLookupRequests":0}}}"""),
                stats);
        assertEquals(200, post("/_sim/reset", "").statusCode());
        JsonNode reset = JSON.readTree(get("/_sim/stats").body());
        assertEquals(0, reset.get("cancelRequests").asInt(), reset::toString);
        assertEquals(0, reset.get("confirmRequests").asInt(), reset::toString);
        assertEquals(0, reset.get("providers").get("stripe").get("cancelRequests").asInt(), reset::toString);
    }

    @Test
    void stripeLatencySlowsOnlyTheStripeApi() throws Exception {
        sim.setFaults(Faults.none().withStripeLatencyMs(800));
        HttpRequest generic = HttpRequest.newBuilder(uri("/v1/charges")).header("Idempotency-Key", "key-g")
                .POST(HttpRequest.BodyPublishers.ofString("{\"amount\":100,\"currency\":\"EUR\",\"reference\":\"pay_g\"}"))
                .build();

        long genericMs = millis(() -> assertEquals(200, send(generic).statusCode()));
        long createMs = millis(() -> assertEquals(200, create("key-1", FORM).statusCode()));
        long searchMs = millis(() -> search("pay_1"));

        assertTrue(createMs >= 800, "create took " + createMs + " ms");
        assertTrue(searchMs >= 800, "search took " + searchMs + " ms");
        assertTrue(genericMs < 800, "the generic API is not slowed: " + genericMs + " ms");
        assertEquals(800, JSON.readTree(get("/_sim/faults").body()).get("stripeLatencyMs").asLong());
        assertEquals(400, post("/_sim/faults", "{\"stripeLatencyMs\":-1}").statusCode());
    }

    @Test
    void rateLimitsAreRateLimitErrorsAndResetsDropTheConnection() throws Exception {
        sim.setFaults(Faults.none().withRateLimitRate(1.0).withRetryAfterSeconds(3));
        HttpResponse<String> limited = create("key-1", FORM);
        sim.setFaults(Faults.none().withResetRate(1.0));
        HttpClient fresh = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

        assertEquals(429, limited.statusCode());
        assertEquals("rate_limit_error", errorField(limited, "type"));
        assertEquals("3", limited.headers().firstValue("Retry-After").orElseThrow());
        assertThrows(IOException.class, () -> fresh.send(createRequest("key-2", FORM), HttpResponse.BodyHandlers.ofString()));
        assertTrue(sim.ledger().isEmpty());
    }

    @Test
    void commitThenTimeoutCreatesThePaymentIntentWhileTheClientTimesOutAndARetryReplaysIt() throws Exception {
        post("/_sim/faults", "{\"commitThenTimeoutRate\":1.0,\"commitThenTimeoutMs\":5000}");
        HttpRequest impatient = HttpRequest.newBuilder(createRequest("key-1", FORM), (name, value) -> true)
                .timeout(Duration.ofMillis(300)).build();

        assertThrows(HttpTimeoutException.class, () -> client.send(impatient, HttpResponse.BodyHandlers.ofString()));
        post("/_sim/faults", "{\"commitThenTimeoutRate\":0}");
        HttpResponse<String> retry = create("key-1", FORM); // served while the first handler still sleeps

        assertEquals(200, retry.statusCode());
        assertEquals("true", retry.headers().firstValue("Idempotent-Replayed").orElseThrow());
        assertEquals(1, sim.ledger().size());
        assertEquals(sim.ledger().get(0).id(), JSON.readTree(retry.body()).get("latest_charge").asText());
    }

    @Test
    void conflictCommitsAnswers409AndALaterRequestReplaysTheStoredAnswer() throws Exception {
        post("/_sim/faults", "{\"conflictRate\":1.0}");
        HttpResponse<String> inFlight = create("key-1", FORM);
        post("/_sim/faults", "{\"conflictRate\":0}");
        HttpResponse<String> later = create("key-1", FORM);

        assertEquals(409, inFlight.statusCode());
        assertEquals("idempotency_key_in_use", errorField(inFlight, "code"));
        assertEquals("true", inFlight.headers().firstValue("Stripe-Should-Retry").orElseThrow());
        assertEquals(200, later.statusCode());
        assertEquals("true", later.headers().firstValue("Idempotent-Replayed").orElseThrow());
        assertEquals(1, sim.ledger().size());
    }

    @Test
    void nonFinalAnswersSayProcessingWhileRetrieveTellsTheRealOutcome() throws Exception {
        post("/_sim/faults", "{\"nonFinalRate\":1.0}");
        HttpResponse<String> succeeded = create("key-1", FORM);
        HttpResponse<String> declined = create("key-2", FORM.replace("pm_card_visa", "pm_card_chargeDeclined")
                .replace("pay_1", "pay_2"));

        JsonNode shown = JSON.readTree(succeeded.body());
        assertEquals(200, succeeded.statusCode());
        assertEquals("processing", shown.get("status").asText());
        assertEquals(200, declined.statusCode());
        assertEquals("processing", JSON.readTree(declined.body()).get("status").asText());
        assertEquals("succeeded", JSON.readTree(get("/v1/payment_intents/" + shown.get("id").asText()).body())
                .get("status").asText());
        assertEquals(2, sim.ledger().size());
    }

    @Test
    void declineAndEmptyBodyFaultsApplyToStripeCharges() throws Exception {
        post("/_sim/faults", "{\"declineRate\":1.0}");
        HttpResponse<String> declined = create("key-1", FORM);
        post("/_sim/faults", "{\"declineRate\":0,\"emptyBodyRate\":1.0}");
        HttpResponse<String> empty = create("key-2", FORM.replace("pay_1", "pay_2"));

        assertEquals(402, declined.statusCode());
        assertEquals("generic_decline", errorField(declined, "decline_code"));
        assertTrue(Set.of(200, 204).contains(empty.statusCode()));
        assertEquals("", empty.body());
        assertEquals(List.of("declined", "succeeded"), sim.ledger().stream().map(LedgerEntry::status).toList());
    }

    @Test
    void scriptedRefusalsTakeStripesShape() throws Exception {
        sim.scriptChargeAnswers(500, 429, 409);

        HttpResponse<String> serverError = create("key-1", FORM);
        HttpResponse<String> rateLimited = create("key-1", FORM);
        HttpResponse<String> inFlight = create("key-1", FORM);

        assertEquals("api_error", errorField(serverError, "type"));
        assertEquals("rate_limit_error", errorField(rateLimited, "type"));
        assertEquals("idempotency_key_in_use", errorField(inFlight, "code"));
        assertTrue(sim.ledger().isEmpty());
        assertEquals(3, sim.chargeRequests());
    }

    @Test
    void scriptedErrorsCarryExactlyTheirHeadersAndRunTheCreateOnlyWhenAsked() throws Exception {
        sim.stripe().scriptError(500, "api_error", null, Map.of("Stripe-Should-Retry", "false"), true);
        sim.stripe().scriptError(429, "rate_limit_error", "rate_limit",
                Map.of("Retry-After", "Wed, 21 Oct 2026 07:28:00 GMT"), false);

        HttpResponse<String> executed = create("key-1", FORM);
        HttpResponse<String> refused = create("key-2", FORM.replace("pay_1", "pay_2"));
        HttpResponse<String> replay = create("key-1", FORM);

        assertEquals(500, executed.statusCode());
        assertEquals("api_error", errorField(executed, "type"));
        assertEquals("false", executed.headers().firstValue("Stripe-Should-Retry").orElseThrow());
        assertEquals(429, refused.statusCode());
        assertEquals("rate_limit", errorField(refused, "code"));
        assertEquals("Wed, 21 Oct 2026 07:28:00 GMT", refused.headers().firstValue("Retry-After").orElseThrow());
        assertTrue(refused.headers().firstValue("Stripe-Should-Retry").isEmpty());
        // The 500 came after the create ran: its key replays the charge; the 429 ran nothing.
        assertEquals(200, replay.statusCode());
        assertEquals("true", replay.headers().firstValue("Idempotent-Replayed").orElseThrow());
        assertEquals(List.of("pay_1"), sim.ledger().stream().map(LedgerEntry::reference).toList());
    }

    @Test
    void answersCarryTheApiVersionAskedForElseTheAccountDefault() throws Exception {
        HttpResponse<String> pinned = send(HttpRequest.newBuilder(uri("/v1/payment_intents/pi_unknown"))
                .header("Authorization", "Bearer " + API_KEY).header("Stripe-Version", "2026-07-29.dahlia").GET().build());
        HttpResponse<String> unpinned = create("key-1", FORM);

        assertEquals("2026-07-29.dahlia", pinned.headers().firstValue("Stripe-Version").orElseThrow());
        assertEquals("2024-06-20", unpinned.headers().firstValue("Stripe-Version").orElseThrow());
    }

    @Test
    void resetClearsPaymentIntentsKeysAndTheLedger() throws Exception {
        String id = JSON.readTree(create("key-1", FORM).body()).get("id").asText();

        assertEquals(200, post("/_sim/reset", "").statusCode());

        assertEquals(404, get("/v1/payment_intents/" + id).statusCode());
        assertEquals(0, search("pay_1").get("data").size());
        assertTrue(JSON.readTree(get("/_sim/ledger").body()).get("charges").isEmpty());
        HttpResponse<String> again = create("key-1", FORM.replace("4200", "4300"));
        assertEquals(200, again.statusCode()); // the key is free again
    }

    // --- plumbing -------------------------------------------------------------------------------

    /** Something that talks to the simulator. */
    private interface Exchange {
        void run() throws Exception;
    }

    private static long millis(Exchange exchange) throws Exception {
        long started = System.nanoTime();
        exchange.run();
        return Duration.ofNanos(System.nanoTime() - started).toMillis();
    }

    private HttpResponse<String> create(String key, String form) throws IOException, InterruptedException {
        return send(createRequest(key, form));
    }

    private HttpResponse<String> cancel(String key, String id, String form) throws IOException, InterruptedException {
        return send(HttpRequest.newBuilder(uri("/v1/payment_intents/" + id + "/cancel"))
                .header("Authorization", "Bearer " + API_KEY)
                .header("Idempotency-Key", key)
                .header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofString(form))
                .build());
    }

    /** The customer's browser confirming again, as Stripe.js does: a publishable key and the client secret. */
    private HttpResponse<String> confirmInBrowser(String id, String clientSecret, String paymentMethod)
            throws IOException, InterruptedException {
        return send(HttpRequest.newBuilder(uri("/v1/payment_intents/" + id + "/confirm"))
                .header("Authorization", "Bearer pk_test_simulator")
                .header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofString("payment_method=" + paymentMethod + "&client_secret="
                        + URLEncoder.encode(clientSecret, StandardCharsets.UTF_8)))
                .build());
    }

    private HttpRequest createRequest(String key, String form) {
        return SimHttp.stripePost(uri("/v1/payment_intents"), API_KEY, key, form);
    }

    private JsonNode search(String reference) throws IOException, InterruptedException {
        HttpResponse<String> response = get("/v1/payment_intents/search?query=" + URLEncoder.encode(
                "metadata['oncepay_payment_id']:'" + reference + "'", StandardCharsets.UTF_8));
        assertEquals(200, response.statusCode(), response.body());
        return JSON.readTree(response.body());
    }

    private HttpResponse<String> get(String path) throws IOException, InterruptedException {
        return send(HttpRequest.newBuilder(uri(path)).header("Authorization", "Bearer " + API_KEY).GET().build());
    }

    private HttpResponse<String> post(String path, String body) throws IOException, InterruptedException {
        return send(HttpRequest.newBuilder(uri(path)).POST(HttpRequest.BodyPublishers.ofString(body)).build());
    }

    private HttpResponse<String> send(HttpRequest request) throws IOException, InterruptedException {
        return client.send(request, HttpResponse.BodyHandlers.ofString());
    }

    private URI uri(String path) {
        return URI.create(sim.baseUrl() + path);
    }

    /** HMAC-SHA256 in hex, computed here independently of the simulator's code. */
    private static String hmac(String secret, String payload) throws Exception {
        Mac mac = Mac.getInstance("HmacSHA256");
        mac.init(new SecretKeySpec(secret.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
        return HexFormat.of().formatHex(mac.doFinal(payload.getBytes(StandardCharsets.UTF_8)));
    }

    private static String errorField(HttpResponse<String> response, String field) throws IOException {
        return JSON.readTree(response.body()).get("error").path(field).asText(null);
    }
}
