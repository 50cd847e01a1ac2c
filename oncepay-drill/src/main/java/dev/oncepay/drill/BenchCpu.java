package dev.oncepay.drill;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * Where the CPU goes during a phase of the benchmark (is the throughput phase spent in
 * oncepay's functions or in the local run's stand-ins?). A {@link Sample} reads, from Linux's
 * {@code /proc}, the user+system time every process of the run has spent so far — and each thread of
 * the local-run JVM, which hosts the gateway, the Runtime APIs, the store fault proxy and the
 * simulator, and of the charge sandboxes (the request thread apart from the JIT compiler) — and the
 * machine's busy time; two samples give each part's CPU milliseconds between them. What the machine spent beyond our processes (other work on this shared machine, the
 * kernel's interrupts) shows as {@code other}. A process that ended between the samples is not
 * counted (its time lands in {@code other}); one that started counts from zero. A process's figure
 * has {@code /proc/<pid>/stat}'s resolution (a clock tick, 10 ms at 100 Hz: fine over hundreds of charges),
 * a thread's is exact (schedstat); a thread that ended meanwhile counts in its process's
 * {@code other} threads.
 */
final class BenchCpu {
    private static final ObjectMapper JSON = new ObjectMapper();
    /** The unit of /proc's times; Linux's USER_HZ is 100 nearly everywhere, the fallback if getconf fails. */
    static final long TICKS_PER_SECOND = clockTicks();

    /** The kinds of process a benchmark run is made of; {@code threadsKey}: its threads are counted apart, under that key. */
    enum Part {
        CHARGE_SANDBOXES("chargeSandboxes", "charge sandboxes", "chargeSandboxThreads"),
        OTHER_SANDBOXES("otherSandboxes", "webhook+reconcile sandboxes", null),
        DYNALITE("dynalite", "dynalite", null),
        LOCAL_RUN("localRun", "local-run JVM", "localRunThreads"),
        BENCH("bench", "bench JVM (clients)", null);

        final String key;
        final String label;
        final String threadsKey;

        Part(String key, String label, String threadsKey) {
            this.key = key;
            this.label = label;
            this.threadsKey = threadsKey;
        }
    }

    /**
     * The threads of the local-run JVM (which hosts the gateway, the Runtime APIs, the store fault
     * proxy and the simulator) and of the charge sandboxes, grouped by the name /proc shows (a Java
     * thread's name, cut at 15 characters); what none of its part's groups matches is {@code other}.
     */
    enum Threads {
        GATEWAY(Part.LOCAL_RUN, "gateway", "gateway", "api-gateway"),
        RUNTIME_API(Part.LOCAL_RUN, "runtimeApi", "Runtime API", "runtime-api-"),
        STORE_PROXY(Part.LOCAL_RUN, "storeProxy", "store proxy", "store-fault-pro"),
        SIMULATOR(Part.LOCAL_RUN, "simulator", "simulator", "psp-sim-"),
        /** The accept-and-parse thread of every server above (the JDK's HttpServer, one each). */
        HTTP_DISPATCH(Part.LOCAL_RUN, "httpDispatch", "HTTP dispatch", "HTTP-Dispatcher"),
        /** The JDK HttpClients' selector and worker threads: the store proxy's to dynalite, the simulator's webhooks. */
        HTTP_CLIENTS(Part.LOCAL_RUN, "httpClients", "HTTP clients", "HttpClient-"),
        /** The readers that copy each sandbox's and dynalite's output into the run's log. */
        CHILD_OUTPUT(Part.LOCAL_RUN, "childOutput", "child output", "output-"),
        JVM(Part.LOCAL_RUN, "jvm", "JIT+GC", "VM Thread", "C1 CompilerThre", "C2 CompilerThre", "GC Thread", "VM Periodic Tas"),
        /** The main thread ({@code java}: the launcher names it), which runs the runtime client's loop and the handler. */
        REQUEST(Part.CHARGE_SANDBOXES, "request", "request thread", "java"),
        JIT(Part.CHARGE_SANDBOXES, "jit", "JIT compiler", "C1 CompilerThre", "C2 CompilerThre"),
        /** The JDK HttpClients' selector threads, which read the store's and the provider's answers. */
        SANDBOX_HTTP_CLIENTS(Part.CHARGE_SANDBOXES, "httpClients", "HTTP client selectors", "HttpClient-"),
        SANDBOX_JVM(Part.CHARGE_SANDBOXES, "gcVm", "GC+VM", "VM Thread", "GC Thread", "VM Periodic Tas", "Monitor Deflati",
                "Sweeper thread", "Service Thread");

        final Part part;
        final String key;
        final String label;
        private final List<String> namePrefixes;

        Threads(Part part, String key, String label, String... namePrefixes) {
            this.part = part;
            this.key = key;
            this.label = label;
            this.namePrefixes = List.of(namePrefixes);
        }

        /** The groups of {@code part}'s threads. */
        static List<Threads> of(Part part) {
            return Arrays.stream(values()).filter(group -> group.part == part).toList();
        }

        /** The group of a thread of {@code part} by its /proc name, or null for {@code other}. */
        static Threads of(Part part, String threadName) {
            for (Threads group : of(part)) {
                if (group.namePrefixes.stream().anyMatch(threadName::startsWith)) {
                    return group;
                }
            }
            return null;
        }
    }

    /** CPU nanoseconds a process has spent so far, its threads that ended included. */
    private record ProcessCpu(Part part, long nanos) {
    }

    /** CPU nanoseconds a live thread of a part whose threads count apart has spent so far; {@code group} null: other. */
    private record ThreadCpu(Part part, Threads group, long nanos) {
    }

    /**
     * What was spent up to one moment.
     *
     * @param processes by pid
     * @param threads those of the processes whose part counts them apart, by {@code <pid>/<thread id>}
     */
    record Sample(long nanos, long machineBusyNanos, long machineNanos, Map<Long, ProcessCpu> processes,
            Map<String, ThreadCpu> threads) {
        /** @param processes the run's processes and what each is */
        static Sample take(Map<Long, Part> processes) throws IOException {
            Map<Long, ProcessCpu> spent = new HashMap<>();
            Map<String, ThreadCpu> threadsSpent = new HashMap<>();
            for (Map.Entry<Long, Part> process : processes.entrySet()) {
                long ticks = processTicks(process.getKey());
                if (ticks < 0) {
                    continue;
                }
                spent.put(process.getKey(), new ProcessCpu(process.getValue(), ticksToNanos(ticks)));
                if (process.getValue().threadsKey != null) {
                    readThreads(process.getKey(), process.getValue(), threadsSpent);
                }
            }
            // cpu  user nice system idle iowait irq softirq steal ...: busy is all but idle and iowait.
            String[] cpu = Files.readAllLines(Path.of("/proc/stat")).get(0).trim().split("\\s+");
            long busy = 0;
            long all = 0;
            for (int i = 1; i <= 8 && i < cpu.length; i++) {
                long ticks = Long.parseLong(cpu[i]);
                all += ticks;
                busy += i == 4 || i == 5 ? 0 : ticks;
            }
            return new Sample(System.nanoTime(), ticksToNanos(busy), ticksToNanos(all), spent, threadsSpent);
        }
    }

    /**
     * Each live thread's CPU time, from schedstat in nanoseconds: stat's ticks, cut to 10 ms for each
     * of dozens of threads that each run a little, would lose most of it.
     */
    private static void readThreads(long pid, Part part, Map<String, ThreadCpu> spent) {
        try (Stream<Path> threads = Files.list(Path.of("/proc", Long.toString(pid), "task"))) {
            threads.forEach(t -> {
                try {
                    String name = Files.readString(t.resolve("comm"), StandardCharsets.UTF_8).strip();
                    long ran = Long.parseLong(Files.readString(t.resolve("schedstat"), StandardCharsets.UTF_8)
                            .split(" ")[0]);
                    spent.put(pid + "/" + t.getFileName(), new ThreadCpu(part, Threads.of(part, name), ran));
                } catch (IOException ended) {
                    // the thread ended: its time is in the process's, as "other"
                }
            });
        } catch (IOException ended) {
            // the process ended since its figure was read: its threads count as "other"
        }
    }

    /** User+system clock ticks of a process, every thread it had included; -1 when it has ended. */
    private static long processTicks(long pid) {
        String s;
        try {
            s = Files.readString(Path.of("/proc", Long.toString(pid), "stat"), StandardCharsets.UTF_8);
        } catch (IOException gone) {
            return -1;
        }
        // "pid (name) state ppid ...": the name may hold spaces and parentheses, so fields count
        // from the last ')'; utime and stime are fields 14 and 15, the 12th and 13th after it.
        String[] fields = s.substring(s.lastIndexOf(')') + 2).split(" ");
        return Long.parseLong(fields[11]) + Long.parseLong(fields[12]);
    }

    private static long ticksToNanos(long ticks) {
        return ticks * 1_000_000_000L / TICKS_PER_SECOND;
    }

    private BenchCpu() {
    }

    /**
     * The CPU each part spent between two samples, in milliseconds per charge (or whatever
     * {@code units} counts): {@code msPerCharge} by part, the local-run JVM's and the charge sandboxes' split by thread,
     * {@code total} (ours), {@code machine} and {@code other} (the machine's beyond ours); with the
     * window's length and the machine's busy share over it.
     */
    static ObjectNode perUnit(Sample start, Sample end, long units) {
        Map<Part, Long> byPart = new EnumMap<>(Part.class);
        Map<Threads, Long> byThread = new EnumMap<>(Threads.class);
        end.processes().forEach((pid, p) -> {
            ProcessCpu before = start.processes().get(pid);
            byPart.merge(p.part(), Math.max(0, p.nanos() - (before == null ? 0 : before.nanos())), Long::sum);
        });
        Map<Part, Long> namedThreads = new EnumMap<>(Part.class);
        for (Map.Entry<String, ThreadCpu> e : end.threads().entrySet()) {
            if (e.getValue().group() != null) {
                ThreadCpu before = start.threads().get(e.getKey());
                long spent = Math.max(0, e.getValue().nanos() - (before == null ? 0 : before.nanos()));
                byThread.merge(e.getValue().group(), spent, Long::sum);
                namedThreads.merge(e.getValue().part(), spent, Long::sum);
            }
        }
        long ours = byPart.values().stream().mapToLong(Long::longValue).sum();
        long machine = end.machineBusyNanos() - start.machineBusyNanos();
        ObjectNode result = JSON.createObjectNode();
        result.put("seconds", Math.round((end.nanos() - start.nanos()) / 1e8) / 10.0);
        result.put("charges", units);
        result.put("machineBusyPercent", Math.round(100.0 * machine / Math.max(1, end.machineNanos() - start.machineNanos())));
        result.put("clockTicksPerSecond", TICKS_PER_SECOND);
        ObjectNode ms = result.putObject("msPerCharge");
        for (Part part : Part.values()) {
            ms.put(part.key, ms(byPart.getOrDefault(part, 0L), units));
        }
        for (Part part : Part.values()) {
            if (part.threadsKey != null) {
                ObjectNode threads = ms.putObject(part.threadsKey);
                for (Threads group : Threads.of(part)) {
                    threads.put(group.key, ms(byThread.getOrDefault(group, 0L), units));
                }
                threads.put("other", ms(Math.max(0, byPart.getOrDefault(part, 0L) - namedThreads.getOrDefault(part, 0L)),
                        units));
            }
        }
        ms.put("total", ms(ours, units));
        ms.put("machine", ms(machine, units));
        ms.put("other", ms(Math.max(0, machine - ours), units));
        return result;
    }

    private static double ms(long nanos, long units) {
        return units == 0 ? Double.NaN : Math.round(nanos / 1e5 / units) / 10.0;
    }

    private static long clockTicks() {
        try {
            Process p = new ProcessBuilder("getconf", "CLK_TCK").redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
            return p.waitFor() == 0 ? Long.parseLong(out) : 100;
        } catch (IOException | RuntimeException e) {
            return 100;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return 100;
        }
    }
}
