package dev.oncepay.api;

/** The operator API was called without an operator's identity: answer 403, read and write nothing. */
public class ForbiddenException extends RuntimeException {
    public ForbiddenException(String message) {
        super(message);
    }
}
