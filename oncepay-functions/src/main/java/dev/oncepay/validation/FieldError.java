package dev.oncepay.validation;

/** One invalid part of a request, named so a client can fix exactly that. */
public record FieldError(String field, String message) {
}
