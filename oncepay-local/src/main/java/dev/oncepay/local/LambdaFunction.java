package dev.oncepay.local;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingDeque;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingDeque;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * One Lambda function: its pending invocations and its sandboxes. Invocations wait in one queue
 * that every idle sandbox polls (through its own Runtime API), so concurrent requests really run
 * in different processes at once, as on Lambda. With all sandboxes busy a request waits for one
 * (locally the sandboxes are fixed; Lambda would start more, up to the reserved concurrency).
 */
final class LambdaFunction implements AutoCloseable {
    /** Lambda's largest synchronous response. */
    static final int MAX_RESPONSE_BYTES = 6 * 1024 * 1024;

    final String name;
    final String arn;
    final Duration timeout;
    final long memoryMb;
    private final BlockingDeque<Invocation> queue = new LinkedBlockingDeque<>();
    private final List<Sandbox> sandboxes = new ArrayList<>();
    private final ScheduledExecutorService timers;
    private volatile boolean closed;

    LambdaFunction(String name, Duration timeout, long memoryMb, ScheduledExecutorService timers) {
        this.name = name;
        this.arn = "arn:aws:lambda:" + SandboxCommand.REGION + ":" + HttpApiV2.ACCOUNT_ID + ":function:" + name;
        this.timeout = timeout;
        this.memoryMb = memoryMb;
        this.timers = timers;
    }

    void add(Sandbox sandbox) {
        sandboxes.add(sandbox);
    }

    List<Sandbox> sandboxes() {
        return List.copyOf(sandboxes);
    }

    /** Invokes the function with {@code event}; the future ends with the function's result or Lambda's error. */
    CompletableFuture<InvocationResult> invoke(byte[] event, String traceId) {
        return submit(event, traceId).result();
    }

    /** Queues an invocation of the function with {@code event} for the next idle sandbox. */
    Invocation submit(byte[] event, String traceId) {
        Invocation invocation = new Invocation(event, traceId);
        if (closed) {
            invocation.fail("ServiceException", "the local run is stopping");
        } else if (sandboxes.isEmpty()) {
            invocation.fail("ResourceNotFoundException", "function " + name + " has no sandboxes in this local run");
        } else {
            queue.add(invocation);
            if (closed) {
                invocation.fail("ServiceException", "the local run is stopping");
            } else if (sandboxes.stream().noneMatch(Sandbox::idle)) {
                // Lambda would start an execution environment for it: wake the cold ones.
                sandboxes.forEach(Sandbox::startIfCold);
            }
        }
        return invocation;
    }

    /** The next invocation for a sandbox, or null after {@code waitMs} without one. */
    Invocation poll(long waitMs) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(waitMs);
        while (true) {
            long left = deadline - System.nanoTime();
            Invocation next = queue.pollFirst(Math.max(0, left), TimeUnit.NANOSECONDS);
            if (next == null || next.start()) {
                return next;
            }
            // already over (the caller gave up while it waited): drop it
        }
    }

    /** A sandbox took {@code invocation} but died before running it: first in line again. */
    void requeue(Invocation invocation) {
        invocation.unstart();
        queue.addFirst(invocation);
    }

    /**
     * A sandbox failed to initialise. When no sandbox of this function is ready, Lambda would answer
     * the waiting invocations with the init error rather than let them hang: do the same.
     */
    void initFailed(String errorType, String message) {
        if (sandboxes.stream().anyMatch(Sandbox::ready)) {
            return;
        }
        for (Invocation waiting = queue.pollFirst(); waiting != null; waiting = queue.pollFirst()) {
            waiting.fail(errorType, message);
        }
    }

    boolean allSandboxesReady() {
        return sandboxes.stream().allMatch(Sandbox::ready);
    }

    /** True once every sandbox has either initialised or failed to (and stays cold). */
    boolean settled() {
        return sandboxes.stream().allMatch(s -> s.ready() || s.initFailure() != null);
    }

    /** E.g. {@code charge 2/2 ready} or {@code webhook 0/1 ready (init failed: ...)}. */
    String readiness() {
        long ready = sandboxes.stream().filter(Sandbox::ready).count();
        String failure = sandboxes.stream().map(Sandbox::initFailure).filter(f -> f != null).findFirst()
                .map(f -> " (init failed: " + f + ")").orElse("");
        return name + " " + ready + "/" + sandboxes.size() + " ready" + failure;
    }

    ScheduledExecutorService timers() {
        return timers;
    }

    boolean closed() {
        return closed;
    }

    @Override
    public void close() {
        closed = true;
        sandboxes.parallelStream().forEach(Sandbox::stop);
        for (Invocation waiting = queue.pollFirst(); waiting != null; waiting = queue.pollFirst()) {
            waiting.fail("ServiceException", "the local run stopped");
        }
    }
}
