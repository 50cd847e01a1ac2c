package dev.oncepay.webhook;

/** No signing secret is configured for this provider id: there is no such webhook endpoint (404). */
public class UnknownProviderException extends RuntimeException {
    public UnknownProviderException(String provider) {
        super("no webhook endpoint for provider " + provider);
    }
}
