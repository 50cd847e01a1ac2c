package dev.oncepay.provider;

/** What one charge call (with all its retries) established. */
public record ChargeResult(ProviderOutcome outcome, String providerPaymentId, String declineCode, String detail) {

    public static ChargeResult succeeded(String providerPaymentId) {
        return new ChargeResult(ProviderOutcome.SUCCEEDED, providerPaymentId, null, null);
    }

    public static ChargeResult failed(String providerPaymentId, String declineCode) {
        return new ChargeResult(ProviderOutcome.FAILED, providerPaymentId, declineCode, null);
    }

    public static ChargeResult unknown(String detail) {
        return new ChargeResult(ProviderOutcome.UNKNOWN, null, null, detail);
    }

    public static ChargeResult notSent(String detail) {
        return new ChargeResult(ProviderOutcome.NOT_SENT, null, null, detail);
    }
}
