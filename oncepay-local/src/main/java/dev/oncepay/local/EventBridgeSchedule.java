package dev.oncepay.local;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

/**
 * An EventBridge schedule rule ({@code rate(...)}) with a Lambda target: every interval it sends
 * the function a real "Scheduled Event" as an asynchronous invocation, whether or not the previous
 * one has finished (the invocation waits for a free sandbox, as in Lambda's async queue).
 */
final class EventBridgeSchedule implements AutoCloseable {
    static final String RULE = "oncepay-reconcile";
    private static final ObjectMapper JSON = new ObjectMapper();
    /** More waiting than this means the function is stuck or failing: skip a beat instead of piling up. */
    private static final int MAX_OUTSTANDING = 3;

    private final String function;
    private final Function<byte[], CompletableFuture<InvocationResult>> invoker;
    private final ScheduledFuture<?> task;
    private final AtomicInteger outstanding = new AtomicInteger();

    EventBridgeSchedule(String function, Duration every, ScheduledExecutorService timers,
            Function<byte[], CompletableFuture<InvocationResult>> invoker) {
        this.function = function;
        this.invoker = invoker;
        long millis = every.toMillis();
        this.task = timers.scheduleAtFixedRate(this::fire, millis, millis, TimeUnit.MILLISECONDS);
    }

    /** The event EventBridge delivers for a scheduled rule (time in whole seconds, as EventBridge sends it). */
    static ObjectNode scheduledEvent(String id, Instant time) {
        ObjectNode event = JSON.createObjectNode();
        event.put("version", "0");
        event.put("id", id);
        event.put("detail-type", "Scheduled Event");
        event.put("source", "aws.events");
        event.put("account", HttpApiV2.ACCOUNT_ID);
        event.put("time", time.truncatedTo(ChronoUnit.SECONDS).toString());
        event.put("region", SandboxCommand.REGION);
        event.putArray("resources")
                .add("arn:aws:events:" + SandboxCommand.REGION + ":" + HttpApiV2.ACCOUNT_ID + ":rule/" + RULE);
        event.putObject("detail");
        return event;
    }

    private void fire() {
        String id = UUID.randomUUID().toString();
        if (outstanding.get() >= MAX_OUTSTANDING) {
            Log.warn("schedule", "skipping event " + id + ": " + outstanding.get() + " earlier ones still wait for "
                    + function);
            return;
        }
        outstanding.incrementAndGet();
        byte[] event = scheduledEvent(id, Instant.now()).toString().getBytes(StandardCharsets.UTF_8);
        long started = System.nanoTime();
        invoker.apply(event).whenComplete((result, error) -> {
            outstanding.decrementAndGet();
            long ms = (System.nanoTime() - started) / 1_000_000;
            if (result instanceof InvocationResult.Success s) {
                Log.info("schedule", "rule/" + RULE + " -> " + result.ranBy(function) + " (" + ms + " ms): "
                        + abbreviate(new String(s.payload(), StandardCharsets.UTF_8)));
            } else if (result != null) {
                // Lambda would retry an async invocation twice more (after ~1 and ~2 minutes); the next beat does.
                Log.warn("schedule", "rule/" + RULE + " -> " + result.ranBy(function) + " failed (" + ms + " ms): "
                        + result.describe());
            }
        });
    }

    private static String abbreviate(String s) {
        return s.length() <= 600 ? s : s.substring(0, 600) + "…";
    }

    @Override
    public void close() {
        task.cancel(false);
    }
}
