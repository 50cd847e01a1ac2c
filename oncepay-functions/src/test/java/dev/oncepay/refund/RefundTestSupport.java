package dev.oncepay.refund;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.oncepay.charge.ChargeTestSupport;
import dev.oncepay.contract.Attr;
import dev.oncepay.contract.Table;
import dev.oncepay.sim.Refund;
import dev.oncepay.testing.DirectSweep;
import dev.oncepay.testing.LambdaClient;
import dev.oncepay.testing.LambdaClient.ApiResponse;
import dev.oncepay.testkit.HttpApiEvents;
import jakarta.inject.Inject;
import java.util.List;
import java.util.Map;
import java.util.Set;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/** Refund tests: a captured payment to refund, the refund routes, and what the store and the provider hold. */
abstract class RefundTestSupport extends ChargeTestSupport {
    @Inject
    DirectSweep sweeps;

    /** A payment of {@code amount} EUR the provider captured: its id. */
    String capturedPayment(long amount) {
        ApiResponse charged = post(newKey(), body(amount, "EUR", "order-" + newKey()));
        assertEquals(201, charged.status(), charged.body());
        return charged.json().get("id").asText();
    }

    ApiResponse refund(String paymentId, String key, String body) {
        return LambdaClient.call(HttpApiEvents.postRefund(tenant, paymentId, key, body));
    }

    ApiResponse showRefund(String paymentId, String refundId) {
        return LambdaClient.call(HttpApiEvents.getRefund(tenant, paymentId, refundId));
    }

    static String amount(long amount) {
        return "{\"amount\":" + amount + "}";
    }

    /**
     * The provider's refunds of {@code paymentId}: by its charge at the generic PSP, by the payment id
     * in the refund's metadata at Stripe (a Stripe refund names the charge {@code ch_…}, not the intent).
     */
    List<Refund> providerRefunds(String paymentId) {
        String charge = get(paymentId).json().get("providerPaymentId").asText();
        return sim.refunds().stream().filter(r -> r.charge().equals(charge)
                || paymentId.equals(r.metadata().get("oncepay_payment_id"))).toList();
    }

    /** This tenant's refund items, as stored. */
    List<Map<String, AttributeValue>> storedRefunds() {
        return storedItems().stream().filter(i -> Table.KIND_REFUND.equals(Attr.string(i, Table.KIND))).toList();
    }

    /** The payment item's reserved refund amount, as stored. */
    long held(String paymentId) {
        return Attr.number(storedPayment(paymentId), Table.REFUND_HELD, 0);
    }

    /** One sweep over this payment's refunds alone. */
    void sweepRefunds(Set<String> refundIds) {
        sweeps.sweepOnly(Set.of(), refundIds);
    }
}
