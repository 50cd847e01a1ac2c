package dev.oncepay.infra;

import static dev.oncepay.infra.OncepayStack.custom;

import dev.oncepay.contract.Metrics;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import software.amazon.awscdk.Duration;
import software.amazon.awscdk.services.apigatewayv2.HttpApi;
import software.amazon.awscdk.services.cloudwatch.Alarm;
import software.amazon.awscdk.services.cloudwatch.AlarmStatusWidget;
import software.amazon.awscdk.services.cloudwatch.Dashboard;
import software.amazon.awscdk.services.cloudwatch.GraphWidget;
import software.amazon.awscdk.services.cloudwatch.HorizontalAnnotation;
import software.amazon.awscdk.services.cloudwatch.IAlarm;
import software.amazon.awscdk.services.cloudwatch.IMetric;
import software.amazon.awscdk.services.cloudwatch.IWidget;
import software.amazon.awscdk.services.cloudwatch.LogQueryVisualizationType;
import software.amazon.awscdk.services.cloudwatch.LogQueryWidget;
import software.amazon.awscdk.services.cloudwatch.MathExpression;
import software.amazon.awscdk.services.cloudwatch.MetricOptions;
import software.amazon.awscdk.services.lambda.Function;
import software.amazon.awscdk.services.logs.LogGroup;
import software.amazon.awscdk.services.logs.QueryDefinition;
import software.amazon.awscdk.services.logs.QueryString;
import software.constructs.Construct;

/**
 * The one dashboard on-call opens: the alarms' states, what the API answered (by function and
 * status), the payments waiting in the attention index, the provider's latency and the protection
 * around it, the charge queues (per account) and their lag, the merchant events (their queue,
 * failed and dead deliveries, lag, the outbox not yet relayed), the functions' own errors and the
 * latest 5xx request lines; and a saved Logs Insights
 * query of one payment's request lines. Metrics carrying dimensions (see {@link Metrics}) are
 * drawn with SEARCH expressions, so each status, function or operation gets its line as it appears.
 */
final class OperationsDashboard {
    private static final Duration MINUTE = Duration.minutes(1);
    private static final int FULL = 24;
    private static final int HALF = 12;
    private static final int HEIGHT = 6;

    private OperationsDashboard() {
    }

    /**
     * Fields of the one structured line each request and sweep logs (JSON in Lambda; the request's
     * fields are members of the line's {@code mdc} object, see the application's {@code RequestLog}).
     */
    static final List<String> REQUEST_LINE_FIELDS = List.of("@timestamp", "mdc.function", "mdc.method", "mdc.route",
            "mdc.status", "mdc.problemType", "mdc.replayed", "mdc.latencyMs", "mdc.tenant", "mdc.paymentId",
            "mdc.keyHash", "mdc.requestId");
    /** Stands in for the payment id in the saved query; on-call replaces it. */
    static final String PAYMENT_ID_PLACEHOLDER = "PAYMENT_ID";

