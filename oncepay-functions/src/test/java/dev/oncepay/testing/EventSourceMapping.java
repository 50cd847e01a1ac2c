package dev.oncepay.testing;

import com.fasterxml.jackson.databind.JsonNode;
import dev.oncepay.contract.DeploymentSettings;
import dev.oncepay.testkit.SqsEvents;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import software.amazon.awssdk.services.sqs.model.Message;
import software.amazon.awssdk.services.sqs.model.MessageSystemAttributeName;

/**
 * What Lambda's SQS event-source mapping does for the charge worker, one poll at a time, driven by
 * the test: receive a batch from an account's charge queue, invoke the function under test (the
 * application runs as {@code charge-worker}) through the Lambda mock event server with the SQS
 * event JSON Lambda sends, and delete every message its answer does not list in {@code
 * batchItemFailures}. A failed message stays on the queue; {@link #expireVisibility} stands in for
 * its visibility timeout passing.
 */
public final class EventSourceMapping {
    private EventSourceMapping() {
    }

    /** One poll's batch and what became of it. */
    public record Delivery(List<Message> messages, Set<String> failedIds, JsonNode answer) {
        public boolean empty() {
            return messages.isEmpty();
        }

        public List<Message> failed() {
            return messages.stream().filter(m -> failedIds.contains(m.messageId())).toList();
        }
    }

    /** Receives up to {@code batchSize} visible messages (waiting up to {@code waitSeconds} for the first) and delivers them. */
    public static Delivery poll(String account, int batchSize, int waitSeconds) {
        return deliver(account, receive(account, batchSize, waitSeconds));
    }

    public static List<Message> receive(String account, int batchSize, int waitSeconds) {
        return TestEnvironment.sqs().receiveMessage(b -> b.queueUrl(TestEnvironment.queueUrl(account))
                .maxNumberOfMessages(batchSize).waitTimeSeconds(waitSeconds)
                .messageSystemAttributeNames(MessageSystemAttributeName.ALL)).messages();
    }

    /** Invokes the worker with {@code messages} as one SQS event and deletes those it did not fail. */
    public static Delivery deliver(String account, List<Message> messages) {
        if (messages.isEmpty()) {
            return new Delivery(messages, Set.of(), null);
        }
        JsonNode answer = LambdaClient.invoke(event(account, messages));
        Set<String> failed = new HashSet<>();
        JsonNode failures = answer.path("batchItemFailures");
        if (!failures.isArray()) {
            throw new AssertionError("the worker's answer is no batch response: " + answer);
        }
        failures.forEach(f -> failed.add(f.path("itemIdentifier").asText()));
        for (Message m : messages) {
            if (!failed.contains(m.messageId())) {
                TestEnvironment.sqs().deleteMessage(b -> b.queueUrl(TestEnvironment.queueUrl(account))
                        .receiptHandle(m.receiptHandle()));
            }
        }
        return new Delivery(messages, failed, answer);
    }

    /** The visibility timeout of {@code messages} ends now: they are handed out again. */
    public static void expireVisibility(String account, List<Message> messages) {
        for (Message m : messages) {
            TestEnvironment.sqs().changeMessageVisibility(b -> b.queueUrl(TestEnvironment.queueUrl(account))
                    .receiptHandle(m.receiptHandle()).visibilityTimeout(0));
        }
    }

    /** The SQS event Lambda sends for {@code messages}. */
    public static String event(String account, List<Message> messages) {
        return SqsEvents.of(messages, "arn:aws:sqs:us-east-1:000000000000:" + DeploymentSettings.chargeQueueName(account),
                "us-east-1").toString();
    }

    /** Messages of a queue (by account, or a full queue name such as a dead-letter queue's), visible or not. */
    public static int depth(String queueName) {
        var attributes = TestEnvironment.sqs().getQueueAttributes(b -> b.queueUrl(TestEnvironment.queueUrl(queueName))
                .attributeNamesWithStrings("ApproximateNumberOfMessages", "ApproximateNumberOfMessagesNotVisible",
                        "ApproximateNumberOfMessagesDelayed")).attributesAsStrings();
        return attributes.values().stream().mapToInt(Integer::parseInt).sum();
    }

    /** Empties the charge queues and their dead-letter queues: every test starts with none. */
    public static void purgeAll() {
        List<String> queues = new ArrayList<>();
        for (String account : TestEnvironment.QUEUED_ACCOUNTS) {
            queues.add(DeploymentSettings.chargeQueueName(account));
            queues.add(DeploymentSettings.chargeDeadLetterQueueName(account));
        }
        for (String q : queues) {
            TestEnvironment.sqs().purgeQueue(b -> b.queueUrl(TestEnvironment.queueUrl(q)));
        }
    }
}
