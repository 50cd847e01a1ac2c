package dev.oncepay.payment;

/**
 * What the customer must still do before the provider charges (3-D Secure and the like), handed
 * to the merchant's front end with the {@code 202}: the provider's client secret for this payment
 * and its description of the next action (JSON, as the provider sent it). Never logged.
 */
public record CustomerAction(String clientSecret, String nextActionJson) {
}
