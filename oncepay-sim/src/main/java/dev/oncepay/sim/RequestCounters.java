package dev.oncepay.sim;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Instant;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * How many provider API requests arrived, per API, whatever their fate (faulted, invalid,
 * replayed), and when; plus scripted answers that tests queue for the next charge requests.
 */
final class RequestCounters {

    /** {@code POST /v1/charges}. */
    final AtomicInteger genericCharges = new AtomicInteger();
    /** {@code GET /v1/charges?reference=}. */
    final AtomicInteger genericLookups = new AtomicInteger();
    /** {@code POST /v1/refunds}. */
    final AtomicInteger genericRefunds = new AtomicInteger();
    /** {@code GET /v1/refunds?reference=} and {@code GET /v1/refunds/{id}}. */
    final AtomicInteger genericRefundLookups = new AtomicInteger();
    /** {@code POST /v1/payment_intents}. */
    final AtomicInteger stripeCharges = new AtomicInteger();
    /** {@code GET /v1/payment_intents/{id}} and {@code /search}. */
    final AtomicInteger stripeLookups = new AtomicInteger();
    /** {@code POST /v1/payment_intents/{id}/cancel}. */
    final AtomicInteger stripeCancels = new AtomicInteger();
    /** {@code POST /v1/payment_intents/{id}/confirm}: the customer's (or a server's) confirmation after the create. */
    final AtomicInteger stripeConfirms = new AtomicInteger();
    /** Stripe's {@code POST /v1/refunds}. */
    final AtomicInteger stripeRefunds = new AtomicInteger();
    /** Stripe's {@code GET /v1/refunds/{id}} and {@code GET /v1/refunds?payment_intent=}. */
    final AtomicInteger stripeRefundLookups = new AtomicInteger();
    final List<Instant> chargeArrivals = new CopyOnWriteArrayList<>();
    /** Answers for the next charge requests, in order, before any other fault. */
    final Queue<ScriptedAnswer> scriptedAnswers = new ConcurrentLinkedQueue<>();

    /** Both APIs' charge requests. */
    int charges() {
        return genericCharges.get() + stripeCharges.get();
    }

    /** Both APIs' lookups. */
    int lookups() {
        return genericLookups.get() + stripeLookups.get();
    }

    /** Both APIs' refund requests. */
    int refunds() {
        return genericRefunds.get() + stripeRefunds.get();
    }

    /** Both APIs' refund lookups. */
    int refundLookups() {
        return genericRefundLookups.get() + stripeRefundLookups.get();
    }

    void reset() {
        genericCharges.set(0);
        genericLookups.set(0);
        genericRefunds.set(0);
        genericRefundLookups.set(0);
        stripeCharges.set(0);
        stripeLookups.set(0);
        stripeCancels.set(0);
        stripeConfirms.set(0);
        stripeRefunds.set(0);
        stripeRefundLookups.set(0);
        chargeArrivals.clear();
        scriptedAnswers.clear();
    }

    /**
     * {@code GET /_sim/stats}: the totals over both APIs, and each API's own counts under its
     * provider id ({@code sim} = {@code /v1/charges}, {@code stripe} = {@code /v1/payment_intents}).
     * Cancels and confirms exist only in the Stripe API, so only its part and the totals count them.
     */
    ObjectNode toJson(ObjectMapper json) {
        int genericChargeCount = genericCharges.get();
        int genericLookupCount = genericLookups.get();
        int refundCount = genericRefunds.get();
        int refundLookupCount = genericRefundLookups.get();
        int stripeChargeCount = stripeCharges.get();
        int stripeLookupCount = stripeLookups.get();
        int stripeCancelCount = stripeCancels.get();
        int stripeConfirmCount = stripeConfirms.get();
        int stripeRefundCount = stripeRefunds.get();
        int stripeRefundLookupCount = stripeRefundLookups.get();
        ObjectNode root = json.createObjectNode();
        // The totals are the sum of the parts read here, so one answer always adds up.
        root.put("chargeRequests", genericChargeCount + stripeChargeCount);
        root.put("lookupRequests", genericLookupCount + stripeLookupCount);
        root.put("cancelRequests", stripeCancelCount);
        root.put("confirmRequests", stripeConfirmCount);
        root.put("refundRequests", refundCount + stripeRefundCount);
        root.put("refundLookupRequests", refundLookupCount + stripeRefundLookupCount);
        ObjectNode providers = root.putObject("providers");
        providers.putObject(WebhookTarget.DEFAULT_PROVIDER_ID)
                .put("chargeRequests", genericChargeCount)
                .put("lookupRequests", genericLookupCount)
                .put("refundRequests", refundCount)
                .put("refundLookupRequests", refundLookupCount);
        providers.putObject(StripeMode.PROVIDER_ID)
                .put("chargeRequests", stripeChargeCount)
                .put("lookupRequests", stripeLookupCount)
                .put("cancelRequests", stripeCancelCount)
                .put("confirmRequests", stripeConfirmCount)
                .put("refundRequests", stripeRefundCount)
                .put("refundLookupRequests", stripeRefundLookupCount);
        return root;
    }
}
