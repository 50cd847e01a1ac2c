package dev.oncepay.drill;

import dev.oncepay.local.LocalRun;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The local run as {@code run-local.sh} starts it — {@code dev.oncepay.local.LocalRun} in a JVM of
 * its own, tied to this one with {@code --parent-pid} — observed only from the outside: its output
 * goes to a log file (and is scanned for readiness and the functions' provider-call lines), and its
 * sandbox processes are found among its descendants by command line, each one's function read
 * from {@code /proc/<pid>/environ} ({@code AWS_LAMBDA_FUNCTION_NAME}).
 */
final class LocalRunProcess implements AutoCloseable {
    private static final Pattern PROVIDER_CALL = Pattern.compile(
            "ProviderGateway\\].*charge paymentId=\\S+ (?:account=\\S+ )?outcome=\\S+ attempts=(\\d+)");
    /** A sandbox's line ({@code [charge#1] ...}) that names a payment. */
    private static final Pattern PAYMENT_LINE = Pattern.compile("^\\[([a-z]+)#[^\\]]*\\].*?(pay_[0-9a-f]{32})");
    private static final String SANDBOX_MAIN = "dev.oncepay.local.SandboxMain";
    /** A function's breaker transition, as it logs it ({@code circuit breaker <name> is now <state>}). */
    private static final Pattern BREAKER_TRANSITION = Pattern.compile("circuit breaker (\\S+) is now ([A-Z_]+)");
    /** The functions' BreakerOpen metric, in its CloudWatch embedded-metric line. */
    private static final Pattern BREAKER_OPEN_METRIC = Pattern.compile("\"BreakerOpen\":(\\d+)");

    private final Process process;
    private final CountDownLatch ready = new CountDownLatch(1);
    final AtomicLong loggedProviderChargeCalls = new AtomicLong();
    /** The functions' log lines about payments, in order of arrival: where each charge came from. */
    final ConcurrentLinkedQueue<FunctionLine> paymentLines = new ConcurrentLinkedQueue<>();
    /** Breaker transitions the functions logged, by {@code <breaker> -> <state>}. */
    final Map<String, Integer> breakerTransitions = new ConcurrentHashMap<>();
    /** The sum of the functions' BreakerOpen metric. */
    final AtomicLong breakerOpenMetric = new AtomicLong();

    /** A function's log line naming a payment, stamped with this JVM's clock as it arrived. */
    record FunctionLine(long atNanos, String function, String paymentId, String line) {
    }
    private final Map<Long, String> functionOfPid = new ConcurrentHashMap<>();

    private LocalRunProcess(Process process, Path log) throws IOException {
        this.process = process;
        PrintStream file = new PrintStream(Files.newOutputStream(log), true, StandardCharsets.UTF_8);
        Thread reader = new Thread(() -> {
            try (BufferedReader in = new BufferedReader(new InputStreamReader(process.getInputStream(),
                    StandardCharsets.UTF_8))) {
                for (String line = in.readLine(); line != null; line = in.readLine()) {
                    file.println(line);
                    if (line.contains(LocalRun.READY)) {
                        ready.countDown();
                    }
                    Matcher m = PROVIDER_CALL.matcher(line);
                    if (m.find()) {
                        loggedProviderChargeCalls.addAndGet(Long.parseLong(m.group(1)));
                    }
                    Matcher t = BREAKER_TRANSITION.matcher(line);
                    if (t.find()) {
                        breakerTransitions.merge(t.group(1) + " -> " + t.group(2), 1, Integer::sum);
                    }
                    Matcher o = BREAKER_OPEN_METRIC.matcher(line);
                    if (o.find()) {
                        breakerOpenMetric.addAndGet(Long.parseLong(o.group(1)));
                    }
                    Matcher p = PAYMENT_LINE.matcher(line);
                    if (p.find()) {
                        paymentLines.add(new FunctionLine(System.nanoTime(), p.group(1), p.group(2), line));
                    }
                }
            } catch (IOException ended) {
                // the run's output closed
            } finally {
                file.close();
            }
        }, "drill-local-run-output");
        reader.setDaemon(true);
        reader.start();
    }

    static LocalRunProcess start(List<String> args, Path log) throws IOException {
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx384m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
                "-Djava.util.logging.manager=org.jboss.logmanager.LogManager",
                "-cp", classpath(), LocalRun.class.getName()));
        command.addAll(args);
        command.addAll(List.of("--parent-pid", Long.toString(ProcessHandle.current().pid())));
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        return new LocalRunProcess(p, log);
    }

    /** @return false when the run did not announce itself ready in time (or died) */
    boolean awaitReady(long seconds) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        while (System.nanoTime() < deadline) {
            if (ready.await(500, TimeUnit.MILLISECONDS)) {
                return true;
            }
            if (!process.isAlive()) {
                return false;
            }
        }
        return false;
    }

    /** Live sandbox processes by function name. */
    Map<String, List<ProcessHandle>> sandboxes() {
        Map<String, List<ProcessHandle>> result = new LinkedHashMap<>();
        process.descendants().filter(ProcessHandle::isAlive)
                .filter(p -> p.info().commandLine().orElse("").contains(SANDBOX_MAIN))
                .forEach(p -> {
                    String function = functionOfPid.computeIfAbsent(p.pid(), LocalRunProcess::functionOf);
                    result.computeIfAbsent(function, k -> new ArrayList<>()).add(p);
                });
        return result;
    }

    private static String functionOf(long pid) {
        try {
            String env = new String(Files.readAllBytes(Path.of("/proc/" + pid + "/environ")), StandardCharsets.UTF_8);
            for (String kv : env.split("\u0000")) {
                if (kv.startsWith("AWS_LAMBDA_FUNCTION_NAME=")) {
                    return kv.substring("AWS_LAMBDA_FUNCTION_NAME=".length());
                }
            }
        } catch (IOException | RuntimeException e) {
            // not Linux, or already gone
        }
        return "?";
    }

    /** SIGTERM (the run stops every process it started), then SIGKILL for whatever is left. */
    @Override
    public void close() {
        List<ProcessHandle> children = process.descendants().toList();
        process.toHandle().destroy();
        try {
            if (!process.waitFor(30, TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
            for (ProcessHandle c : children) {
                if (c.isAlive()) {
                    c.destroyForcibly();
                }
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            children.forEach(ProcessHandle::destroyForcibly);
            Thread.currentThread().interrupt();
        }
    }

    /** Surefire may hand a manifest-only jar; its real test classpath is in a property of its own. */
    private static String classpath() {
        String surefire = System.getProperty("surefire.test.class.path");
        return surefire != null && !surefire.isBlank() ? surefire : System.getProperty("java.class.path");
    }
}
