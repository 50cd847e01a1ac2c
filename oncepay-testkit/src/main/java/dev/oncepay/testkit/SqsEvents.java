package dev.oncepay.testkit;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import software.amazon.awssdk.core.SdkBytes;
import software.amazon.awssdk.services.sqs.model.Message;
import software.amazon.awssdk.services.sqs.model.MessageAttributeValue;

/**
 * The event Lambda's SQS event-source mapping invokes a function with, built from received messages
 * field by field as AWS's sample event shows it: the local run's mapping and the functions' tests
 * deliver the same JSON.
 */
public final class SqsEvents {
    public static final String EVENT_SOURCE = "aws:sqs";
    /** The system attributes in the order AWS's sample event lists them; any others (AWSTraceHeader, …) follow. */
    private static final List<String> SAMPLE_ATTRIBUTES = List.of("ApproximateReceiveCount", "SentTimestamp",
            "SenderId", "ApproximateFirstReceiveTimestamp");
    private static final ObjectMapper JSON = new ObjectMapper();

    private SqsEvents() {
    }

    /** The event for {@code batch}, received from the queue {@code queueArn} names, in {@code region}. */
    public static ObjectNode of(List<Message> batch, String queueArn, String region) {
        ObjectNode event = JSON.createObjectNode();
        ArrayNode records = event.putArray("Records");
        for (Message m : batch) {
            ObjectNode record = records.addObject();
            record.put("messageId", m.messageId());
            record.put("receiptHandle", m.receiptHandle());
            record.put("body", m.body());
            ObjectNode attributes = record.putObject("attributes");
            Map<String, String> received = new TreeMap<>(m.attributesAsStrings());
            SAMPLE_ATTRIBUTES.stream().filter(received::containsKey).forEach(a -> attributes.put(a, received.remove(a)));
            received.forEach(attributes::put);
            ObjectNode messageAttributes = record.putObject("messageAttributes");
            new TreeMap<>(m.messageAttributes()).forEach((name, value) -> messageAttribute(messageAttributes.putObject(name), value));
            record.put("md5OfBody", m.md5OfBody());
            if (m.md5OfMessageAttributes() != null) {
                record.put("md5OfMessageAttributes", m.md5OfMessageAttributes());
            }
            record.put("eventSource", EVENT_SOURCE);
            record.put("eventSourceARN", queueArn);
            record.put("awsRegion", region);
        }
        return event;
    }

    private static void messageAttribute(ObjectNode node, MessageAttributeValue value) {
        if (value.stringValue() != null) {
            node.put("stringValue", value.stringValue());
        }
        if (value.binaryValue() != null) {
            node.put("binaryValue", base64(value.binaryValue()));
        }
        ArrayNode strings = node.putArray("stringListValues");
        value.stringListValues().forEach(strings::add);
        ArrayNode binaries = node.putArray("binaryListValues");
        value.binaryListValues().forEach(b -> binaries.add(base64(b)));
        node.put("dataType", value.dataType());
    }

    private static String base64(SdkBytes bytes) {
        return Base64.getEncoder().encodeToString(bytes.asByteArray());
    }
}
