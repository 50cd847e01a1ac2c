package dev.oncepay.delivery;

/** What one delivery call came to: only a {@code 2xx} in time acknowledges. */
public sealed interface CallOutcome {

    /** The short answer a delivery record keeps: the status, or what went wrong instead. */
    String lastAnswer();

    /** The endpoint answered {@code 2xx} within the call timeout. */
    record Acknowledged(int status) implements CallOutcome {
        @Override
        public String lastAnswer() {
            return Integer.toString(status);
        }
    }

    /**
     * Anything else: another status ({@code 500}), a redirect, which is never followed
     * ({@code redirect 302}), no answer in time ({@code timeout}), no connection ({@code connection refused}).
     */
    record Failed(String lastAnswer) implements CallOutcome {
    }
}
