package dev.oncepay.provider.webhook;

/**
 * The request is not provably from the provider: answer 401 and store nothing. The message says
 * what was wrong with the header or timestamp; it never contains a secret or an expected MAC.
 */
public class InvalidSignatureException extends RuntimeException {
    public InvalidSignatureException(String message) {
        super(message);
    }
}
