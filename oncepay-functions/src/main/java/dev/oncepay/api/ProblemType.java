package dev.oncepay.api;

/** The stable problem types of oncepay's API (RFC 9457 {@code type} URIs). */
public enum ProblemType {
    INVALID_REQUEST(400, "invalid-request", "The request is invalid"),
    UNAUTHENTICATED(401, "unauthenticated", "No authenticated tenant"),
    /** A wallet credit or debit in a currency other than the one the wallet's first credit fixed. */
    CURRENCY_MISMATCH(400, "currency-mismatch", "The wallet holds another currency"),
    INVALID_SIGNATURE(401, "invalid-signature", "The webhook signature is invalid"),
    PAYMENT_DECLINED(402, "payment-declined", "The payment was declined"),
    /** Failed without any charge: the provider never received it. Not a decline; paying again is safe. */
    PAYMENT_NOT_CHARGED(402, "payment-not-charged", "The payment failed and nothing was charged"),
    /**
     * Failed because an operator said so without the provider's decline or its proof of no charge:
     * neither a decline nor "nothing was charged".
     */
    PAYMENT_RESOLVED_FAILED(402, "payment-resolved-failed", "An operator resolved the payment as failed"),
    /** The provider refused or failed a refund: nothing was refunded; the refund is recorded failed. */
    REFUND_FAILED(402, "refund-failed", "The refund failed"),
    /** A wallet debit larger than the balance: nothing changed, and the answer is recorded for the key. */
    INSUFFICIENT_FUNDS(402, "insufficient-funds", "The wallet's balance is too low"),
    /** The operator API without an operator's identity (a merchant's token among others): nothing read. */
    FORBIDDEN(403, "forbidden", "Operator access only"),
    NOT_FOUND(404, "not-found", "Not found"),
    METHOD_NOT_ALLOWED(405, "method-not-allowed", "Method not allowed"),
    REQUEST_IN_FLIGHT(409, "request-in-flight", "A request with this Idempotency-Key is in progress"),
    /** An operator's resolution of a payment in a state it may not be resolved from (only needs_review, unknown). */
    RESOLUTION_NOT_ALLOWED(409, "resolution-not-allowed", "The payment cannot be resolved in its state"),
    /** An operator's resolution that what the provider says contradicts; nothing written. */
    PROVIDER_CONTRADICTS(409, "provider-contradicts", "The provider contradicts the resolution"),
    /** An operator's resolution to succeeded naming a charge that is not the payment's (amount, currency, reference, account). */
    CHARGE_MISMATCH(409, "charge-mismatch", "The named charge is not the payment's"),
    /** An operator's resolution to failed while the provider's "no charge" is not yet a proof; nothing written. */
    NO_CHARGE_UNPROVEN(409, "no-charge-unproven", "The provider cannot prove yet that nothing was charged"),
    /** A payment for an order whose earlier payment succeeded (another key): nothing charged, {@code Location} names the paid one. */
    ORDER_ALREADY_PAID(409, "order-already-paid", "The order is already paid"),
    /** A payment for an order whose payment is live (another key): nothing charged; follow {@code Location}. */
    ORDER_IN_PROGRESS(409, "order-in-progress", "The order's payment is in progress"),
    /** A payment for an order whose live payment is for another amount or currency: never a second charge. */
    ORDER_MISMATCH(409, "order-mismatch", "The order's payment is for another amount or currency"),
    /** A refund of more than is left of the payment: nothing stored, nothing sent. */
    REFUND_EXCEEDS_CHARGE(409, "refund-exceeds-charge", "The refund exceeds what is left of the payment"),
    /** A refund of a payment that is not succeeded, or refunded in full: nothing stored, nothing sent. */
    PAYMENT_NOT_REFUNDABLE(409, "payment-not-refundable", "The payment cannot be refunded"),
    KEY_REUSED(422, "idempotency-key-reused", "The Idempotency-Key was used with a different request"),
    INTERNAL(500, "internal", "Internal error"),
    PROVIDER_UNAVAILABLE(503, "provider-unavailable", "The payment provider is unavailable"),
    /** The tenant's provider account already has its fleet-wide cap of calls in flight (the bulkhead); nothing was sent. */
    PROVIDER_AT_CAPACITY(503, "provider-at-capacity", "The payment provider account is at capacity"),
    STORE_UNAVAILABLE(503, "store-unavailable", "The payment store is unavailable"),
    QUEUE_UNAVAILABLE(503, "queue-unavailable", "The charge queue is unavailable");

    private static final String BASE = "https://oncepay.dev/problems/";

    private final int status;
    private final String slug;
    private final String title;

    ProblemType(int status, String slug, String title) {
        this.status = status;
        this.slug = slug;
        this.title = title;
    }

    public int status() {
        return status;
    }

    public String uri() {
        return BASE + slug;
    }

    public String title() {
        return title;
    }
}
