package dev.oncepay.payment;

import java.util.Objects;

/**
 * Who moved a payment, as its history records it.
 *
 * @param id what identifies the writer within its kind: the charge run's lease epoch, the
 *        webhook event ({@code <provider>/<eventId>}), {@code reconcile} for the sweep, the operator's id
 */
public record Actor(Kind kind, String id) {
    public enum Kind {
        /** A charge request's run, fenced by its lease epoch (a takeover has a higher one). */
        CHARGE_RUN,
        /** A refund request's run, fenced by its lease epoch like a charge run. */
        REFUND_RUN,
        /** A provider webhook event. */
        WEBHOOK,
        /** A reconcile sweep. */
        SWEEP,
        /** An operator, through the admin API. */
        OPERATOR
    }

    /** Every sweep alike: the history needs to say it was the sweep, not which run. */
    public static final Actor SWEEP = new Actor(Kind.SWEEP, "reconcile");

    public Actor {
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(id, "id");
    }

    public static Actor chargeRun(long epoch) {
        return new Actor(Kind.CHARGE_RUN, "epoch " + epoch);
    }

    public static Actor refundRun(long epoch) {
        return new Actor(Kind.REFUND_RUN, "epoch " + epoch);
    }

    public static Actor webhook(String provider, String eventId) {
        return new Actor(Kind.WEBHOOK, provider + "/" + eventId);
    }

    public static Actor operator(String operatorId) {
        return new Actor(Kind.OPERATOR, operatorId);
    }
}
