package dev.oncepay.sim;

import java.util.Arrays;
import java.util.Optional;

/**
 * Stripe's documented test payment methods the simulator knows, and what confirming a
 * PaymentIntent with each one does (https://docs.stripe.com/testing).
 */
enum StripeTestPaymentMethod {
    VISA("pm_card_visa", null, null, false),
    MASTERCARD("pm_card_mastercard", null, null, false),
    CHARGE_DECLINED("pm_card_chargeDeclined", "generic_decline", "Your card was declined.", false),
    INSUFFICIENT_FUNDS("pm_card_chargeDeclinedInsufficientFunds", "insufficient_funds",
            "Your card has insufficient funds.", false),
    AUTHENTICATION_REQUIRED("pm_card_authenticationRequired", null, null, true);

    private final String id;
    private final String declineCode;
    private final String declineMessage;
    private final boolean requiresAction;

    StripeTestPaymentMethod(String id, String declineCode, String declineMessage, boolean requiresAction) {
        this.id = id;
        this.declineCode = declineCode;
        this.declineMessage = declineMessage;
        this.requiresAction = requiresAction;
    }

    static Optional<StripeTestPaymentMethod> byId(String id) {
        return Arrays.stream(values()).filter(pm -> pm.id.equals(id)).findFirst();
    }

    String id() {
        return id;
    }

    /** The card's {@code decline_code}, or null when the card does not decline. */
    String declineCode() {
        return declineCode;
    }

    String declineMessage() {
        return declineMessage;
    }

    /** The card demands 3-D Secure: confirming leaves the PaymentIntent {@code requires_action}. */
    boolean requiresAction() {
        return requiresAction;
    }
}
