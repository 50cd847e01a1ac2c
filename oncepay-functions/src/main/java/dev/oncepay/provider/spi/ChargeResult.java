package dev.oncepay.provider.spi;

import dev.oncepay.payment.CustomerAction;

/**
 * What one charge call (with all its retries) established.
 *
 * @param providerPaymentId the provider's id of the charge, where the answer named one (also for
 *        an UNKNOWN outcome whose charge exists but is not final: later lookups ask for it by id)
 * @param customerAction for an UNKNOWN outcome that waits for the customer (3-D Secure): what the
 *        merchant's front end needs to finish it; otherwise {@code null}
 * @param refusal for a NOT_SENT outcome that the fleet's protection decided (breaker, bulkhead)
 *        rather than a provider fault; otherwise {@code null}
 * @param cancelRequired for a FAILED outcome: the provider's charge stays open to the customer
 *        after the decline (a Stripe PaymentIntent at {@code requires_payment_method}) until it is
 *        canceled
 */
public record ChargeResult(ProviderOutcome outcome, String providerPaymentId, String declineCode, String detail,
        CustomerAction customerAction, ProviderRefusal refusal, boolean cancelRequired) {

    public ChargeResult(ProviderOutcome outcome, String providerPaymentId, String declineCode, String detail,
            CustomerAction customerAction, ProviderRefusal refusal) {
        this(outcome, providerPaymentId, declineCode, detail, customerAction, refusal, false);
    }

    public static ChargeResult succeeded(String providerPaymentId) {
        return new ChargeResult(ProviderOutcome.SUCCEEDED, providerPaymentId, null, null, null, null);
    }

    public static ChargeResult failed(String providerPaymentId, String declineCode) {
        return new ChargeResult(ProviderOutcome.FAILED, providerPaymentId, declineCode, null, null, null);
    }

    /** Declined, and the charge {@code providerPaymentId} stays open to the customer until it is canceled. */
    public static ChargeResult failedOpen(String providerPaymentId, String declineCode) {
        return new ChargeResult(ProviderOutcome.FAILED, providerPaymentId, declineCode, null, null, null, true);
    }

    public static ChargeResult unknown(String detail) {
        return new ChargeResult(ProviderOutcome.UNKNOWN, null, null, detail, null, null);
    }

    /** The provider holds the charge {@code providerPaymentId}, not final yet (e.g. {@code processing}). */
    public static ChargeResult notFinal(String providerPaymentId, String detail) {
        return new ChargeResult(ProviderOutcome.UNKNOWN, providerPaymentId, null, detail, null, null);
    }

    /** The charge {@code providerPaymentId} waits for the customer to authenticate it. */
    public static ChargeResult awaitingCustomer(String providerPaymentId, CustomerAction action, String detail) {
        return new ChargeResult(ProviderOutcome.UNKNOWN, providerPaymentId, null, detail, action, null);
    }

    /** The provider's answer shows our request was wrong in a way no retry fixes and no decline describes. */
    public static ChargeResult review(String providerPaymentId, String detail) {
        return new ChargeResult(ProviderOutcome.NEEDS_REVIEW, providerPaymentId, null, detail, null, null);
    }

    public static ChargeResult notSent(String detail) {
        return new ChargeResult(ProviderOutcome.NOT_SENT, null, null, detail, null, null);
    }

    /** Nothing was sent because the fleet's protection of the account refused the call. */
    public static ChargeResult refused(ProviderRefusal refusal, String detail) {
        return new ChargeResult(ProviderOutcome.NOT_SENT, null, null, detail, null, refusal);
    }
}
