package dev.oncepay.drill;

import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** What the clients know about one refund request (one key): the payment it refunds and every answer. */
final class RefundRecord {
    /**
     * One answer.
     *
     * @param method POST (the request under its key) or GET (polling a pending refund)
     * @param status the HTTP status; 0 a timeout, -1 an I/O error
     * @param problem a problem's type, its last path segment ({@code refund-exceeds-charge}, ...), or null
     * @param refundId the refund the answer names ({@code id}, or a 402's {@code refundId}), or null
     * @param refundStatus the named refund's status (pending, succeeded, failed, needs_review), or null
     * @param amount the named refund's amount, or null
     */
    record Answer(String method, int status, String problem, String refundId, String refundStatus, Long amount,
            boolean replayed, long atMs) {
        /** A POST that oncepay took: 201 succeeded, 202 pending, 200 needs review. */
        boolean accepted() {
            return method.equals("POST") && (status == 201 || status == 202 || status == 200) && refundId != null;
        }

        /** Nothing to learn by asking again: the request was answered for good, or refused. */
        boolean settled() {
            if (status == 202 || status == 200 && "pending".equals(refundStatus)) {
                return false;
            }
            return status == 200 || status == 201 || status == 402
                    || status >= 400 && status < 500 && !GoodClient.REQUEST_IN_FLIGHT.equals(problem);
        }

        /** Accepted and still pending: poll it. */
        boolean pending() {
            return refundId != null && "pending".equals(refundStatus) && status >= 200 && status < 300;
        }

        /** {@code 201}, {@code 409 refund-exceeds-charge}, {@code 503 provider-unavailable}, {@code timeout}, ... */
        String outcome() {
            String s = status == 0 ? "timeout" : status < 0 ? "io-error" : Integer.toString(status);
            return s + (problem == null ? "" : " " + problem);
        }
    }

    final Workload.Plan order;
    final RefundWorkload.Request request;
    /** The payment refunded, once the order's payment succeeded; null while (or if) it was not asked. */
    volatile String paymentId;
    final List<Answer> answers = new CopyOnWriteArrayList<>();
    private final Answer[] last;

    RefundRecord(Workload.Plan order, RefundWorkload.Request request) {
        this.order = order;
        this.request = request;
        this.last = new Answer[request.submitters()];
    }

    String key() {
        return request.key();
    }

    String tenant() {
        return order.tenant();
    }

    synchronized void answered(int submitter, Answer answer) {
        answers.add(answer);
        last[submitter] = answer;
    }

    synchronized List<Answer> lastAnswers() {
        return Arrays.asList(last.clone());
    }

    /** Asked, and every submitter has a settled answer. */
    synchronized boolean settled() {
        return paymentId != null && Arrays.stream(last).allMatch(a -> a != null && a.settled());
    }
}
