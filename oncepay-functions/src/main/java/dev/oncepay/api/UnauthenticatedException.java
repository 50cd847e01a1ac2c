package dev.oncepay.api;

/** No trusted tenant in the request context: answer 401. */
public class UnauthenticatedException extends RuntimeException {
    public UnauthenticatedException(String message) {
        super(message);
    }
}
