package dev.oncepay.idempotency;

/** The key was used before with a different request: answer 422, never replay it for this one. */
public class FingerprintMismatchException extends RuntimeException {
    public FingerprintMismatchException() {
        super("this Idempotency-Key was already used with a different request");
    }
}
