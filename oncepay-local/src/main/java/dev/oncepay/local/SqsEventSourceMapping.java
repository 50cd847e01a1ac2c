package dev.oncepay.local;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.oncepay.testkit.SqsEvents;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.function.Function;
import java.util.stream.IntStream;
import software.amazon.awssdk.http.ExecutableHttpRequest;
import software.amazon.awssdk.http.HttpExecuteRequest;
import software.amazon.awssdk.http.HttpExecuteResponse;
import software.amazon.awssdk.http.SdkHttpClient;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.DeleteMessageBatchRequestEntry;
import software.amazon.awssdk.services.sqs.model.Message;
import software.amazon.awssdk.services.sqs.model.MessageSystemAttributeName;

/**
 * Lambda's event-source mapping of one SQS queue to a function, with ReportBatchItemFailures on:
 * as many pollers as the mapping's maximum concurrency, each long-polling {@code ReceiveMessage}
 * for a batch (every system and message attribute), invoking the function synchronously with the
 * SQS event Lambda builds, and waiting for its result before it polls again, so no more
 * invocations than that run at once. A function error or timeout deletes nothing: the whole batch
 * is received again after the visibility timeout (and after the redrive policy's receives, lands
 * in the dead-letter queue). A result deletes every message it does not name in {@code
 * batchItemFailures}; a result Lambda cannot read (not JSON, an item without a message id of the
 * batch) fails the whole batch, as on Lambda.
 *
 * <p>Not reproduced: Lambda's scaling of pollers with the backlog and its backing off after
 * errors (here every poller polls from the start and again at once), the batching window (a batch
 * is what one receive returns, at most 10), and throttling: with fewer free sandboxes than
 * pollers an invocation waits for one instead of returning its batch to the queue.
 */
final class SqsEventSourceMapping implements AutoCloseable {
    /** SQS's longest long poll, which Lambda's pollers use. */
    static final int WAIT_TIME_SECONDS = 20;
    /** The most messages one {@code ReceiveMessage} returns, and so the largest batch without a batching window. */
    static final int MAX_BATCH_SIZE = 10;
    private static final Duration RECEIVE_RETRY = Duration.ofSeconds(1);
    private static final Duration STOP_WITHIN = Duration.ofSeconds(5);
    private static final String SOURCE = "sqs";
    private static final ObjectMapper JSON = new ObjectMapper();

    private final LocalQueues.Queue queue;
    private final String function;
    private final int batchSize;
    private final Function<byte[], CompletableFuture<InvocationResult>> invoker;
    private final AbortableHttpClient http = new AbortableHttpClient();
    private final SqsClient sqs;
    private final List<Thread> pollers = new ArrayList<>();
    private volatile boolean closed;

    /**
     * Starts the mapping's pollers.
     *
     * @param endpoint the SQS endpoint of {@code queue}
     * @param invoker invokes {@code function} synchronously with an event (the local run's invocation path)
     */
    SqsEventSourceMapping(String endpoint, LocalQueues.Queue queue, String function, int batchSize,
            int maximumConcurrency, Function<byte[], CompletableFuture<InvocationResult>> invoker) {
        if (batchSize < 1 || batchSize > MAX_BATCH_SIZE || maximumConcurrency < 1) {
            throw new IllegalArgumentException("batch size 1.." + MAX_BATCH_SIZE + " and a positive maximum concurrency");
        }
        this.queue = queue;
        this.function = function;
        this.batchSize = batchSize;
        this.invoker = invoker;
        this.sqs = LocalQueues.client(endpoint, http);
        for (int n = 1; n <= maximumConcurrency; n++) {
            Thread poller = new Thread(this::poll, "sqs-" + queue.name() + "-" + n);
            poller.setDaemon(true);
            pollers.add(poller);
        }
        pollers.forEach(Thread::start);
    }

    private void poll() {
        while (!closed) {
            List<Message> batch;
            try {
                batch = sqs.receiveMessage(b -> b.queueUrl(queue.url()).maxNumberOfMessages(batchSize)
                        .waitTimeSeconds(WAIT_TIME_SECONDS)
                        .messageSystemAttributeNames(MessageSystemAttributeName.ALL)
                        .messageAttributeNames("All")).messages();
            } catch (RuntimeException e) {
                if (closed) {
                    return;
                }
                Log.warn(SOURCE, queue.name() + ": ReceiveMessage failed (" + e.getMessage() + "); polling again in "
                        + RECEIVE_RETRY.toSeconds() + " s");
                try {
                    Thread.sleep(RECEIVE_RETRY.toMillis());
                } catch (InterruptedException stopping) {
                    return;
                }
                continue;
            }
            if (!batch.isEmpty() && !deliver(batch)) {
                return;
            }
        }
    }

    /** Invokes the function with {@code batch} and deletes what succeeded; false if stopped meanwhile. */
    private boolean deliver(List<Message> batch) {
        long started = System.nanoTime();
        InvocationResult result;
        try {
            result = invoker.apply(SqsEvents.of(batch, queue.arn(), SandboxCommand.REGION).toString().getBytes(StandardCharsets.UTF_8)).get();
        } catch (InterruptedException stopping) {
            // The batch stays in the queue, visible again after its visibility timeout.
            return false;
        } catch (ExecutionException e) {
            result = InvocationResult.failure("ServiceException", String.valueOf(e.getCause()));
        }
        List<String> ids = batch.stream().map(Message::messageId).toList();
        Outcome outcome = outcome(result, ids);
        List<Message> succeeded = batch.stream().filter(m -> !outcome.failed().contains(m.messageId())).toList();
        if (!succeeded.isEmpty()) {
            delete(succeeded);
        }
        String line = String.format("%s -> %s (%d msg, %d failed, %d ms)", queue.name(), result.ranBy(function),
                batch.size(), outcome.failed().size(), (System.nanoTime() - started) / 1_000_000);
        if (outcome.failed().isEmpty()) {
            Log.info(SOURCE, line);
        } else {
            Log.warn(SOURCE, line + (outcome.reason() == null ? "" : ": " + outcome.reason())
                    + "; failed messages return after the visibility timeout");
        }
        return true;
    }

