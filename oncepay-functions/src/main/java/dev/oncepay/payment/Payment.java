package dev.oncepay.payment;

import java.time.Instant;

/**
 * A payment as oncepay records it. Money is an integer in minor units with an ISO 4217 code.
 *
 * @param reference the merchant's order reference
 * @param leaseEpoch fencing token: only the charge run holding this epoch may settle a PENDING payment
 * @param providerAccount the provider account that charges it; its facts alone may move it
 * @param leaseExpiresAt end of the lease of the charge run holding the fence: after it, no run of
 *        ours can still be sending this payment's charge
 * @param instrument what it is paid with (provider tokens); every charge and re-send carries it
 * @param customerAction while the provider waits for the customer (3-D Secure): what the front end
 *        needs to finish it; {@code null} otherwise
 * @param reviewReason why it is in NEEDS_REVIEW (or on its way there); {@code null} otherwise, and
 *        for a NEEDS_REVIEW item without {@code reviewReason}
 * @param cancelPending FAILED, but the provider's charge can still be completed by the customer
 *        (a Stripe PaymentIntent after a decline) until the provider confirms its cancel: the
 *        sweep sends it until then ({@link PaymentStatus}'s sub-state "cancel pending")
 * @param queuedUntil asked for with {@code Prefer: respond-async}: the charge worker may charge it
 *        until then, and no one else decides it before; {@code null} for a payment charged in its request
 */
public record Payment(
        String id,
        String tenant,
        PaymentStatus status,
        long amount,
        String currency,
        String reference,
        String description,
        String providerPaymentId,
        String declineCode,
        String statusReason,
        Instant createdAt,
        Instant updatedAt,
        long leaseEpoch,
        int checkAttempts,
        ProviderAccount providerAccount,
        Instant leaseExpiresAt,
        PaymentInstrument instrument,
        CustomerAction customerAction,
        ReviewReason reviewReason,
        boolean cancelPending,
        Instant queuedUntil) {
    /**
     * {@code declineCode} of a payment that failed because oncepay established that nothing was
     * charged (the provider never had a charge for it), as opposed to a provider's decline.
     */
    public static final String NOT_CHARGED = "not_charged";
    /**
     * In the {@code statusReason} of an UNKNOWN payment that a writer who found conflicting facts
     * is moving on to NEEDS_REVIEW (the state machine has no PENDING → NEEDS_REVIEW). Its client
     * holds no 202, so its charge is never re-sent; a sweep finishes the move.
     */
    public static final String REVIEW_BOUND = "on the way to review: ";
    /**
     * {@code declineCode} of a payment an operator resolved failed without the provider's decline to
     * name or its proof that nothing was charged (an override).
     */
    public static final String RESOLVED_FAILED = "resolved_failed";
    /** Read as {@link #NOT_CHARGED} (no code writes it): an UNKNOWN payment failed past the provider's key window. */
    public static final String NO_CHARGE_AT_PROVIDER = "no_charge_at_provider";

    public Payment {
        instrument = instrument == null ? PaymentInstrument.NONE : instrument;
        if (cancelPending && status != PaymentStatus.FAILED) {
            throw new IllegalArgumentException("only a FAILED payment has a cancel pending, not " + status);
        }
    }

    /** A payment charged in its request. */
    public Payment(String id, String tenant, PaymentStatus status, long amount, String currency, String reference,
            String description, String providerPaymentId, String declineCode, String statusReason, Instant createdAt,
            Instant updatedAt, long leaseEpoch, int checkAttempts, ProviderAccount providerAccount,
            Instant leaseExpiresAt, PaymentInstrument instrument, CustomerAction customerAction,
            ReviewReason reviewReason, boolean cancelPending) {
        this(id, tenant, status, amount, currency, reference, description, providerPaymentId, declineCode, statusReason,
                createdAt, updatedAt, leaseEpoch, checkAttempts, providerAccount, leaseExpiresAt, instrument,
                customerAction, reviewReason, cancelPending, null);
    }

    /** A payment without a cancel pending. */
    public Payment(String id, String tenant, PaymentStatus status, long amount, String currency, String reference,
            String description, String providerPaymentId, String declineCode, String statusReason, Instant createdAt,
            Instant updatedAt, long leaseEpoch, int checkAttempts, ProviderAccount providerAccount,
            Instant leaseExpiresAt, PaymentInstrument instrument, CustomerAction customerAction,
            ReviewReason reviewReason) {
        this(id, tenant, status, amount, currency, reference, description, providerPaymentId, declineCode, statusReason,
                createdAt, updatedAt, leaseEpoch, checkAttempts, providerAccount, leaseExpiresAt, instrument,
                customerAction, reviewReason, false);
    }

    /** A payment not in review. */
    public Payment(String id, String tenant, PaymentStatus status, long amount, String currency, String reference,
            String description, String providerPaymentId, String declineCode, String statusReason, Instant createdAt,
            Instant updatedAt, long leaseEpoch, int checkAttempts, ProviderAccount providerAccount,
            Instant leaseExpiresAt, PaymentInstrument instrument, CustomerAction customerAction) {
        this(id, tenant, status, amount, currency, reference, description, providerPaymentId, declineCode, statusReason,
                createdAt, updatedAt, leaseEpoch, checkAttempts, providerAccount, leaseExpiresAt, instrument,
                customerAction, null);
    }

    /** PENDING and still the charge worker's to charge at {@code now}. */
    public boolean queuedAt(Instant now) {
        return status == PaymentStatus.PENDING && queuedUntil != null && now.isBefore(queuedUntil);
    }

    /** Waiting for the customer to authenticate the charge at the provider. */
    public boolean awaitsCustomer() {
        return status == PaymentStatus.UNKNOWN && customerAction != null;
    }

    private static final java.util.regex.Pattern ID = java.util.regex.Pattern.compile("pay_[0-9a-f]{32}");

    public static String newId() {
        return "pay_" + java.util.UUID.randomUUID().toString().replace("-", "");
    }

    /** Whether {@code id} could be one of ours; anything else is answered 404 without a lookup. */
    public static boolean isWellFormedId(String id) {
        return id != null && ID.matcher(id).matches();
    }

    /** UNKNOWN only as a step to NEEDS_REVIEW, not because a charge call went unanswered. */
    public boolean reviewBound() {
        return status == PaymentStatus.UNKNOWN && statusReason != null && statusReason.contains(REVIEW_BOUND);
    }

    /** Failed without any charge at the provider: nothing was declined, nothing was taken. */
    public boolean nothingCharged() {
        return status == PaymentStatus.FAILED && providerPaymentId == null
                && (NOT_CHARGED.equals(declineCode) || NO_CHARGE_AT_PROVIDER.equals(declineCode));
    }

    /** Failed on an operator's word alone: neither the provider's decline nor a proof of no charge. */
    public boolean resolvedFailed() {
        return status == PaymentStatus.FAILED && RESOLVED_FAILED.equals(declineCode);
    }

    /**
     * Failed for good, so its order may take another payment: the provider declined it with no
     * cancel pending (the charge can no longer complete), or nothing was charged, proven. Not a
     * failure on an operator's word alone, which the sweep still watches for a charge.
     */
    public boolean definitelyFailed() {
        return status == PaymentStatus.FAILED && !cancelPending && !resolvedFailed();
    }

    /** The key a PSP sees for this payment's charge: derived from our id, never the client's key. */
    public String providerIdempotencyKey() {
        return "oncepay-" + id;
    }
}
