package dev.oncepay.config;

/**
 * The payment the current invocation is about, when only the code handling it knows (a webhook's
 * event), for the invocation's log line. It lives below the use cases so they can name the payment
 * without knowing the log that writes it.
 */
public final class LoggedPayment {
    private static final ThreadLocal<String> PAYMENT = new ThreadLocal<>();

    private LoggedPayment() {
    }

    /** Names the payment of the current invocation; the log ignores an id that is not a payment's. */
    public static void name(String paymentId) {
        PAYMENT.set(paymentId);
    }

    public static String current() {
        return PAYMENT.get();
    }

    public static void clear() {
        PAYMENT.remove();
    }
}
