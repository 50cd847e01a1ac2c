package dev.oncepay.provider.webhook;

import dev.oncepay.config.SigningSecret;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

/**
 * One provider's webhook dialect: the header its signature travels in, how it is verified, and
 * how its events read as {@link ProviderEvent}s. One application-scoped bean per provider id;
 * {@code POST /webhooks/{provider}} answers only for providers with a format and secrets.
 */
public interface WebhookFormat {

    /** The provider id, as in {@code /webhooks/{provider}} and {@code ProviderAccount.provider()}. */
    String providerId();

    /** The request header carrying the signature. */
    String signatureHeader();

    /**
     * Verifies the signature over the raw bytes, then reads the event. Nothing is parsed before
     * the signature verifies.
     *
     * @param signature the {@link #signatureHeader()} value, {@code null} if absent
     * @param secrets the provider's active signing secrets with their accounts (at least one)
     * @return the event and the account whose secret signed it
     * @throws InvalidSignatureException the request is not provably from the provider
     * @throws MalformedEventException a verified body that is not an event of this provider
     */
    VerifiedEvent read(String signature, byte[] rawBody, List<SigningSecret> secrets, Instant now, Duration tolerance);
}
