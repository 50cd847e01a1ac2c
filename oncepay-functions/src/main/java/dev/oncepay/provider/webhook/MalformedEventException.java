package dev.oncepay.provider.webhook;

/** A correctly signed body that is not a usable event (400); nothing is stored. */
public class MalformedEventException extends RuntimeException {
    private final String field;
    private final String reason;

    public MalformedEventException(String field, String reason) {
        super(field + ": " + reason);
        this.field = field;
        this.reason = reason;
    }

    public String field() {
        return field;
    }

    public String reason() {
        return reason;
    }
}
