package dev.oncepay.local;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One execution environment of a function: a JVM running the packaged handler under the runtime
 * interface client, fed through a Runtime API of its own. Like Lambda it replaces the process when
 * it dies (the invocation it was running fails with {@code Runtime.ExitError}) or when an
 * invocation outlives the function's timeout (that one fails with {@code Sandbox.Timedout}).
 * A sandbox whose init failed is not retried in a loop: like Lambda, the next invocation that
 * needs it tries a new cold start. A process that is dying (a SIGKILL pending) takes no invocation:
 * on Lambda it would go to another execution environment, so it waits for the replacement.
 */
final class Sandbox {
    private static final Duration STOP_GRACE = Duration.ofSeconds(3);
    private static final Duration MAX_RESTART_DELAY = Duration.ofSeconds(30);
    /** A process that lived at least this long was healthy: replace it at once when it dies. */
    private static final Duration HEALTHY_LIFETIME = Duration.ofSeconds(20);
    /** Why the local run itself ended a process to leave its sandbox cold ({@link #recycle()}). */
    private static final String RECYCLED = "recycle";

    final LambdaFunction function;
    final int slot;
    final String label;
    private final SandboxCommand command;
    private final Map<String, String> env;
    private final AtomicInteger generations = new AtomicInteger();
    private volatile Generation current;
    private volatile boolean stopped;
    private volatile boolean restartPending;
    private volatile String initFailure;
    private Duration restartDelay = Duration.ZERO;

    Sandbox(LambdaFunction function, int slot, SandboxCommand command, Map<String, String> env) {
        this.function = function;
        this.slot = slot;
        this.label = function.name + "#" + slot;
        this.command = command;
        this.env = env;
    }

    /** One process of this sandbox and its Runtime API; a replacement gets new ones. */
    final class Generation {
        final int number;
        final long startedNanos = System.nanoTime();
        RuntimeApiServer api;
        Process process;
        volatile boolean ready;
        volatile boolean dead;
        volatile String initError;
        volatile String lastCause;
        volatile String killedBecause;
        Invocation running;
        ScheduledFuture<?> timeoutTimer;
        /** When the process first asked for an invocation (init done); 0 before. */
        volatile long readyNanos;
        /** The first invocation's hand-out and answer (response or error posted); 0 before. */
        volatile long firstHandedOutNanos;
        volatile long firstAnsweredNanos;
        volatile int invocations;
        /** Time spent running invocations, hand-out to answer, summed. */
        volatile long busyNanos;
        long handedOutNanos;

        Generation(int number) {
            this.number = number;
        }

        String label() {
            return number == 1 ? label : label + "." + number;
        }

        /** Remembers the innermost cause a failing init prints, for a one-line init error. */
        void observe(String line) {
            if (!ready && line.startsWith("Caused by: ")) {
                lastCause = line.substring("Caused by: ".length());
            }
        }
    }

    synchronized void start() {
        restartPending = false;
        if (stopped || (current != null && !current.dead)) {
            return;
        }
        Generation g = new Generation(generations.incrementAndGet());
        try {
            g.api = RuntimeApiServer.start(this, g);
            g.process = ChildProcesses.start(command.builder(function.name, g.api.port(), function.memoryMb, env),
                    g.label(), g::observe);
        } catch (IOException | RuntimeException e) {
            Log.warn(label, "cannot start a sandbox: " + e);
            if (g.api != null) {
                g.api.stop();
            }
            initFailure = String.valueOf(e);
            function.initFailed("Runtime.Unknown", initFailure);
            return;
        }
        current = g;
        Log.info(g.label(), "sandbox started: pid " + g.process.pid() + ", Runtime API 127.0.0.1:" + g.api.port());
        g.process.onExit().thenRun(() -> exited(g));
    }

    /** Starts a cold sandbox (none running, none about to start) because an invocation waits. */
    void startIfCold() {
        Generation g = current;
        if (!stopped && !restartPending && (g == null || g.dead)) {
            function.timers().execute(this::start);
        }
    }

    /** Has this sandbox's current process initialised and asked for an invocation? */
    boolean ready() {
        Generation g = current;
        return g != null && g.ready && !g.dead && g.killedBecause == null;
    }

    /** Ready and not running anything. */
    boolean idle() {
        Generation g = current;
        synchronized (this) {
            return g != null && g.ready && !g.dead && g.killedBecause == null && g.running == null;
        }
    }

    /** Why the last init failed, while this sandbox is cold because of it; else null. */
    String initFailure() {
        return ready() ? null : initFailure;
    }

    /** The current process, if any. */
    ProcessHandle process() {
        Generation g = current;
        return g == null || g.process == null || g.dead ? null : g.process.toHandle();
    }

    // --- called by the sandbox's Runtime API -------------------------------------------------

