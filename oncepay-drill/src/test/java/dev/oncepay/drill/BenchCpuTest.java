package dev.oncepay.drill;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;

/**
 * The CPU accounting read from /proc, on this JVM standing in for the local run: threads named as
 * the local run's are counted in their group by the CPU time they really spent (each spins until its
 * own CPU clock says so, so no timing is assumed), and in their process's figure.
 */
class BenchCpuTest {
    private static final long SPIN_NANOS = 60_000_000L;
    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

    @Test
    void aThreadsCpuCountsInItsGroupAndInItsProcess() throws Exception {
        long self = ProcessHandle.current().pid();
        Map<Long, BenchCpu.Part> processes = Map.of(self, BenchCpu.Part.LOCAL_RUN);
        BenchCpu.Sample start = BenchCpu.Sample.take(processes);
        CountDownLatch spun = new CountDownLatch(2);
        CountDownLatch sampled = new CountDownLatch(1);
        List<Thread> threads = new ArrayList<>();
        // Alive until the second sample: a thread that ended is no longer in /proc (its time is "other").
        for (String name : List.of("api-gateway", "psp-sim-webhook")) {
            Thread t = new Thread(() -> {
                long spinUntil = THREADS.getCurrentThreadCpuTime() + SPIN_NANOS;
                while (THREADS.getCurrentThreadCpuTime() < spinUntil) {
                    Thread.onSpinWait();
                }
                spun.countDown();
                try {
                    sampled.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }, name);
            t.start();
            threads.add(t);
        }
        spun.await();
        BenchCpu.Sample end = BenchCpu.Sample.take(processes);
        sampled.countDown();
        for (Thread t : threads) {
            t.join();
        }

        JsonNode cpu = BenchCpu.perUnit(start, end, 2);
        JsonNode ms = cpu.path("msPerCharge");
        assertEquals(2, cpu.path("charges").asLong());
        // Per charge: each thread's 60 ms over 2 charges (rounded to 0.1 ms).
        assertTrue(ms.path("localRunThreads").path("gateway").asDouble() >= 29.9, cpu.toString());
        assertTrue(ms.path("localRunThreads").path("simulator").asDouble() >= 29.9, cpu.toString());
        // The process's figure has both, at /proc/<pid>/stat's resolution (a clock tick, 10 ms at 100 Hz).
        assertTrue(ms.path("localRun").asDouble() >= 60 - 1000.0 / BenchCpu.TICKS_PER_SECOND, cpu.toString());
        assertEquals(ms.path("localRun").asDouble(), ms.path("total").asDouble(), cpu.toString());
        assertEquals(0.0, ms.path("chargeSandboxes").asDouble(), cpu.toString());
        assertTrue(ms.path("machine").asDouble() > 0, cpu.toString());
    }
}
