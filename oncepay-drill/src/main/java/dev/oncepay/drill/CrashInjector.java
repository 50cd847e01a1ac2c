package dev.oncepay.drill;

import dev.oncepay.contract.DeploymentSettings;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

/**
 * Kills a function's sandbox process with SIGKILL ({@link ProcessHandle#destroyForcibly()}) at
 * seeded random moments, whatever it is doing — mid-claim, mid-provider-call, mid-settle. The local
 * run replaces a dead sandbox like Lambda does (the invocation it ran fails; the gateway answers
 * 502, or a charge worker's messages return to their queue after the visibility timeout) and the
 * next invocation gets a cold start.
 */
final class CrashInjector implements AutoCloseable {
    private final Supplier<Map<String, List<ProcessHandle>>> sandboxes;
    private final Recorder recorder;
    private final Random random;
    private final Duration every;
    private final Thread thread;
    private final AtomicInteger kills = new AtomicInteger();
    private final Map<String, AtomicInteger> byFunction = new java.util.concurrent.ConcurrentHashMap<>();
    private final java.util.Queue<Long> chargeKillsMs = new java.util.concurrent.ConcurrentLinkedQueue<>();
    private volatile boolean stopped;

    CrashInjector(Supplier<Map<String, List<ProcessHandle>>> sandboxes, Recorder recorder, long seed, Duration every) {
        this.sandboxes = sandboxes;
        this.recorder = recorder;
        this.random = new Random(seed * 17 + 3);
        this.every = every;
        this.thread = new Thread(this::loop, "drill-crashes");
        this.thread.setDaemon(true);
    }

    void start() {
        thread.start();
    }

    private void loop() {
        try {
            while (!stopped) {
                // Uniform in [0.4, 1.6] x the mean: random moments, bounded gaps.
                Thread.sleep((long) (every.toMillis() * (0.4 + 1.2 * random.nextDouble())));
                if (stopped) {
                    return;
                }
                double f = random.nextDouble();
                String function = f < 0.45 ? DeploymentSettings.FUNCTION_CHARGE
                        : f < 0.65 ? DeploymentSettings.FUNCTION_CHARGE_WORKER
                        : f < 0.85 ? DeploymentSettings.FUNCTION_WEBHOOK : DeploymentSettings.FUNCTION_RECONCILE;
                int pick = random.nextInt(16);
                List<ProcessHandle> live = sandboxes.get().getOrDefault(function, List.of()).stream()
                        .filter(ProcessHandle::isAlive).toList();
                if (live.isEmpty()) {
                    recorder.event("crash skipped: no live " + function + " sandbox");
                    continue;
                }
                ProcessHandle victim = live.get(pick % live.size());
                if (victim.destroyForcibly()) {
                    kills.incrementAndGet();
                    if (function.equals(DeploymentSettings.FUNCTION_CHARGE)) {
                        chargeKillsMs.add(recorder.nowMs());
                    }
                    byFunction.computeIfAbsent(function, k -> new AtomicInteger()).incrementAndGet();
                    recorder.event("crash: SIGKILL " + function + " sandbox pid " + victim.pid());
                }
            }
        } catch (InterruptedException e) {
            // stopped
        }
    }

    int kills() {
        return kills.get();
    }

    Map<String, AtomicInteger> byFunction() {
        return byFunction;
    }

    /** When charge sandboxes were killed, in ms since the workload started. */
    List<Long> chargeKillsMs() {
        return List.copyOf(chargeKillsMs);
    }

    @Override
    public void close() {
        stopped = true;
        thread.interrupt();
        try {
            thread.join(2000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
