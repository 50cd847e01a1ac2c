package dev.oncepay.drill;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One invocation of the charge worker (or event-delivery) by a queue's event-source mapping, as the local run logs it
 * ({@code [sqs] oncepay-charges-default -> charge-worker#2 (1 msg, 0 failed, 123 ms)}).
 *
 * @param queue the queue the batch came from
 * @param sandbox the sandbox that ran it ({@code charge-worker#2})
 * @param messages the batch's messages
 * @param failed those that go back to the queue (a whole batch when the invocation failed)
 * @param ms from hand-out to result, as the mapping timed it: the worker sandbox's busy time
 */
record QueueDelivery(String queue, String sandbox, int messages, int failed, long ms) {
    private static final Pattern LINE = Pattern.compile(
            "\\[sqs\\] (?:WARNING )?(\\S+) -> (\\S+) \\((\\d+) msg, (\\d+) failed, (\\d+) ms\\)");

    /** The delivery a line of the local run reports, or null for any other line. */
    static QueueDelivery parse(String line) {
        Matcher m = LINE.matcher(line);
        if (!m.find()) {
            return null;
        }
        return new QueueDelivery(m.group(1), m.group(2), Integer.parseInt(m.group(3)), Integer.parseInt(m.group(4)),
                Long.parseLong(m.group(5)));
    }
}
