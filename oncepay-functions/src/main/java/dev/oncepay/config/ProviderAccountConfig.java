package dev.oncepay.config;

import java.time.Duration;
import java.util.Optional;

/** A provider account besides the default one ({@code oncepay.provider.accounts.<name>.*}). */
public interface ProviderAccountConfig {

    /** Provider id: {@code sim} or {@code stripe}. */
    String provider();

    /** Base URL of its API, e.g. {@code https://api.stripe.com}. */
    String url();

    /** How long its lookups may trail its charges; absent: its provider's default (as for the default account). */
    Optional<Duration> lookupLag();

    /** Its charge queue's URL; absent: its charges are never queued. */
    Optional<String> queueUrl();

    /** Its API key (charge and reconcile only; from Secrets Manager in production). */
    Optional<String> apiKey();
}
