package dev.oncepay.provider.spi;

/**
 * What one refund call (with all its retries) established.
 *
 * @param outcome {@code SUCCEEDED}, {@code FAILED} (the provider refused or failed it: nothing was
 *        refunded), {@code UNKNOWN} (no final answer, or the provider's own {@code pending}),
 *        {@code NEEDS_REVIEW} (our request was wrong in a way no retry fixes), {@code NOT_SENT}
 * @param providerRefundId the provider's id of the refund, where the answer named one
 * @param failureCode for {@code FAILED}: the provider's reason
 * @param refusal for a NOT_SENT outcome the fleet's protection decided; otherwise {@code null}
 */
public record RefundResult(ProviderOutcome outcome, String providerRefundId, String failureCode, String detail,
        ProviderRefusal refusal) {

    public static RefundResult succeeded(String providerRefundId) {
        return new RefundResult(ProviderOutcome.SUCCEEDED, providerRefundId, null, null, null);
    }

    public static RefundResult failed(String providerRefundId, String failureCode) {
        return new RefundResult(ProviderOutcome.FAILED, providerRefundId, failureCode, null, null);
    }

    /** No final answer; {@code providerRefundId} if the provider holds the refund but has not finished it. */
    public static RefundResult unknown(String providerRefundId, String detail) {
        return new RefundResult(ProviderOutcome.UNKNOWN, providerRefundId, null, detail, null);
    }

    public static RefundResult review(String providerRefundId, String detail) {
        return new RefundResult(ProviderOutcome.NEEDS_REVIEW, providerRefundId, null, detail, null);
    }

    public static RefundResult notSent(String detail) {
        return new RefundResult(ProviderOutcome.NOT_SENT, null, null, detail, null);
    }

    public static RefundResult refused(ProviderRefusal refusal, String detail) {
        return new RefundResult(ProviderOutcome.NOT_SENT, null, null, detail, refusal);
    }
}
