package dev.oncepay.provider.webhook;

/**
 * An event whose signature verified, and the provider account whose secret signed it: the only
 * account whose payments the event may speak for.
 */
public record VerifiedEvent(String account, ProviderEvent event) {
}
