package dev.oncepay.local;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;

/** One invocation of a function: the event, the X-Ray trace id, and the result once there is one. */
final class Invocation {
    final String requestId = UUID.randomUUID().toString();
    final byte[] payload;
    final String traceId;
    final Instant received = Instant.now();
    private final AtomicBoolean started = new AtomicBoolean();
    /** Done once a sandbox first started running it. */
    private final CompletableFuture<Void> running = new CompletableFuture<>();
    private final CompletableFuture<InvocationResult> result = new CompletableFuture<>();

    Invocation(byte[] payload, String traceId) {
        this.payload = payload;
        this.traceId = traceId;
    }

    /** Claims the invocation for a sandbox; false if it already ended (e.g. the caller gave up) or was taken. */
    boolean start() {
        if (!result.isDone() && started.compareAndSet(false, true)) {
            running.complete(null);
            return true;
        }
        return false;
    }

    /** An invocation that failed before it could run (no such function, stopping). */
    static Invocation failed(byte[] payload, String traceId, String errorType, String message) {
        Invocation invocation = new Invocation(payload, traceId);
        invocation.fail(errorType, message);
        return invocation;
    }

    CompletableFuture<Void> running() {
        return running;
    }

    /** A sandbox took it but could not run it: it may be handed out again. */
    void unstart() {
        started.set(false);
    }

    boolean complete(InvocationResult r) {
        return result.complete(r);
    }

    boolean fail(String errorType, String message) {
        return complete(InvocationResult.failure(errorType, message));
    }

    CompletableFuture<InvocationResult> result() {
        return result;
    }

    boolean isDone() {
        return result.isDone();
    }

    String payloadText() {
        return new String(payload, StandardCharsets.UTF_8);
    }
}
