package dev.oncepay.local;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.oncepay.contract.DeploymentSettings;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import software.amazon.awssdk.core.SdkBytes;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.Message;
import software.amazon.awssdk.services.sqs.model.MessageAttributeValue;
import software.amazon.awssdk.services.sqs.model.MessageSystemAttributeName;
import software.amazon.awssdk.services.sqs.model.QueueAttributeName;

/**
 * Lambda's SQS event-source mapping as the local run emulates it, against the local run's charge
 * queues on a real ElasticMQ: the event Lambda sends, partial batch responses, failed invocations
 * and the redrive to the dead-letter queue (through a real sandbox), the maximum concurrency, and
 * a stop that leaves no poller behind. Each test has a queue (an account) of its own.
 */
@Timeout(120)
class SqsEventSourceMappingTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    /** Short, so that a failed message is back within a second. */
    private static final Duration VISIBILITY = Duration.ofSeconds(1);
    private static final InvocationResult EMPTY_SUCCESS = new InvocationResult.Success(new byte[0]);
    private static LocalQueues queues;
    private static SqsClient sqs;

    @BeforeAll
    static void start() {
        queues = LocalQueues.start(0, List.of("shape", "partial", "redrive", "concurrency", "stop"), VISIBILITY, null);
        sqs = LocalQueues.client(queues.endpoint(), UrlConnectionHttpClient.create());
    }

    /** The mappings' cut long polls are still open on the server: ElasticMQ cuts them instead of waiting out their 20 s. */
    @AfterAll
    static void stop() {
        sqs.close();
        long started = System.nanoTime();
        queues.close();
        long ms = (System.nanoTime() - started) / 1_000_000;
        assertTrue(ms < 5000, "ElasticMQ stopped in " + ms + " ms");
    }

    @Test
    void theQueuesAreSetAsInfraSetsThem() {
        LocalQueues.Queue queue = queues.queue("shape");
        assertEquals("oncepay-charges-shape", queue.name());
        assertEquals(queues.endpoint() + "/000000000000/oncepay-charges-shape", queue.url());
        assertEquals("arn:aws:sqs:us-east-1:000000000000:oncepay-charges-shape", queue.arn());
        Map<QueueAttributeName, String> attributes = attributes(queue.url());
        assertEquals("1", attributes.get(QueueAttributeName.VISIBILITY_TIMEOUT));
        JsonNode redrive = read(attributes.get(QueueAttributeName.REDRIVE_POLICY));
        assertEquals(DeploymentSettings.CHARGE_QUEUE_MAX_RECEIVES, redrive.get("maxReceiveCount").asInt());
        assertTrue(redrive.get("deadLetterTargetArn").asText().endsWith(":oncepay-charges-shape-dlq"), redrive.toString());
        assertEquals(queues.endpoint() + "/000000000000/oncepay-charges-shape-dlq", queue.deadLetterUrl());
    }

    /** Field by field as AWS's sample SQS event for Lambda, in its order. */
    @Test
    void theEventIsLambdasSqsEvent() throws Exception {
        LocalQueues.Queue queue = queues.queue("shape");
        BlockingQueue<JsonNode> events = new LinkedBlockingQueue<>();
        String withAttributes = sqs.sendMessage(b -> b.queueUrl(queue.url()).messageBody("{\"paymentId\":\"pay_1\"}")
                .messageAttributes(Map.of("tenant", MessageAttributeValue.builder().dataType("String").stringValue("merchant-a").build(),
                        "raw", MessageAttributeValue.builder().dataType("Binary").binaryValue(SdkBytes.fromUtf8String("xy")).build())))
                .messageId();
        String plain = sqs.sendMessage(b -> b.queueUrl(queue.url()).messageBody("plain")).messageId();
        try (SqsEventSourceMapping mapping = new SqsEventSourceMapping(queues.endpoint(), queue, "charge-worker", 1, 2,
                event -> {
                    events.add(read(event));
                    return CompletableFuture.completedFuture(EMPTY_SUCCESS);
                })) {
            Map<String, JsonNode> byId = new TreeMap<>();
            for (int i = 0; i < 2; i++) {
                JsonNode event = events.poll(30, TimeUnit.SECONDS);
                assertNotNull(event, "two events");
                assertEquals(List.of("Records"), fieldNames(event));
                assertEquals(1, event.get("Records").size(), "batch size 1");
                JsonNode record = event.get("Records").get(0);
                byId.put(record.get("messageId").asText(), record);
            }
            JsonNode record = byId.get(withAttributes);
            assertEquals(List.of("messageId", "receiptHandle", "body", "attributes", "messageAttributes", "md5OfBody",
                    "md5OfMessageAttributes", "eventSource", "eventSourceARN", "awsRegion"), fieldNames(record),
                    "as AWS documents it, and SQS's digest of the attributes with them");
            assertFalse(record.get("receiptHandle").asText().isEmpty());
            assertEquals("{\"paymentId\":\"pay_1\"}", record.get("body").asText());
            JsonNode attributes = record.get("attributes");
            assertEquals(List.of("ApproximateReceiveCount", "SentTimestamp", "SenderId", "ApproximateFirstReceiveTimestamp"),
                    fieldNames(attributes));
            assertEquals("1", attributes.get("ApproximateReceiveCount").asText());
            assertTrue(attributes.get("SentTimestamp").isTextual() && attributes.get("SentTimestamp").asText().matches("\\d{13}"),
                    "milliseconds as a string: " + attributes);
            assertTrue(attributes.get("ApproximateFirstReceiveTimestamp").asText().matches("\\d{13}"));
            assertFalse(attributes.get("SenderId").asText().isEmpty());
            assertEquals(read("{\"raw\":{\"binaryValue\":\"eHk=\",\"stringListValues\":[],\"binaryListValues\":[],"
                    + "\"dataType\":\"Binary\"},\"tenant\":{\"stringValue\":\"merchant-a\",\"stringListValues\":[],"
                    + "\"binaryListValues\":[],\"dataType\":\"String\"}}"), record.get("messageAttributes"));
            assertEquals(md5("{\"paymentId\":\"pay_1\"}"), record.get("md5OfBody").asText());
            assertEquals("aws:sqs", record.get("eventSource").asText());
            assertEquals("arn:aws:sqs:us-east-1:000000000000:oncepay-charges-shape", record.get("eventSourceARN").asText());
            assertEquals("us-east-1", record.get("awsRegion").asText());

            JsonNode bare = byId.get(plain);
            assertEquals(List.of("messageId", "receiptHandle", "body", "attributes", "messageAttributes", "md5OfBody",
                    "eventSource", "eventSourceARN", "awsRegion"), fieldNames(bare), "no attributes, no digest of them");
            assertTrue(bare.get("messageAttributes").isObject() && bare.get("messageAttributes").isEmpty());
            awaitEmpty(queue.url());
        }
    }

    @Test
    void aPartialBatchFailureDeletesEveryOtherMessageOfTheBatch() throws Exception {
        LocalQueues.Queue queue = queues.queue("partial");
        List<String> ids = send(queue.url(), "first", "second", "third");
        String failing = ids.get(1);
        BlockingQueue<JsonNode> events = new LinkedBlockingQueue<>();
        AtomicInteger invocations = new AtomicInteger();
        try (SqsEventSourceMapping mapping = new SqsEventSourceMapping(queues.endpoint(), queue, "charge-worker", 3, 2,
                event -> {
                    events.add(read(event));
                    String answer = invocations.incrementAndGet() == 1
                            ? "{\"batchItemFailures\":[{\"itemIdentifier\":\"" + failing + "\"}]}"
                            : "{\"batchItemFailures\":[]}";
                    return CompletableFuture.completedFuture(new InvocationResult.Success(answer.getBytes(StandardCharsets.UTF_8)));
                })) {
            JsonNode first = events.poll(30, TimeUnit.SECONDS);
            assertNotNull(first);
            assertEquals(Set.copyOf(ids), Set.copyOf(messageIds(first)), "one batch of all three");
            JsonNode again = events.poll(30, TimeUnit.SECONDS);
            assertNotNull(again, "the failed message comes back after the visibility timeout");
            assertEquals(List.of(failing), messageIds(again), "only the failed one: the others were deleted");
            assertEquals("2", again.at("/Records/0/attributes/ApproximateReceiveCount").asText());
            awaitEmpty(queue.url());
        }
        assertEquals(2, invocations.get(), "nothing else was received");
    }

    @Test
    void whatLambdaMakesOfAResult() {
        List<String> batch = List.of("m1", "m2", "m3");
        assertEquals(Set.of(), outcome("").failed(), "an empty response");
        assertEquals(Set.of(), outcome("null").failed(), "a null response");
        assertEquals(Set.of(), outcome("{}").failed(), "an empty EventResponse");
        assertEquals(Set.of(), outcome("{\"batchItemFailures\":null}").failed());
        assertEquals(Set.of(), outcome("{\"batchItemFailures\":[]}").failed());
        SqsEventSourceMapping.Outcome partial = outcome("{\"batchItemFailures\":[{\"itemIdentifier\":\"m3\"},"
                + "{\"itemIdentifier\":\"m1\"}]}");
        assertEquals(Set.of("m1", "m3"), partial.failed());
        assertNull(partial.reason());
        for (String whole : List.of("{\"batchItemFailures\":[{\"itemIdentifier\":\"m9\"}]}",
                "{\"batchItemFailures\":[{\"itemIdentifier\":\"\"}]}", "{\"batchItemFailures\":[{\"itemIdentifier\":null}]}",
                "{\"batchItemFailures\":[{\"itemId\":\"m1\"}]}", "{\"batchItemFailures\":\"m1\"}", "not json", "[\"m1\"]")) {
            SqsEventSourceMapping.Outcome o = outcome(whole);
            assertEquals(Set.copyOf(batch), o.failed(), whole);
            assertNotNull(o.reason(), whole);
        }
        SqsEventSourceMapping.Outcome error = SqsEventSourceMapping.outcome(
                InvocationResult.failure("Sandbox.Timedout", "Task timed out after 30.00 seconds"), batch);
        assertEquals(Set.copyOf(batch), error.failed());
        assertEquals("Sandbox.Timedout: Task timed out after 30.00 seconds", error.reason());
    }

    /**
     * A real sandbox whose handler throws: each invocation fails, nothing of its batch is deleted,
     * and the messages come back whole until the redrive policy moves them to the dead-letter queue.
     */
    @Test
    @Tag("slow")
    void aFailedInvocationLeavesItsBatchUntilTheRedrivePolicyMovesItToTheDeadLetterQueue() throws Exception {
        LocalQueues.Queue queue = queues.queue("redrive");
        ScheduledExecutorService timers = Executors.newScheduledThreadPool(1);
        LambdaFunction function = new LambdaFunction("scripted", Duration.ofSeconds(10), 128, timers);
        function.add(new Sandbox(function, 1, SandboxSupervisionTest.command("sqs"), Map.of()));
        function.sandboxes().forEach(Sandbox::start);
        long ready = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (!function.allSandboxesReady() && System.nanoTime() < ready) {
            Thread.sleep(50);
        }
        assertTrue(function.allSandboxesReady(), "the sandbox initialises");
        List<String> ids = send(queue.url(), "fail 1", "fail 2");
        List<JsonNode> records = new CopyOnWriteArrayList<>();
        List<InvocationResult> results = new CopyOnWriteArrayList<>();
        Function<byte[], CompletableFuture<InvocationResult>> invoker = event -> {
            read(event).get("Records").forEach(records::add);
            return function.invoke(event, "Root=1-test").whenComplete((result, error) -> results.add(result));
        };
        try (SqsEventSourceMapping mapping = new SqsEventSourceMapping(queues.endpoint(), queue, "scripted", 2, 2, invoker)) {
            List<Message> dead = new ArrayList<>();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (dead.size() < 2 && System.nanoTime() < deadline) {
                dead.addAll(sqs.receiveMessage(b -> b.queueUrl(queue.deadLetterUrl()).maxNumberOfMessages(10).waitTimeSeconds(5)
                        .messageSystemAttributeNames(MessageSystemAttributeName.ALL)).messages());
            }
            assertEquals(Set.copyOf(ids), Set.copyOf(dead.stream().map(Message::messageId).toList()), "both dead letters");
            for (Message m : dead) {
                assertTrue(m.attributesAsStrings().get("DeadLetterQueueSourceArn").endsWith(":" + queue.name()),
                        "as SQS marks a dead letter: " + m.attributesAsStrings());
            }
        } finally {
            function.close();
            timers.shutdownNow();
        }
        int receives = DeploymentSettings.CHARGE_QUEUE_MAX_RECEIVES;
        for (String id : ids) {
            List<String> counts = records.stream().filter(r -> r.get("messageId").asText().equals(id))
                    .map(r -> r.at("/attributes/ApproximateReceiveCount").asText()).toList();
            assertEquals(IntStream.rangeClosed(1, receives).mapToObj(Integer::toString).toList(), counts,
                    "invoked once per receive, " + receives + " receives");
        }
        assertTrue(results.stream().allMatch(r -> r instanceof InvocationResult.Failure f
                && f.errorType().equals("java.lang.IllegalStateException") && "scripted#1".equals(f.sandbox())), results.toString());
        awaitEmpty(queue.url());
    }

    /** A handler that holds each invocation until the test releases it: the mapping never has more running. */
    @Test
    void neverMoreInvocationsAtOnceThanTheMaximumConcurrency() throws Exception {
        LocalQueues.Queue queue = queues.queue("concurrency");
        // Longer than the test holds a message: each is received once.
        sqs.setQueueAttributes(b -> b.queueUrl(queue.url()).attributes(Map.of(QueueAttributeName.VISIBILITY_TIMEOUT, "60")));
        int messages = 6;
        int maximumConcurrency = 2;
        send(queue.url(), IntStream.rangeClosed(1, messages).mapToObj(n -> "charge " + n).toArray(String[]::new));
        AtomicInteger running = new AtomicInteger();
        AtomicInteger most = new AtomicInteger();
        BlockingQueue<CompletableFuture<InvocationResult>> held = new LinkedBlockingQueue<>();
        try (SqsEventSourceMapping mapping = new SqsEventSourceMapping(queues.endpoint(), queue, "charge-worker", 1,
                maximumConcurrency, event -> {
                    most.accumulateAndGet(running.incrementAndGet(), Math::max);
                    CompletableFuture<InvocationResult> result = new CompletableFuture<>();
                    held.add(result);
                    return result;
                })) {
            List<CompletableFuture<InvocationResult>> first = new ArrayList<>();
            for (int i = 0; i < maximumConcurrency; i++) {
                CompletableFuture<InvocationResult> invocation = held.poll(30, TimeUnit.SECONDS);
                assertNotNull(invocation, "the mapping runs " + maximumConcurrency + " at once");
                first.add(invocation);
            }
            // Both pollers wait for their invocation: the mapping holds no message beyond what runs.
            Map<QueueAttributeName, String> attributes = attributes(queue.url());
            assertEquals(Integer.toString(maximumConcurrency), attributes.get(QueueAttributeName.APPROXIMATE_NUMBER_OF_MESSAGES_NOT_VISIBLE));
            assertEquals(Integer.toString(messages - maximumConcurrency),
                    attributes.get(QueueAttributeName.APPROXIMATE_NUMBER_OF_MESSAGES));
            int released = 0;
            for (CompletableFuture<InvocationResult> invocation : first) {
                release(running, invocation);
                released++;
            }
            while (released < messages) {
                CompletableFuture<InvocationResult> invocation = held.poll(30, TimeUnit.SECONDS);
                assertNotNull(invocation, "invocation " + (released + 1));
                release(running, invocation);
                released++;
            }
            awaitEmpty(queue.url());
        }
        assertEquals(maximumConcurrency, most.get(), "at most the maximum concurrency at once, and that many");
        assertTrue(held.isEmpty(), "each message invoked once");
    }

    @Test
    void stopsAtOnceInALongPollAndWhileItsInvocationRuns() throws Exception {
        LocalQueues.Queue queue = queues.queue("stop");
        send(queue.url(), "one");
        BlockingQueue<CompletableFuture<InvocationResult>> running = new LinkedBlockingQueue<>();
        SqsEventSourceMapping mapping = new SqsEventSourceMapping(queues.endpoint(), queue, "charge-worker", 1, 3, event -> {
            CompletableFuture<InvocationResult> never = new CompletableFuture<>();
            running.add(never);
            return never;
        });
        assertNotNull(running.poll(30, TimeUnit.SECONDS), "one poller waits for its invocation, two long-poll");
        long started = System.nanoTime();
        mapping.close();
        long ms = (System.nanoTime() - started) / 1_000_000;
        assertTrue(ms < 2000, "stopped in " + ms + " ms, not after a 20 s long poll");
        List<String> left = Thread.getAllStackTraces().keySet().stream().filter(Thread::isAlive).map(Thread::getName)
                .filter(n -> n.startsWith("sqs-" + queue.name())).toList();
        assertEquals(List.of(), left, "no poller left");
    }

    private static void release(AtomicInteger running, CompletableFuture<InvocationResult> invocation) {
        running.decrementAndGet();
        invocation.complete(EMPTY_SUCCESS);
    }

    private static SqsEventSourceMapping.Outcome outcome(String payload) {
        return SqsEventSourceMapping.outcome(new InvocationResult.Success(payload.getBytes(StandardCharsets.UTF_8)),
                List.of("m1", "m2", "m3"));
    }

    private static List<String> send(String url, String... bodies) {
        List<String> ids = new ArrayList<>();
        for (String body : bodies) {
            ids.add(sqs.sendMessage(b -> b.queueUrl(url).messageBody(body)).messageId());
        }
        return ids;
    }

    private static Map<QueueAttributeName, String> attributes(String url) {
        return sqs.getQueueAttributes(b -> b.queueUrl(url).attributeNames(QueueAttributeName.ALL)).attributes();
    }

    /** Waits (bounded) until the queue holds no message, visible or not: every one was deleted. */
    private static void awaitEmpty(String url) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        Map<QueueAttributeName, String> attributes = attributes(url);
        while (System.nanoTime() < deadline) {
            attributes = attributes(url);
            if (attributes.get(QueueAttributeName.APPROXIMATE_NUMBER_OF_MESSAGES).equals("0")
                    && attributes.get(QueueAttributeName.APPROXIMATE_NUMBER_OF_MESSAGES_NOT_VISIBLE).equals("0")) {
                return;
            }
            Thread.sleep(50);
        }
        throw new AssertionError("the queue still holds messages: " + attributes);
    }

    private static List<String> messageIds(JsonNode event) {
        List<String> ids = new ArrayList<>();
        event.get("Records").forEach(r -> ids.add(r.get("messageId").asText()));
        return ids;
    }

    private static List<String> fieldNames(JsonNode node) {
        List<String> names = new ArrayList<>();
        node.fieldNames().forEachRemaining(names::add);
        return names;
    }

    private static JsonNode read(byte[] json) {
        return read(new String(json, StandardCharsets.UTF_8));
    }

    private static JsonNode read(String json) {
        try {
            return JSON.readTree(json);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private static String md5(String text) throws Exception {
        return HexFormat.of().formatHex(MessageDigest.getInstance("MD5").digest(text.getBytes(StandardCharsets.UTF_8)));
    }
}
