package dev.oncepay.drill;

import dev.oncepay.contract.DeploymentSettings;
import dev.oncepay.contract.Metrics;
import dev.oncepay.local.LocalRunChild;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
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
    /** A sandbox's line ({@code [charge#1] ...}, {@code [charge-worker#2] ...}) that names a payment. */
    private static final Pattern PAYMENT_LINE = Pattern.compile("^\\[([a-z-]+)#[^\\]]*\\].*?(pay_[0-9a-f]{32})");
    private static final String SANDBOX_MAIN = "dev.oncepay.local.SandboxMain";
    /** Every account's charge queue's name starts so; the event queue's does not. */
    private static final String CHARGE_QUEUES = DeploymentSettings.chargeQueueName("");
    /** A fleet breaker's transition, as the one sandbox that made it logs it ({@code FleetBreaker}). */
    private static final Pattern BREAKER_TRANSITION = Pattern.compile(
            "breaker transition ([A-Z_]+) -> ([A-Z_]+) account=(\\S+) operation=(\\S+):");
    /** The fleet protection's metrics, in the functions' CloudWatch embedded-metric lines. */
    private static final Pattern PROTECTION_METRIC = Pattern.compile("\"(" + String.join("|", Metrics.BREAKER_OPEN,
            Metrics.BREAKER_HALF_OPEN, Metrics.BREAKER_CLOSED, Metrics.BREAKER_REOPEN, Metrics.BREAKER_STORE_FAILED,
            Metrics.RETRY_BUDGET_SPENT, Metrics.PROVIDER_AT_CAPACITY, Metrics.CHARGE_DELAYED) + ")\":(\\d+)");
    /** The charge worker's queue lag, in its embedded-metric lines: request to the worker's start, ms. */
    private static final Pattern QUEUE_LAG = Pattern.compile("\"" + Metrics.CHARGE_QUEUE_LAG + "\":(\\d+)");

    private final LocalRunChild run;
    private final PrintStream file;
    final AtomicLong loggedProviderChargeCalls = new AtomicLong();
    /** The functions' log lines about payments, in order of arrival: where each charge came from. */
    final ConcurrentLinkedQueue<FunctionLine> paymentLines = new ConcurrentLinkedQueue<>();
    /** Breaker transitions the functions logged, by {@code <account> <operation> <from> -> <to>}. */
    final Map<String, Integer> breakerTransitions = new ConcurrentHashMap<>();
    /** The sums of the fleet protection's metrics the functions emitted, by name. */
    final Map<String, Long> protectionMetrics = new ConcurrentHashMap<>();
    /** Each message the charge worker took up: how long after its request, ms ({@code ChargeQueueLag}). */
    final ConcurrentLinkedQueue<Long> queueLagsMs = new ConcurrentLinkedQueue<>();
    /** The event-source mappings' invocations of the charge worker, from the local run's {@code [sqs]} lines. */
    final ConcurrentLinkedQueue<QueueDelivery> deliveries = new ConcurrentLinkedQueue<>();
    /** The event queue's mapping's invocations of event-delivery, from the same lines. */
    final ConcurrentLinkedQueue<QueueDelivery> eventBatches = new ConcurrentLinkedQueue<>();

    /** A function's log line naming a payment, stamped with this JVM's clock as it arrived. */
    record FunctionLine(long atNanos, String function, String paymentId, String line) {
    }
    private final Map<Long, String> functionOfPid = new ConcurrentHashMap<>();

    private LocalRunProcess(List<String> args, Path log) throws IOException {
        this.file = new PrintStream(Files.newOutputStream(log), true, StandardCharsets.UTF_8);
        this.run = LocalRunChild.start(args, this::scan);
    }

    /** Every line of the run: to the log file, and what the drill measures from the functions' own output. */
    private void scan(String line) {
        file.println(line);
        Matcher m = PROVIDER_CALL.matcher(line);
        if (m.find()) {
            loggedProviderChargeCalls.addAndGet(Long.parseLong(m.group(1)));
        }
        Matcher t = BREAKER_TRANSITION.matcher(line);
        if (t.find()) {
            breakerTransitions.merge(t.group(3) + " " + t.group(4) + " " + t.group(1) + " -> " + t.group(2), 1,
                    Integer::sum);
        }
        Matcher metric = PROTECTION_METRIC.matcher(line);
        while (metric.find()) {
            protectionMetrics.merge(metric.group(1), Long.parseLong(metric.group(2)), Long::sum);
        }
        Matcher lag = QUEUE_LAG.matcher(line);
        if (lag.find()) {
            queueLagsMs.add(Long.parseLong(lag.group(1)));
        }
        QueueDelivery delivery = QueueDelivery.parse(line);
        if (delivery != null) {
            (delivery.queue().startsWith(CHARGE_QUEUES) ? deliveries : eventBatches).add(delivery);
        }
        Matcher p = PAYMENT_LINE.matcher(line);
        if (p.find()) {
            paymentLines.add(new FunctionLine(System.nanoTime(), p.group(1), p.group(2), line));
        }
    }

    static LocalRunProcess start(List<String> args, Path log) throws IOException {
        return new LocalRunProcess(args, log);
    }

    /** @return false when the run did not announce itself ready in time (or died) */
    boolean awaitReady(long seconds) throws InterruptedException {
        return run.awaitReady(Duration.ofSeconds(seconds));
    }

    /** Live sandbox processes by function name. */
    Map<String, List<ProcessHandle>> sandboxes() {
        Map<String, List<ProcessHandle>> result = new LinkedHashMap<>();
        run.descendants().filter(ProcessHandle::isAlive)
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
        run.close();
        file.close();
    }
}
