package dev.oncepay.testing;

import com.fasterxml.jackson.databind.JsonNode;
import dev.oncepay.contract.DeploymentSettings;
import dev.oncepay.testkit.SqsEvents;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import software.amazon.awssdk.services.sqs.model.Message;
import software.amazon.awssdk.services.sqs.model.MessageSystemAttributeName;

/**
 * What Lambda's SQS event-source mapping does for event delivery, one poll at a time, driven by the
 * test: receive a batch from the event queue, invoke the function under test (the application runs
 * as {@code event-delivery}) through the Lambda mock event server with the SQS event JSON, and
 * delete every message its answer does not list in {@code batchItemFailures}.
 */
public final class EventQueueMapping {
    private EventQueueMapping() {
    }

    /** Receives up to {@code batchSize} visible messages (waiting up to {@code waitSeconds} for the first) and delivers them. */
    public static EventSourceMapping.Delivery poll(int batchSize, int waitSeconds) {
        return deliver(receive(batchSize, waitSeconds));
    }

    public static List<Message> receive(int batchSize, int waitSeconds) {
        return TestEnvironment.sqs().receiveMessage(b -> b.queueUrl(TestEnvironment.eventQueueUrl())
                .maxNumberOfMessages(batchSize).waitTimeSeconds(waitSeconds)
                .messageSystemAttributeNames(MessageSystemAttributeName.ALL)).messages();
    }

    /** Invokes the function with {@code messages} as one SQS event and deletes those it did not fail. */
    public static EventSourceMapping.Delivery deliver(List<Message> messages) {
        if (messages.isEmpty()) {
            return new EventSourceMapping.Delivery(messages, Set.of(), null);
        }
        JsonNode answer = LambdaClient.invoke(SqsEvents.of(messages,
                "arn:aws:sqs:us-east-1:000000000000:" + DeploymentSettings.EVENT_QUEUE_NAME, "us-east-1").toString());
        JsonNode failures = answer.path("batchItemFailures");
        if (!failures.isArray()) {
            throw new AssertionError("event delivery's answer is no batch response: " + answer);
        }
        Set<String> failed = new HashSet<>();
        failures.forEach(f -> failed.add(f.path("itemIdentifier").asText()));
        for (Message m : messages) {
            if (!failed.contains(m.messageId())) {
                TestEnvironment.sqs().deleteMessage(b -> b.queueUrl(TestEnvironment.eventQueueUrl())
                        .receiptHandle(m.receiptHandle()));
            }
        }
        return new EventSourceMapping.Delivery(messages, failed, answer);
    }

    /** Sends {@code body} as a message of the event queue, visible at once. */
    public static void send(String body) {
        TestEnvironment.sqs().sendMessage(b -> b.queueUrl(TestEnvironment.eventQueueUrl()).messageBody(body));
    }

    /** The visibility timeout of {@code messages} ends now: they are handed out again. */
    public static void expireVisibility(List<Message> messages) {
        for (Message m : messages) {
            TestEnvironment.sqs().changeMessageVisibility(b -> b.queueUrl(TestEnvironment.eventQueueUrl())
                    .receiptHandle(m.receiptHandle()).visibilityTimeout(0));
        }
    }

    /** Messages on the event queue, visible, in flight or delayed. */
    public static int depth() {
        var attributes = TestEnvironment.sqs().getQueueAttributes(b -> b.queueUrl(TestEnvironment.eventQueueUrl())
                .attributeNamesWithStrings("ApproximateNumberOfMessages", "ApproximateNumberOfMessagesNotVisible",
                        "ApproximateNumberOfMessagesDelayed")).attributesAsStrings();
        return attributes.values().stream().mapToInt(Integer::parseInt).sum();
    }

    /** Empties the event queue and its dead-letter queue. */
    public static void purge() {
        TestEnvironment.sqs().purgeQueue(b -> b.queueUrl(TestEnvironment.eventQueueUrl()));
        TestEnvironment.sqs().purgeQueue(b -> b.queueUrl(TestEnvironment.eventDeadLetterQueueUrl()));
    }
}
