package dev.oncepay.sim;

/**
 * A test's scripted answer for the next charge request, before any random fault.
 *
 * @param executes whether the charge is executed (and recorded) before this answer is sent
 * @param body sent as is when {@code executes}; a refusal gets the provider's error body
 */
record ScriptedAnswer(int status, String body, boolean executes) {

    static ScriptedAnswer refusal(int status) {
        return new ScriptedAnswer(status, null, false);
    }

    static ScriptedAnswer afterCommit(int status, String body) {
        return new ScriptedAnswer(status, body, true);
    }
}