    private void delete(List<Message> messages) {
        List<DeleteMessageBatchRequestEntry> entries = IntStream.range(0, messages.size())
                .mapToObj(n -> DeleteMessageBatchRequestEntry.builder().id(Integer.toString(n))
                        .receiptHandle(messages.get(n).receiptHandle()).build())
                .toList();
        try {
            sqs.deleteMessageBatch(b -> b.queueUrl(queue.url()).entries(entries)).failed()
                    .forEach(f -> Log.warn(SOURCE, queue.name() + ": could not delete message "
                            + messages.get(Integer.parseInt(f.id())).messageId() + " (" + f.message()
                            + "); it will be received again"));
        } catch (RuntimeException e) {
            if (!closed) {
                Log.warn(SOURCE, queue.name() + ": DeleteMessageBatch failed (" + e.getMessage() + "); "
                        + messages.size() + " message(s) will be received again");
            }
        }
    }

    /**
     * What Lambda makes of an invocation's result.
     *
     * @param failed the batch's messages that return to the queue
     * @param reason why the whole batch failed, when it did as a whole; else null
     */
    record Outcome(Set<String> failed, String reason) {
    }

    /**
     * Lambda's rules for a function's result with ReportBatchItemFailures: a function error fails
     * the whole batch; an empty or null result, or no or an empty {@code batchItemFailures} list,
     * is a success; each {@code itemIdentifier} fails that message; a result that is not a JSON
     * object, or an item whose {@code itemIdentifier} is missing, empty or not a message of the
     * batch, fails the whole batch.
     */
    static Outcome outcome(InvocationResult result, List<String> messageIds) {
        Set<String> all = new LinkedHashSet<>(messageIds);
        if (result instanceof InvocationResult.Failure f) {
            return new Outcome(all, f.errorType() + ": " + f.errorMessage());
        }
        byte[] payload = ((InvocationResult.Success) result).payload();
        JsonNode response;
        try {
            response = payload.length == 0 ? null : JSON.readTree(payload);
        } catch (IOException notJson) {
            return new Outcome(all, "the response is not JSON");
        }
        if (response == null || response.isNull()) {
            return new Outcome(Set.of(), null);
        }
        if (!response.isObject()) {
            return new Outcome(all, "the response is not a JSON object");
        }
        JsonNode failures = response.path("batchItemFailures");
        if (failures.isMissingNode() || failures.isNull()) {
            return new Outcome(Set.of(), null);
        }
        if (!failures.isArray()) {
            return new Outcome(all, "batchItemFailures is not a list");
        }
        Set<String> failed = new LinkedHashSet<>();
        for (JsonNode item : failures) {
            JsonNode id = item.path("itemIdentifier");
            if (!id.isTextual() || id.asText().isEmpty()) {
                return new Outcome(all, "a batch item failure without an itemIdentifier: " + item);
            }
            if (!all.contains(id.asText())) {
                return new Outcome(all, "itemIdentifier " + id.asText() + " is not a message of the batch");
            }
            failed.add(id.asText());
        }
        return new Outcome(failed, null);
    }

    /**
     * Stops the pollers: one waiting for its invocation leaves its batch to the visibility timeout
     * (the invocation itself runs on), one in its long poll has the poll cut.
     */
    @Override
    public void close() {
        closed = true;
        pollers.forEach(Thread::interrupt);
        long deadline = System.nanoTime() + STOP_WITHIN.toNanos();
        try {
            for (Thread poller : pollers) {
                while (poller.isAlive() && System.nanoTime() < deadline) {
                    // Again each round: a poller may have started a call after the last cut.
                    http.abortAll();
                    poller.join(50);
                }
                if (poller.isAlive()) {
                    Log.warn(SOURCE, poller.getName() + " did not stop within " + STOP_WITHIN.toSeconds() + " s");
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        sqs.close();
    }

    /**
     * The url-connection client, whose calls in flight {@link #abortAll} cuts (a long poll would
     * otherwise hold its poller for up to 20 s) and whose later calls fail at once, SDK retries included.
     */
    private static final class AbortableHttpClient implements SdkHttpClient {
        private final SdkHttpClient delegate = UrlConnectionHttpClient.create();
        private final Set<ExecutableHttpRequest> inFlight = ConcurrentHashMap.newKeySet();
        private volatile boolean aborted;

        @Override
        public ExecutableHttpRequest prepareRequest(HttpExecuteRequest request) {
            ExecutableHttpRequest call = delegate.prepareRequest(request);
            return new ExecutableHttpRequest() {
                @Override
                public HttpExecuteResponse call() throws IOException {
                    // Registered before the check: abortAll() either finds this call or it sees aborted.
                    inFlight.add(call);
                    try {
                        if (aborted) {
                            throw new IOException("the event-source mapping is stopping");
                        }
                        return call.call();
                    } finally {
                        inFlight.remove(call);
                    }
                }

                @Override
                public void abort() {
                    call.abort();
                }
            };
        }

        void abortAll() {
            aborted = true;
            inFlight.forEach(ExecutableHttpRequest::abort);
        }

        @Override
        public void close() {
            delegate.close();
        }
    }
}
