package dev.oncepay.charge;

import com.fasterxml.jackson.databind.JsonNode;
import dev.oncepay.payment.OrderRepository;
import dev.oncepay.testing.PaymentViews;
import dev.oncepay.provider.policy.FleetBreakers;
import dev.oncepay.sim.PspSimulator;
import dev.oncepay.contract.Table;
import dev.oncepay.testing.FunctionTestSupport;
import dev.oncepay.testkit.HttpApiEvents;
import dev.oncepay.testing.LambdaClient;
import dev.oncepay.testing.LambdaClient.ApiResponse;
import dev.oncepay.testing.StoredItems;
import dev.oncepay.testing.TestEnvironment;
import dev.oncepay.testkit.StoreFaultProxy;
import jakarta.inject.Inject;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/** Shared set-up of the charge function tests: a clean simulator, clock, breaker and hooks. */
public abstract class ChargeTestSupport extends FunctionTestSupport {
    @Inject
    protected FleetBreakers breakers;

    protected PspSimulator sim;
    /** The store's fault proxy, healthy when each test starts and ends. */
    protected StoreFaultProxy store;
    /** A tenant of this test alone, so table checks see only this test's items. */
    protected String tenant;

    @BeforeEach
    protected void cleanSlate() {
        sim = TestEnvironment.simulator();
        sim.reset();
        clock.reset();
        hooks.reset();
        breakers.resetAll();
        dynamoRequests.reset();
        store = TestEnvironment.storeProxy();
        store.reset();
        tenant = "merchant-" + UUID.randomUUID().toString().substring(0, 8);
    }

    /** Parked runs and held charges let go, the store healthy and the clock real again, for the next class too. */
    @AfterEach
    protected void leaveCleanSlate() {
        hooks.reset();
        sim.releaseCharges();
        store.reset();
        clock.reset();
    }

    protected static String body(long amount, String currency, String reference) {
        return "{\"amount\":" + amount + ",\"currency\":\"" + currency + "\",\"reference\":\"" + reference + "\"}";
    }

    protected static String newKey() {
        return UUID.randomUUID().toString();
    }

    protected ApiResponse post(String key, String body) {
        return LambdaClient.call(HttpApiEvents.postPayment(tenant, key, body));
    }

    /**
     * The payment as {@code GET /payments/{id}} shows it, less the order binding and refunds only the
     * lookup adds: what the charge's answer showed, for a payment unchanged since.
     */
    protected JsonNode shownAsCharged(String paymentId) {
        return PaymentViews.asCharged(get(paymentId).json());
    }

    protected ApiResponse get(String paymentId) {
        return LambdaClient.call(HttpApiEvents.getPayment(tenant, paymentId));
    }

    /** Every item this test's tenant owns in the table (keys and payments), read by the test itself. */
    protected List<Map<String, AttributeValue>> storedItems() {
        // Every page: a first-page-only scan would miss items once the shared table grows.
        return StoredItems.ofTenant(tenant);
    }

    protected Map<String, AttributeValue> storedPayment(String paymentId) {
        return TestEnvironment.dynamo().getItem(b -> b.tableName(TestEnvironment.TABLE).consistentRead(true)
                .key(Map.of(Table.PK, AttributeValue.fromS("payment#" + paymentId)))).item();
    }

    /** The ids of this test's tenant's payments, as stored. */
    protected List<String> paymentIds() {
        return storedItems().stream().filter(i -> Table.KIND_PAYMENT.equals(i.get(Table.KIND).s()))
                .map(i -> i.get(Table.PK).s().substring("payment#".length())).toList();
    }

    /** The order item of this test's tenant for {@code reference}, as stored. */
    protected Optional<Map<String, AttributeValue>> storedOrder(String reference) {
        return StoredItems.item(OrderRepository.orderId(tenant, reference));
    }

    /**
     * Lets the charges {@link PspSimulator#holdCharges} held go, and waits (10 s at most) until the
     * ledger holds {@code executed} charges: a hung charge executes once let go, and must land in
     * this test's ledger, not the next one's.
     */
    protected void releaseHeldCharges(int executed) throws InterruptedException {
        sim.releaseCharges();
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (sim.ledger().size() < executed && System.nanoTime() < until) {
            Thread.sleep(10);
        }
    }

    protected long ledgerChargesFor(String paymentId) {
        return sim.ledger().stream().filter(e -> e.reference().equals(paymentId)).count();
    }
}