    /** {@code GET /invocation/next}: blocks until there is an invocation for this process, or it is gone. */
    Invocation next(Generation g) throws InterruptedException {
        synchronized (this) {
            if (!g.ready) {
                g.readyNanos = System.nanoTime();
                g.ready = true;
                initFailure = null;
                Log.info(g.label(), String.format(Locale.ROOT, "ready after %.1f s (cold start)",
                        (System.nanoTime() - g.startedNanos) / 1e9));
            }
            if (g.running != null) {
                // The runtime asks for more without having answered: Lambda counts that as a failure.
                endRunning(g, InvocationResult.failure("Runtime.InvalidState",
                        "the runtime asked for the next invocation before answering " + g.running.requestId));
            }
        }
        while (!g.dead && !stopped) {
            Invocation invocation = function.poll(500);
            if (invocation == null) {
                continue;
            }
            synchronized (this) {
                if (g.dead || stopped || g.killedBecause != null || exiting(g.process)) {
                    // Being ended, or its exit not noticed yet: the invocation waits for another process.
                    function.requeue(invocation);
                    return null;
                }
                g.running = invocation;
                g.invocations++;
                g.handedOutNanos = System.nanoTime();
                if (g.firstHandedOutNanos == 0) {
                    g.firstHandedOutNanos = g.handedOutNanos;
                }
                g.timeoutTimer = function.timers().schedule(() -> timedOut(g, invocation),
                        function.timeout.toMillis(), TimeUnit.MILLISECONDS);
            }
            return invocation;
        }
        return null;
    }

    /** The answer to {@code GET /invocation/next} could not be written: the process never got it. */
    void undelivered(Generation g, Invocation invocation) {
        synchronized (this) {
            if (g.running != invocation || invocation.isDone()) {
                return;
            }
            g.running = null;
            if (g.timeoutTimer != null) {
                g.timeoutTimer.cancel(false);
            }
            function.requeue(invocation);
        }
        Log.warn(g.label(), "invocation " + invocation.requestId + " could not be handed to the runtime; it waits"
                + " for another sandbox");
    }

    /** {@code POST /invocation/{id}/response} or {@code /error}; false if that invocation is not running here. */
    boolean finished(Generation g, String requestId, InvocationResult result) {
        synchronized (this) {
            if (g.running == null || !g.running.requestId.equals(requestId)) {
                return false;
            }
            endRunning(g, result);
            return true;
        }
    }

    /** {@code POST /init/error}: the runtime could not load the handler; it exits next. */
    void initError(Generation g, String errorType, String message) {
        g.initError = errorType + ": " + message;
    }

    // --- Lambda's supervision ----------------------------------------------------------------

    private void endRunning(Generation g, InvocationResult result) {
        Invocation invocation = g.running;
        g.running = null;
        long now = System.nanoTime();
        g.busyNanos += now - g.handedOutNanos;
        if (g.firstAnsweredNanos == 0) {
            g.firstAnsweredNanos = now;
        }
        if (g.timeoutTimer != null) {
            g.timeoutTimer.cancel(false);
        }
        invocation.complete(result.ranIn(g.label()));
    }

    private void timedOut(Generation g, Invocation invocation) {
        synchronized (this) {
            if (g.running != invocation || g.dead) {
                return;
            }
            String seconds = String.format(Locale.ROOT, "%.2f", function.timeout.toMillis() / 1000.0);
            g.killedBecause = "timeout";
            endRunning(g, InvocationResult.failure("Sandbox.Timedout",
                    invocation.requestId + " Task timed out after " + seconds + " seconds"));
        }
        Log.warn(g.label(), "invocation " + invocation.requestId + " timed out after " + function.timeout.toMillis()
                + " ms: ending the sandbox (Lambda replaces it)");
        ChildProcesses.kill(g.process);
    }

    private void exited(Generation g) {
        Invocation lost;
        int status = g.process.exitValue();
        synchronized (this) {
            g.dead = true;
            lost = g.running;
            if (lost != null) {
                endRunning(g, InvocationResult.failure("Runtime.ExitError", "RequestId: " + lost.requestId
                        + " Error: Runtime exited with error: exit status " + status));
            }
        }
        g.api.stop();
        if (stopped) {
            return;
        }
        if (!g.ready && g.killedBecause == null) {
            String cause = g.lastCause != null ? g.lastCause
                    : g.initError != null ? g.initError : "exit status " + status;
            initFailure = cause;
            Log.warn(g.label(), "init failed (" + cause + "); the sandbox stays cold until an invocation needs it"
                    + hint(cause));
            function.initFailed("Runtime.ExitError", "init failed: " + cause);
            return;
        }
        if (RECYCLED.equals(g.killedBecause)) {
            Log.info(g.label(), "sandbox recycled; cold until an invocation needs it");
            return;
        }
        String why = g.killedBecause != null ? "ended after a " + g.killedBecause : "exited with status " + status;
        Log.warn(g.label(), "sandbox " + why + (lost != null ? "; invocation " + lost.requestId + " failed" : "")
                + "; replacing it");
        boolean crashedEarly = g.killedBecause == null
                && System.nanoTime() - g.startedNanos < HEALTHY_LIFETIME.toNanos();
        scheduleRestart(crashedEarly);
    }