    static Dashboard create(Construct scope, String name, HttpApi api, Map<String, Function> functions,
            List<LogGroup> logGroups, List<Alarm> alarms, List<ChargeQueue> chargeQueues, EventQueue eventQueue,
            OncepaySettings settings) {
        // "Did this payment go through, and who touched it": every request line about one payment, in order.
        QueryDefinition.Builder.create(scope, "PaymentRequestsQuery")
                .queryDefinitionName(name + "/requests-of-one-payment")
                .queryString(QueryString.Builder.create()
                        .fields(REQUEST_LINE_FIELDS)
                        .filterStatements(List.of("mdc.paymentId = \"" + PAYMENT_ID_PLACEHOLDER + "\""))
                        .sort("@timestamp asc")
                        .build())
                .logGroups(List.copyOf(logGroups))
                .build();
        List<IMetric> errors = new ArrayList<>();
        List<IMetric> throttles = new ArrayList<>();
        functions.forEach((function, fn) -> {
            errors.add(fn.metricErrors(perMinute(function)));
            throttles.add(fn.metricThrottles(perMinute(function)));
        });
        List<IMetric> queued = new ArrayList<>();
        List<IMetric> oldest = new ArrayList<>();
        for (ChargeQueue chargeQueue : chargeQueues) {
            String account = chargeQueue.account;
            queued.add(chargeQueue.queue.metricApproximateNumberOfMessagesVisible(maximum(account + " waiting")));
            queued.add(chargeQueue.queue.metricApproximateNumberOfMessagesDelayed(maximum(account + " delayed")));
            queued.add(chargeQueue.queue.metricApproximateNumberOfMessagesNotVisible(maximum(account + " in the worker")));
            queued.add(chargeQueue.deadLetters.metricApproximateNumberOfMessagesVisible(maximum(account + " dead letters")));
            oldest.add(chargeQueue.queue.metricApproximateAgeOfOldestMessage(maximum(account)));
        }
        return Dashboard.Builder.create(scope, "Dashboard")
                .dashboardName(name)
                .widgets(List.of(
                        List.<IWidget>of(AlarmStatusWidget.Builder.create()
                                .title("Alarms (each description links to its runbook)")
                                .alarms(List.<IAlarm>copyOf(alarms))
                                .width(FULL)
                                .height(3)
                                .build()),
                        row(graph("API requests, 4xx and 5xx (per minute)", List.of(
                                        api.metricCount(perMinute("requests")),
                                        api.metricClientError(perMinute("4xx")),
                                        api.metricServerError(perMinute("5xx")))),
                                graph("Answers by function and status (per minute)", List.of(
                                        search(Metrics.ANSWERS, "Sum", "${PROP('Dim.Function')} ${PROP('Dim.Status')}",
                                                Metrics.DIM_FUNCTION, Metrics.DIM_STATUS)))),
                        row(graph("Replays by function (per minute)", List.of(
                                        search(Metrics.REPLAYS, "Sum", "${PROP('Dim.Function')}", Metrics.DIM_FUNCTION))),
                                graph("Moves to review and operator resolutions (per minute)", List.of(
                                        metric(Metrics.NEEDS_REVIEW, "Sum", 1, "moved to needs_review"),
                                        metric(Metrics.RESOLUTIONS, "Sum", 1, "resolved by an operator")))),
                        row(GraphWidget.Builder.create()
                                        .title("Payments waiting (whole attention index, per sweep)")
                                        .left(List.of(
                                                metric(Metrics.UNKNOWN_BACKLOG, "Maximum", 1, "unknown"),
                                                metric(Metrics.PENDING_BACKLOG, "Maximum", 1, "pending past the sweep threshold"),
                                                metric(Metrics.NEEDS_REVIEW_BACKLOG, "Maximum", 1, "needs_review"),
                                                metric(Metrics.CANCEL_PENDING_BACKLOG, "Maximum", 1, "failed, provider cancel pending")))
                                        .leftAnnotations(List.of(HorizontalAnnotation.builder()
                                                .value(settings.alarmUnknownBacklog()).label("UnknownBacklogAlarm").build()))
                                        .width(HALF).height(HEIGHT).build(),
                                GraphWidget.Builder.create()
                                        .title("Oldest waiting payment (seconds)")
                                        .left(List.of(
                                                metric(Metrics.UNKNOWN_OLDEST_AGE, "Maximum", 1, "oldest unknown"),
                                                metric(Metrics.PENDING_OLDEST_AGE, "Maximum", 1, "oldest pending")))
                                        .leftAnnotations(List.of(
                                                HorizontalAnnotation.builder().value(settings.alarmUnknownAgeMinutes() * 60)
                                                        .label("UnknownOldestAgeAlarm").build(),
                                                HorizontalAnnotation.builder().value(settings.alarmPendingAgeMinutes() * 60)
                                                        .label("PendingOldestAgeAlarm").build()))
                                        .width(HALF).height(HEIGHT).build()),
                        row(graph("Provider latency p50 and p99 by operation and outcome (ms)", List.of(
                                        search(Metrics.PROVIDER_LATENCY, "p50", "p50 ${PROP('Dim.Operation')} ${PROP('Dim.Outcome')}",
                                                Metrics.DIM_OPERATION, Metrics.DIM_OUTCOME),
                                        search(Metrics.PROVIDER_LATENCY, "p99", "p99 ${PROP('Dim.Operation')} ${PROP('Dim.Outcome')}",
                                                Metrics.DIM_OPERATION, Metrics.DIM_OUTCOME))),
                                graph("Provider retries by operation (per minute)", List.of(
                                        search(Metrics.PROVIDER_RETRIES, "Sum", "${PROP('Dim.Operation')}", Metrics.DIM_OPERATION)))),
                        row(graph("Fleet breaker transitions (per minute)", List.of(
                                        metric(Metrics.BREAKER_OPEN, "Sum", 1, "opened"),
                                        metric(Metrics.BREAKER_HALF_OPEN, "Sum", 1, "half-open (probe)"),
                                        metric(Metrics.BREAKER_CLOSED, "Sum", 1, "closed"),
                                        metric(Metrics.BREAKER_REOPEN, "Sum", 1, "re-opened"),
                                        metric(Metrics.BREAKER_STORE_FAILED, "Sum", 1, "store failed (failing open)"))),
                                graph("Provider calls refused (per minute)", List.of(
                                        metric(Metrics.PROVIDER_AT_CAPACITY, "Sum", 1, "at capacity (bulkhead)"),
                                        metric(Metrics.RETRY_BUDGET_SPENT, "Sum", 1, "retry budget spent")))),
                        row(graph("Charge queues: messages per account", queued),
                                GraphWidget.Builder.create()
                                        .title("Oldest queued charge per account (seconds since its latest send)")
                                        .left(oldest)
                                        .leftAnnotations(List.of(HorizontalAnnotation.builder()
                                                .value(settings.alarmChargeQueueAgeMinutes() * 60).label("ChargeQueueAgeAlarm").build()))
                                        .width(HALF).height(HEIGHT).build()),
                        row(graph("Charge queue lag: from the request to the worker, p50 and p99 (ms)", List.of(
                                        metric(Metrics.CHARGE_QUEUE_LAG, "p50", 1, "p50"),
                                        metric(Metrics.CHARGE_QUEUE_LAG, "p99", 1, "p99"))),
                                graph("Queued charges put back with a delay (per minute)", List.of(
                                        metric(Metrics.CHARGE_DELAYED, "Sum", 1, "delayed (breaker, bulkhead or another run)")))),
                        row(graph("Event queue: messages", List.of(
                                        eventQueue.queue.metricApproximateNumberOfMessagesVisible(maximum("waiting")),
                                        eventQueue.queue.metricApproximateNumberOfMessagesDelayed(maximum("delayed (retries)")),
                                        eventQueue.queue.metricApproximateNumberOfMessagesNotVisible(maximum("in event-delivery")),
                                        eventQueue.deadLetters.metricApproximateNumberOfMessagesVisible(maximum("dead letters")))),
                                GraphWidget.Builder.create()
                                        .title("Oldest event message (seconds since its latest send)")
                                        .left(List.of(eventQueue.queue.metricApproximateAgeOfOldestMessage(maximum("oldest"))))
                                        .leftAnnotations(List.of(HorizontalAnnotation.builder()
                                                .value(settings.alarmEventQueueAgeMinutes() * 60).label("EventQueueAgeAlarm").build()))
                                        .width(HALF).height(HEIGHT).build()),
                        row(graph("Event deliveries: failed attempts and dead (per minute)", List.of(
                                        metric(Metrics.EVENT_DELIVERY_FAILED, "Sum", 1, "failed attempts (retried)"),
                                        metric(Metrics.EVENT_DELIVERY_DEAD, "Sum", 1, "dead (past the horizon)"))),
                                graph("Event delivery lag: from the event to its acknowledgement, p50 and p99 (ms)", List.of(
                                        metric(Metrics.EVENT_DELIVERY_LAG, "p50", 1, "p50"),
                                        metric(Metrics.EVENT_DELIVERY_LAG, "p99", 1, "p99")))),
                        List.<IWidget>of(GraphWidget.Builder.create()
                                .title("Outbox: events written but not on the event queue past the relay's grace (per sweep)")
                                .left(List.of(metric(Metrics.OUTBOX_BACKLOG, "Maximum", 1, "not relayed")))
                                .leftAnnotations(List.of(HorizontalAnnotation.builder().value(1).label("OutboxBacklogAlarm").build()))
                                .width(HALF).height(HEIGHT).build()),
                        row(graph("Function errors (per minute)", errors),
                                graph("Function throttles (per minute)", throttles)),
                        List.<IWidget>of(LogQueryWidget.Builder.create()
                                .title("Latest 5xx answers (one line per request)")
                                .logGroupNames(logGroups.stream().map(LogGroup::getLogGroupName).toList())
                                .queryLines(List.of(
                                        "fields " + String.join(", ", REQUEST_LINE_FIELDS),
                                        "filter mdc.status like /^5/",
                                        "sort @timestamp desc",
                                        "limit 50"))
                                .view(LogQueryVisualizationType.TABLE)
                                .width(FULL)
                                .height(HEIGHT)
                                .build())))
                .build();
    }

    private static MetricOptions perMinute(String label) {
        return MetricOptions.builder().period(MINUTE).statistic("Sum").label(label).build();
    }

    private static MetricOptions maximum(String label) {
        return MetricOptions.builder().period(MINUTE).statistic("Maximum").label(label).build();
    }

    private static List<IWidget> row(IWidget left, IWidget right) {
        return List.of(left, right);
    }

    private static GraphWidget graph(String title, List<IMetric> metrics) {
        return GraphWidget.Builder.create().title(title).left(metrics).width(HALF).height(HEIGHT).build();
    }

    private static IMetric metric(String name, String statistic, int periodMinutes, String label) {
        return custom(name, statistic, periodMinutes).with(MetricOptions.builder().label(label).build());
    }

    /** Every series of {@code name} with exactly these dimensions, one line each. */
    private static IMetric search(String name, String statistic, String label, String... dimensions) {
        return MathExpression.Builder.create()
                .expression("SEARCH('{" + Metrics.NAMESPACE + "," + String.join(",", dimensions) + "} MetricName=\""
                        + name + "\"', '" + statistic + "', 60)")
                .usingMetrics(Map.of())
                .label(label)
                .period(MINUTE)
                .build();
    }
}
