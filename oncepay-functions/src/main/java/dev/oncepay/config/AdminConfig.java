package dev.oncepay.config;

import java.time.Duration;
import java.util.Optional;

/** What the operator API lists ({@code oncepay.admin.*}). */
public interface AdminConfig {

    /**
     * How old a PENDING payment must be to be listed as {@code pending} by the operator API;
     * absent: when the sweep first looks at it (twice the key's lease after its creation).
     */
    Optional<Duration> pendingAfter();
}
