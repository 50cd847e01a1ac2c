package dev.oncepay.sim;

/**
 * A test's scripted Stripe error for the next {@code POST /v1/payment_intents}, before any random
 * fault ({@link StripeMode#scriptError}).
 *
 * @param executes whether the create runs (and its answer is stored for the key) before this error is sent
 */
record StripeScriptedError(ApiError error, boolean executes) {
}
