package dev.oncepay.validation;

import java.util.List;
import java.util.stream.Collectors;

/** The request cannot be processed as sent: answer 400 naming each problem, store nothing. */
public class InvalidRequestException extends RuntimeException {
    private final List<FieldError> errors;

    public InvalidRequestException(List<FieldError> errors) {
        super(errors.stream().map(e -> e.field() + ": " + e.message()).collect(Collectors.joining("; ")));
        this.errors = List.copyOf(errors);
    }

    public InvalidRequestException(String field, String message) {
        this(List.of(new FieldError(field, message)));
    }

    public List<FieldError> errors() {
        return errors;
    }
}
