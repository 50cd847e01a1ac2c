package dev.oncepay.store;

import dev.oncepay.testkit.ItemSize;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.oncepay.charge.ChargePhase;
import dev.oncepay.provider.webhook.ProviderEvent;
import dev.oncepay.config.SigningSecret;
import dev.oncepay.provider.psp.PspWebhookFormat;
import dev.oncepay.sim.WebhookSignature;
import dev.oncepay.contract.Table;
import dev.oncepay.testkit.HttpApiEvents;
import dev.oncepay.testing.LambdaClient;
import dev.oncepay.testing.LambdaClient.ApiResponse;
import dev.oncepay.testing.PhaseHooks;
import dev.oncepay.testing.StoredItems;
import dev.oncepay.testing.TestEnvironment;
import dev.oncepay.webhook.EventJournal;
import dev.oncepay.webhook.WebhookOutcome;
import dev.oncepay.webhook.WebhookRequests;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * The items a charge and its webhook really write (the function's own code, against dynalite),
 * sized by DynamoDB's rules: the write and read request units the drill's {@code CostModel} prices come from
 * here, not from a guess. Sizes move by a few bytes with timestamps and ids; units are asserted.
 */
@QuarkusTest
@WithTestResource(value = TestEnvironment.class, scope = TestResourceScope.GLOBAL)
class StoredItemSizeTest {
    /** The sweep index projects only keys: the table's and its own. */
    private static final List<String> SWEEP_ENTRY = List.of(Table.PK, Table.SWEEP_SHARD, Table.NEXT_CHECK_AT);

    @Inject
    PhaseHooks hooks;
    @Inject
    EventJournal journal;
    @Inject
    PspWebhookFormat simEvents;
    @Inject
    DynamoRequestCounter dynamoRequests;

    @AfterEach
    void release() {
        hooks.reset();
    }

    @Test
    void aFirstChargesItemsAndIndexEntriesEachFitOneWriteUnit() throws Exception {
        String tenant = "merchant-" + UUID.randomUUID().toString().substring(0, 8);
        String key = UUID.randomUUID().toString();
        // A typical request: design §3's example, with a description.
        String body = "{\"amount\":4200,\"currency\":\"EUR\",\"reference\":\"order_9182\","
                + "\"description\":\"Order 9182, 2 items\"}";
        hooks.parkOnceAfter(ChargePhase.PAYMENT_RECORDED);
        dynamoRequests.reset();
        CompletableFuture<ApiResponse> run = CompletableFuture
                .supplyAsync(() -> LambdaClient.call(HttpApiEvents.postPayment(tenant, key, body)));
        assertTrue(hooks.awaitParked(), "the run recorded its PENDING payment");
        Map<String, AttributeValue> keyItem = StoredItems.keyItem(tenant, key).orElseThrow();
        String paymentId = keyItem.get(Table.PAYMENT_ID).s();
        Map<String, AttributeValue> pending = StoredItems.paymentItem(paymentId).orElseThrow();
        hooks.release();
        assertEquals(201, run.get(30, TimeUnit.SECONDS).status());
        Map<String, AttributeValue> settled = StoredItems.paymentItem(paymentId).orElseThrow();
        Map<String, Long> requests = dynamoRequests.snapshot();
        // The order guard is on for this tenant (the default): the charge bound its order first.
        Map<String, AttributeValue> order = StoredItems.item(Table.orderItemId(tenant, "order_9182")).orElseThrow();
        assertEquals(paymentId, order.get(Table.PAYMENT_ID).s());

        List<String> attentionEntry = new ArrayList<>(List.of(Table.PK, Table.ATTENTION_KEY, Table.CREATED_AT_MS));
        attentionEntry.addAll(Table.ATTENTION_PROJECTION);
        int keyBytes = ItemSize.bytes(keyItem);
        int pendingBytes = ItemSize.bytes(pending);
        int settledBytes = ItemSize.bytes(settled);
        int orderBytes = ItemSize.bytes(order);
        int sweepEntry = ItemSize.indexEntryBytes(pending, SWEEP_ENTRY);
        int attention = ItemSize.indexEntryBytes(pending, attentionEntry);
        System.out.printf("item sizes (bytes, DynamoDB rules): key %d, PENDING payment %d, settled payment %d,"
                + " order %d, sweep index entry %d, attention index entry %d%n", keyBytes, pendingBytes, settledBytes,
                orderBytes, sweepEntry, attention);

        // Every write of these is one unit, every read one.
        assertEquals(1, ItemSize.writeUnits(keyBytes), "key item");
        assertEquals(1, ItemSize.writeUnits(pendingBytes), "PENDING payment");
        assertEquals(1, ItemSize.writeUnits(settledBytes), "settled payment (its update is sized by the larger image)");
        assertEquals(1, ItemSize.writeUnits(orderBytes), "order item (in no index)");
        assertEquals(1, ItemSize.writeUnits(sweepEntry), "sweep index entry");
        assertEquals(1, ItemSize.writeUnits(attention), "attention index entry");
        assertEquals(1, ItemSize.consistentReadUnits(settledBytes), "a payment read");
        // A settled payment has left both sparse indexes: the settle deleted one entry from each.
        assertTrue(!settled.containsKey(Table.SWEEP_SHARD) && !settled.containsKey(Table.ATTENTION_KEY));
        // The claim, the payment with its two index entries, the order's bind, the settle (its larger
        // image) removing both entries.
        assertEquals(2L, requests.get("PutItem"));
        assertEquals(2L, requests.get("UpdateItem"));
        int units = ItemSize.writeUnits(keyBytes) + ItemSize.writeUnits(pendingBytes) + ItemSize.writeUnits(sweepEntry)
                + ItemSize.writeUnits(attention) + ItemSize.writeUnits(orderBytes)
                + ItemSize.writeUnits(Math.max(pendingBytes, settledBytes))
                + ItemSize.writeUnits(sweepEntry) + ItemSize.writeUnits(attention);
        // The drill's CostModel.Units.measured() prices a charge at these write units.
        assertEquals(8, units);
    }

    @Test
    void aStripePaymentFitsOneWriteUnitUntilItHoldsTheCustomersNextAction() {
        // The test profile charges this tenant through the simulator's Stripe API.
        String tenant = "merchant-stripe";
        String customer = "cus_" + UUID.randomUUID().toString().replace("-", "").substring(0, 14);
        // Two orders of one customer (the guard refuses a second payment of one order).
        String paidOrder = orderNumber();
        String waitingOrder = orderNumber();
        while (waitingOrder.equals(paidOrder)) {
            waitingOrder = orderNumber();
        }
        ApiResponse paid = LambdaClient.call(HttpApiEvents.postPayment(tenant, UUID.randomUUID().toString(),
                stripeBody("pm_card_visa", customer, paidOrder)));
        ApiResponse waiting = LambdaClient.call(HttpApiEvents.postPayment(tenant, UUID.randomUUID().toString(),
                stripeBody("pm_card_authenticationRequired", customer, waitingOrder)));
        assertEquals(201, paid.status(), paid.body());
        assertEquals(202, waiting.status(), waiting.body());
        int paidBytes = ItemSize.bytes(StoredItems.paymentItem(paid.json().get("id").asText()).orElseThrow());
        Map<String, AttributeValue> waitingItem = StoredItems.paymentItem(waiting.json().get("id").asText())
                .orElseThrow();
        assertTrue(waitingItem.containsKey(Table.CLIENT_SECRET) && waitingItem.containsKey(Table.NEXT_ACTION));
        int waitingBytes = ItemSize.bytes(waitingItem);
        System.out.printf("Stripe payment items (bytes, DynamoDB rules): succeeded %d, waiting for the customer %d%n",
                paidBytes, waitingBytes);

        assertEquals(1, ItemSize.writeUnits(paidBytes), "a Stripe payment with its payment method and customer");
        // The client secret and the provider's next action stay on the item once learnt: from the
        // write that records them on, each write of this payment is two units (reads stay one).
        assertEquals(2, ItemSize.writeUnits(waitingBytes), "a payment holding the client secret and next action");
        assertEquals(1, ItemSize.consistentReadUnits(waitingBytes));
    }

    /** Four characters, as design §3's example has, so the measured sizes stay those of a typical order. */
    private static String orderNumber() {
        return UUID.randomUUID().toString().substring(0, 4);
    }

    private static String stripeBody(String paymentMethod, String customer, String order) {
        return "{\"amount\":4200,\"currency\":\"EUR\",\"reference\":\"order_" + order + "\","
                + "\"description\":\"Order " + order + ", 2 items\",\"paymentMethod\":\"" + paymentMethod
                + "\",\"customer\":\"" + customer + "\"}";
    }

    @Test
    void aWebhookEventsJournalEntryFitsOneWriteUnit() {
        String eventId = WebhookRequests.newEventId();
        String body = WebhookRequests.chargeEvent(eventId, PspWebhookFormat.CHARGE_SUCCEEDED,
                "pay_" + UUID.randomUUID().toString().replace("-", ""), "ch_" + UUID.randomUUID().toString()
                        .replace("-", "").substring(0, 24), 4200, "EUR");
        Instant now = Instant.now();
        String secret = "size-test-secret";
        // Read as the webhook function reads it: the verified body is journaled as received.
        ProviderEvent event = simEvents.read(
                WebhookSignature.header(secret, body, now.getEpochSecond()), body.getBytes(StandardCharsets.UTF_8),
                List.of(new SigningSecret("default", secret)), now, Duration.ofMinutes(5)).event();
        assertTrue(journal.receive(PspWebhookFormat.PROVIDER_ID, event, now, now.plus(Duration.ofDays(7))).isEmpty());
        String pk = EventJournal.pk(PspWebhookFormat.PROVIDER_ID, eventId);
        int received = ItemSize.bytes(StoredItems.item(pk).orElseThrow());
        assertTrue(journal.markProcessed(PspWebhookFormat.PROVIDER_ID, eventId, WebhookOutcome.ALREADY_SETTLED, null, now));
        int processed = ItemSize.bytes(StoredItems.item(pk).orElseThrow());
        System.out.printf("journal entry (bytes, DynamoDB rules): received %d, processed %d (event body %d)%n",
                received, processed, body.getBytes(StandardCharsets.UTF_8).length);

        assertEquals(1, ItemSize.writeUnits(received), "journal receipt");
        assertEquals(1, ItemSize.writeUnits(processed), "journal completion");
        // Journaled only when the event changes the payment (else one read answers it: no write at all).
        assertEquals(2, ItemSize.writeUnits(received) + ItemSize.writeUnits(Math.max(received, processed)));
    }
}
