package dev.oncepay.webhook;

/** What processing an event did, as journaled and answered. */
public enum WebhookOutcome {
    /** This event moved the payment to the fact it reports. */
    APPLIED("applied"),
    /** The payment already had this outcome (the charge run or the sweep got there first): nothing changed. */
    ALREADY_SETTLED("already_settled"),
    /** The event contradicts the payment (other terminal outcome, amount, currency, charge): now NEEDS_REVIEW. */
    CONFLICT("conflict"),
    /** The payment was charged through another provider than the event's sender: nothing changed. */
    PROVIDER_CONFLICT("provider_conflict"),
    /** The payment is already waiting for a human: nothing changed. */
    UNDER_REVIEW("under_review"),
    /** No payment has the event's reference: kept for audit only. */
    UNKNOWN_PAYMENT("unknown_payment"),
    /** A type oncepay does not act on: kept for audit only. */
    IGNORED_TYPE("ignored_type"),
    /** The charge is under way at the provider (processing, waiting for the customer): the payment is unchanged. */
    NOT_FINAL("not_final"),
    /**
     * Not about this deployment's payments (the provider's other mode, an object oncepay did not
     * create), or about a payment of another account than the one whose secret signed it: kept for
     * audit only, the payment unchanged.
     */
    NOT_OURS("not_ours");

    private final String apiName;

    WebhookOutcome(String apiName) {
        this.apiName = apiName;
    }

    public String apiName() {
        return apiName;
    }

    public static WebhookOutcome fromApiName(String name) {
        for (WebhookOutcome o : values()) {
            if (o.apiName.equals(name)) {
                return o;
            }
        }
        throw new IllegalArgumentException("unknown outcome " + name);
    }
}