    private String hint(String cause) {
        return cause.contains("does not match a function")
                ? " — this build has no @Funq(\"" + function.name + "\") yet"
                : "";
    }

    private synchronized void scheduleRestart(boolean backOff) {
        if (stopped) {
            return;
        }
        restartDelay = !backOff ? Duration.ZERO
                : restartDelay.isZero() ? Duration.ofSeconds(1) : min(restartDelay.multipliedBy(2), MAX_RESTART_DELAY);
        restartPending = true;
        function.timers().schedule(this::start, restartDelay.toMillis(), TimeUnit.MILLISECONDS);
    }

    /**
     * Ends the current process (SIGKILL) and leaves the sandbox cold, as Lambda retires an idle
     * execution environment: the next invocation that needs it pays a cold start. Returns once the
     * process is gone; false if there was none, or it was busy.
     */
    boolean recycle() throws InterruptedException {
        Generation g;
        synchronized (this) {
            g = current;
            if (stopped || g == null || g.dead || g.running != null || g.killedBecause != null) {
                return false;
            }
            g.killedBecause = RECYCLED;
        }
        ChildProcesses.kill(g.process);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!g.dead && System.nanoTime() < deadline) { // exited() marks it once the exit is noticed
            Thread.sleep(5);
        }
        return g.dead;
    }

    /** What {@code GET /_local/sandboxes} shows of this sandbox: its current process, or the last one. */
    record Status(String function, int slot, int generation, long pid, String state, double ageSeconds,
            Double initMs, Double firstInvocationMs, int invocations, double busyMs) {
    }

    Status status() {
        Generation g = current;
        if (g == null) {
            return new Status(function.name, slot, 0, -1, stopped ? "stopped" : "cold", 0, null, null, 0, 0);
        }
        String state;
        synchronized (this) {
            state = g.dead ? (restartPending ? "restarting" : initFailure != null ? "init-failed" : "cold")
                    : g.killedBecause != null ? "ending"
                    : !g.ready ? "initialising"
                    : g.running != null ? "busy" : "idle";
        }
        return new Status(function.name, slot, g.number, g.process.pid(), state,
                (System.nanoTime() - g.startedNanos) / 1e9, millis(g.startedNanos, g.readyNanos),
                millis(g.firstHandedOutNanos, g.firstAnsweredNanos), g.invocations, g.busyNanos / 1e6);
    }

    private static Double millis(long fromNanos, long toNanos) {
        return fromNanos == 0 || toNanos == 0 ? null : (toNanos - fromNanos) / 1e6;
    }

    private static final long PF_EXITING = 0x4;
    private static final long SIGKILL_BIT = 1L << 8;
    private static final boolean PROC_FS = Files.isDirectory(Path.of("/proc/self"));

    /**
     * Is the process gone or on its way out? A SIGKILLed JVM takes some milliseconds to exit (and
     * for its exit to be noticed) while its long-poll of {@code /next} is still open; Linux shows
     * the pending SIGKILL and the exiting flag in {@code /proc} at once. While the process is
     * reaped its entry fails to read (ENOENT, or ESRCH mid-read): that is gone too. Elsewhere:
     * only whether it has exited.
     */
    static boolean exiting(Process process) {
        if (!process.isAlive()) {
            return true;
        }
        if (!PROC_FS) {
            return false;
        }
        Path proc = Path.of("/proc", Long.toString(process.pid()));
        try {
            String stat = Files.readString(proc.resolve("stat"));
            String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            if ("ZX".indexOf(fields[0].charAt(0)) >= 0 || (Long.parseLong(fields[6]) & PF_EXITING) != 0) {
                return true;
            }
            for (String line : Files.readAllLines(proc.resolve("status"))) {
                if ((line.startsWith("SigPnd:") || line.startsWith("ShdPnd:"))
                        && (Long.parseUnsignedLong(line.substring(7).trim(), 16) & SIGKILL_BIT) != 0) {
                    return true;
                }
            }
            return false;
        } catch (IOException reaped) {
            return true;
        } catch (RuntimeException unknownFormat) {
            return false;
        }
    }

    void stop() {
        Generation g;
        synchronized (this) {
            stopped = true;
            g = current;
        }
        if (g == null) {
            return;
        }
        ChildProcesses.stop(g.process, STOP_GRACE);
        synchronized (this) {
            g.dead = true;
            if (g.running != null) {
                endRunning(g, InvocationResult.failure("Runtime.ExitError", "the local run stopped"));
            }
        }
        g.api.stop();
    }

    private static Duration min(Duration a, Duration b) {
        return a.compareTo(b) <= 0 ? a : b;
    }
}
