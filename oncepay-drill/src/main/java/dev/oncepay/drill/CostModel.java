package dev.oncepay.drill;

import dev.oncepay.testkit.ItemSize;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * What oncepay costs on AWS, in dollars per million charges at published on-demand prices, from
 * figures per operation: the requests each operation makes (counted, deterministic: the units
 * below) and how long each invocation is billed (measured by {@code ./drill.sh --bench}). Free
 * tiers, savings plans and volume tiers (Lambda beyond 6 billion GB-seconds a month, HTTP APIs
 * beyond 300 million requests) are left out: this is the price of the marginal charge.
 *
 * <p>Deltas: a replay, an unknown outcome (what the charge writes more, and the sweep's work that
 * settles it) and a cold start, each per million; the sweep (every minute, whatever the traffic)
 * and the fixed resources per month; DynamoDB storage per month that a million charges are kept.
 */
public record CostModel(Prices prices, Inputs inputs) {

    private static final double MILLION = 1_000_000;
    /** AWS bills data per GB of 2^30 bytes. */
    private static final double GB = 1024.0 * 1024 * 1024;
    /** A month as AWS prices it: 730 hours. */
    public static final double MINUTES_PER_MONTH = 730 * 60;

    public enum Architecture { X86_64, ARM64 }

    /** Lines of the bill, in the order docs/cost.md shows them. */
    public enum Service {
        LAMBDA_REQUESTS("Lambda requests"),
        LAMBDA_DURATION("Lambda duration (GB-s)"),
        API_GATEWAY("API Gateway HTTP API"),
        DYNAMODB_WRITES("DynamoDB writes (WRU)"),
        DYNAMODB_READS("DynamoDB reads (RRU)"),
        CLOUDWATCH_LOGS("CloudWatch Logs"),
        SECRETS_MANAGER("Secrets Manager calls");

        final String label;

        Service(String label) {
            this.label = label;
        }
    }

    /**
     * Published on-demand prices of one region, in dollars.
     *
     * @param logsStoragePerGbMonth billed on compressed bytes; applied here to raw bytes, an upper bound
     */
    public record Prices(String region, double lambdaGbSecondX86, double lambdaGbSecondArm, double lambdaPerMillionRequests,
            double httpApiPerMillionRequests, double perMillionWriteUnits, double perMillionReadUnits,
            double storagePerGbMonth, double pitrPerGbMonth, double logsIngestionPerGb, double logsStoragePerGbMonth,
            double customMetricPerMonth, double alarmMetricPerMonth, double dashboardPerMonth, double secretPerMonth,
            double secretsPerTenThousandCalls) {

        /**
         * US East (N. Virginia), read 2026-11-30 from stored copies of these pages ("secondary": a
         * page quoting AWS's, whose stored copy shows its table without figures; "flagged": no
         * stored page gives it, the last published figure is used). Lambda: aws.amazon.com/lambda/pricing
         * (archived 2026-06-18; figures secondary, cloudchipr.com 2024): x86 $0.0000166667, Arm
         * $0.0000133334 per GB-s (first 6 bn GB-s a month), $0.20 per million requests; INIT billed
         * for on-demand zips on managed runtimes since 2025-08-01 (AWS Compute Blog, 2025-04-29);
         * SnapStart for Java: no charge of its own, the billed restore duration is duration (Lambda
         * developer guide, snapstart.html, snapstart-monitoring.html). HTTP API: $1.00 per million
         * (first 300 M), metered per 512 KB (AWS whitepaper on API Gateway private APIs,
         * cost-optimization.html, table 4). DynamoDB on-demand: $0.625 per million WRU, $0.125 per
         * million RRU since the 50 % cut of 2024-11-01 (secondary: airbyte.com, 2025-07-21), storage
         * $0.25 per GB-month (aws.amazon.com/dynamodb/pricing), point-in-time recovery $0.20 per
         * GB-month (flagged). CloudWatch: logs $0.50 per GB ingested (Lambda's logs tiered since
         * 2025-05-01, first tier unchanged; duckbillgroup.com), $0.03 per GB-month stored, $0.30 per
         * custom metric (signoz.io, 2026-02-15), $3 per dashboard beyond three (factualminds.com,
         * 2026-06-13), $0.10 per standard alarm metric (flagged). Secrets Manager: $0.40 per
         * secret-month, $0.05 per 10 000 calls (secondary: hivebook.wiki).
         */
        public static final Prices US_EAST_1 = new Prices("us-east-1", 0.0000166667, 0.0000133334, 0.20,
                1.00, 0.625, 0.125, 0.25, 0.20, 0.50, 0.03, 0.30, 0.10, 3.00, 0.40, 0.05);

        double gbSecond(Architecture architecture) {
            return architecture == Architecture.ARM64 ? lambdaGbSecondArm : lambdaGbSecondX86;
        }
    }

    /** Billed compute of one function: {@code invocations}, each {@code billedMs} at {@code memoryMb}. */
    public record Compute(String function, double invocations, double billedMs, int memoryMb) {
        double gbSeconds() {
            return invocations * billedMs / 1000.0 * memoryMb / 1024.0;
        }
    }

    /**
     * What one operation uses. {@code lambdaRequests} is separate from compute because a cold
     * start bills init (or restore) duration but no request of its own.
     */
    public record Usage(double lambdaRequests, List<Compute> compute, double apiRequests, double writeUnits,
            double readUnits, double logBytes, double secretCalls) {
        public Usage {
            compute = List.copyOf(compute);
        }

        /** Invocations that are also requests (all but init/restore). */
        static Usage invoked(List<Compute> compute, double apiRequests, double writeUnits, double readUnits,
                double logBytes) {
            return new Usage(compute.stream().mapToDouble(Compute::invocations).sum(), compute, apiRequests, writeUnits,
                    readUnits, logBytes, 0);
        }
    }

    /** Resources paid per month whatever the traffic. */
    public record Fixed(int customMetrics, int alarmMetrics, int dashboards, int secrets) {
    }

    /**
     * Everything the model prices.
     *
     * @param storedBytesPerCharge what stays in the table per charge (the payment item and its order's
     *                             item, each plus DynamoDB's 100 bytes per item; keys expire after 24 h,
     *                             journal entries after 7 days)
     */
    public record Inputs(Architecture architecture, Usage charge, Usage replay, Usage unknownOutcome, Usage coldStart,
            Usage sweep, double sweepsPerMonth, double storedBytesPerCharge, Fixed fixed) {
    }

    /**
     * Request units per operation, from the counts {@code RequestCostTest} asserts and the item
     * sizes {@code StoredItemSizeTest} asserts (every item and index entry under 1 KB, every item
     * read under 4 KB), with DynamoDB's rules: a write is billed on the larger of the item's old and
     * new image, a failed conditional write still consumes its units, an index entry written,
     * changed or removed costs a write of its own and an index key changed costs two (delete + put).
     *
     * @param chargeWrites     claim (1) + PENDING payment (1) + its sweep and attention entries (2) +
     *                         the order's bind (1, in no index; the order guard is on by default) +
     *                         settle (1) + both entries removed (2)
     * @param webhookWrites    none when the charge already settled the payment (the usual case): a fact the
     *                         payment already records is answered from one read, without a journal entry.
     *                         An event that arrives first costs journal receipt + completion (2) and the
     *                         payment's settle (3), and then the charge's own settle fails its condition
     * @param webhookReads     the payment, read consistently
     * @param replayWrites     the failed claim: conditional put of an existing key
     * @param replayReads      the payment (on DynamoDB the failed put returns the key; dynalite needs one more
     *                         read); a replay passes the fleet breaker too, priced like a charge's request
     * @param unknownExtraWrites the settle to UNKNOWN changes both index keys: 2 more than removing the entries
     * @param checkWrites      the sweep's settle: payment (1) + both entries removed (2)
     * @param checkReads       the sweep's consistent read of the payment
     * @param sweepReads       an idle sweep: 4 sweep-index queries + 16 backlog queries, each an empty,
     *                         eventually consistent index read (0.5)
     */
    public record Units(double chargeWrites, double webhookWrites, double webhookReads, double replayWrites,
            double replayReads, double unknownExtraWrites, double checkWrites, double checkReads, double sweepReads) {
        public static Units measured() {
            return new Units(8, 0, 1, 1, 1, 2, 3, 1, 20 * 0.5);
        }
    }

    /** How it is deployed: infra's defaults are {@link #defaults()}. */
    public record Deployment(Architecture architecture, int chargeMemoryMb, int webhookMemoryMb, int reconcileMemoryMb,
            double sweepsPerMonth, int providerAccounts, Fixed fixed) {
        /**
         * JVM variant as infra sets it: x86_64, charge 1024 MB, webhook 768, reconcile 1024, a sweep
         * every minute, one provider account (two secrets, one charge queue); 13 alarms (two of its
         * charge queue's) of which two are metric math over two metrics (15 alarm metrics), one
         * dashboard; about 33 custom metrics in a month with traffic (the dimensioned Answers,
         * ProviderLatency, the six gauges and the charge queue's lag and delays; the rare counters
         * exist only in hours they are emitted).
         */
        public static Deployment defaults() {
            return new Deployment(Architecture.X86_64, 1024, 768, 1024, MINUTES_PER_MONTH, 1, new Fixed(33, 15, 1, 2));
        }
    }

    /**
     * What only a run measures. Billed ms are per invocation (Lambda rounds each up to the next
     * millisecond); log bytes per invocation include the runtime's START/END/REPORT lines.
     *
     * @param breakerRequestsPerCharge fleet-breaker requests per charge or replay: 1 at most,
     *                              1/(requests per second) on a busy sandbox; priced as a write (the
     *                              period's request adds the calls the sandbox counted, an
     *                              UpdateItem of its shard: 1 WRU; a read only if it counted none)
     * @param pollsPerUnknown       GET /payments/{id} a client sends while its payment is unknown
     * @param checksPerUnknown      sweep checks until it settles (1: found at the first look)
     * @param unknownChargeExtraMs  how much longer a charge that ends unknown is billed than one that
     *                              gets its answer (it waits out the provider's read timeout)
     * @param coldStartBilledMs     init (on demand) or billed restore (SnapStart) of one sandbox
     * @param storedBytesPerCharge  the settled payment item and the order item as {@code StoredItemSizeTest}
     *                              prints them, plus 100 each
     */
    public record Measured(double chargeBilledMs, double replayBilledMs, double getBilledMs, double webhookBilledMs,
            double sweepBilledMs, double checkBilledMs, double coldStartBilledMs, double breakerRequestsPerCharge,
            double chargeLogBytes, double replayLogBytes, double getLogBytes, double webhookLogBytes,
            double sweepLogBytes, double checkLogBytes, double coldStartLogBytes, double pollsPerUnknown,
            double checksPerUnknown, double unknownChargeExtraMs, double storedBytesPerCharge) {

        /**
         * Everything but the durations, which are 0 until a run gives them ({@link #withDurations}).
         * Measured here: the settled payment (649 bytes) and its order (223 bytes, both
         * {@code StoredItemSizeTest}) and each
         * operation's own log lines in Lambda's JSON format (the functions' tests run with
         * {@code -D%test.quarkus.log.console.json.enabled=true}): a first charge 1 663 bytes (two EMF
         * lines, the provider call's line, the request line), a replay 1 092, a GET 880, a webhook
         * event 1 429, an idle sweep 1 784 (measured with five gauges, its request line; the sixth adds its EMF line), a sweep's check 807 (the
         * lookup's EMF line and its decision), Quarkus's start 1 644. Estimated: ~290 bytes of runtime
         * START/END/REPORT lines per invocation (~150 at a cold start). Assumed: the breaker request on
         * every charge (its upper bound), a client polling an unknown payment three times
         * (Retry-After 10 s, the sweep's first look after 30 s), the sweep settling it at its first
         * look, and a charge ending unknown waiting out the provider's 5 s read timeout.
         */
        public static Measured withoutDurations() {
            return new Measured(0, 0, 0, 0, 0, 0, 0, 1.0, 1950, 1380, 1170, 1720, 2070, 807, 1800, 3, 1, 5000, 1072);
        }

        /**
         * These figures with the durations {@code ./drill.sh --bench} writes to
         * {@code target/bench/bench.json}: the charge function's mean warm run
         * ({@code addedLatency.chargeFunctionMeanMs}, provider latency 0) and the charge sandbox's
         * median init ({@code coldStart.charge.initMs.median}), each rounded up to the millisecond
         * as Lambda bills. Local figures on the bench's machine, not AWS's; durations the bench does
         * not measure (webhook, replay, GET, sweep, check) stay 0.
         */
        public static Measured fromBench(JsonNode figures) {
            return withoutDurations().withDurations(
                    Math.ceil(figures.path("addedLatency").path("chargeFunctionMeanMs").asDouble(0)), 0, 0, 0, 0, 0,
                    Math.ceil(figures.path("coldStart").path("charge").path("initMs").path("median").asDouble(0)));
        }

        /** These figures with a run's billed milliseconds per invocation. */
        public Measured withDurations(double chargeMs, double replayMs, double getMs, double webhookMs, double sweepMs,
                double checkMs, double coldStartMs) {
            return new Measured(chargeMs, replayMs, getMs, webhookMs, sweepMs, checkMs, coldStartMs,
                    breakerRequestsPerCharge, chargeLogBytes, replayLogBytes, getLogBytes, webhookLogBytes, sweepLogBytes,
                    checkLogBytes, coldStartLogBytes, pollsPerUnknown, checksPerUnknown, unknownChargeExtraMs,
                    storedBytesPerCharge);
        }
    }

    /** The model's inputs from a run's figures, a deployment and the counted units. */
    public static Inputs inputs(Measured m, Deployment d, Units u) {
        Usage charge = Usage.invoked(List.of(
                new Compute("charge", 1, m.chargeBilledMs(), d.chargeMemoryMb()),
                new Compute("webhook", 1, m.webhookBilledMs(), d.webhookMemoryMb())),
                2, u.chargeWrites() + u.webhookWrites() + m.breakerRequestsPerCharge(), u.webhookReads(),
                m.chargeLogBytes() + m.webhookLogBytes());
        Usage replay = Usage.invoked(List.of(new Compute("charge", 1, m.replayBilledMs(), d.chargeMemoryMb())),
                1, u.replayWrites() + m.breakerRequestsPerCharge(), u.replayReads(), m.replayLogBytes());
        // The charge waited for an answer that never came, its settle writes both index keys anew,
        // the client polls, and the sweep's checks (duration inside its own invocations, no
        // requests of their own) settle it.
        Usage unknown = new Usage(m.pollsPerUnknown(), List.of(
                new Compute("charge", 1, m.unknownChargeExtraMs(), d.chargeMemoryMb()),
                new Compute("charge", m.pollsPerUnknown(), m.getBilledMs(), d.chargeMemoryMb()),
                new Compute("reconcile", m.checksPerUnknown(), m.checkBilledMs(), d.reconcileMemoryMb())),
                m.pollsPerUnknown(), u.unknownExtraWrites() + m.checksPerUnknown() * u.checkWrites(),
                m.pollsPerUnknown() + m.checksPerUnknown() * u.checkReads(),
                m.pollsPerUnknown() * m.getLogBytes() + m.checksPerUnknown() * m.checkLogBytes(), 0);
        Usage coldStart = new Usage(0, List.of(new Compute("charge", 1, m.coldStartBilledMs(), d.chargeMemoryMb())),
                0, 0, 0, m.coldStartLogBytes(), d.providerAccounts());
        Usage sweep = Usage.invoked(List.of(new Compute("reconcile", 1, m.sweepBilledMs(), d.reconcileMemoryMb())),
                0, 0, u.sweepReads(), m.sweepLogBytes());
        return new Inputs(d.architecture(), charge, replay, unknown, coldStart, sweep, d.sweepsPerMonth(),
                m.storedBytesPerCharge(), d.fixed());
    }

    /** Dollars per line of the bill. */
    public record Breakdown(Map<Service, Double> dollars) {
        public Breakdown {
            dollars = Map.copyOf(dollars);
        }

        public double of(Service service) {
            return dollars.getOrDefault(service, 0.0);
        }

        public double total() {
            return dollars.values().stream().mapToDouble(Double::doubleValue).sum();
        }
    }

    /**
     * The result. Charges, replays, unknown outcomes and cold starts per million; the sweep and the
     * fixed resources per month; storage per month per million charges kept (it accumulates).
     */
    public record Estimate(Breakdown perMillionCharges, Breakdown perMillionReplays, Breakdown perMillionUnknownOutcomes,
            Breakdown perMillionColdStarts, Breakdown sweepsPerMonth, double fixedPerMonth,
            double storagePerMonthPerMillionCharges) {
    }

    public Estimate compute() {
        Fixed fixed = inputs.fixed();
        double fixedPerMonth = fixed.customMetrics() * prices.customMetricPerMonth()
                + fixed.alarmMetrics() * prices.alarmMetricPerMonth()
                + fixed.dashboards() * prices.dashboardPerMonth()
                + fixed.secrets() * prices.secretPerMonth();
        double storedGb = inputs.storedBytesPerCharge() * MILLION / GB;
        return new Estimate(price(inputs.charge(), MILLION), price(inputs.replay(), MILLION),
                price(inputs.unknownOutcome(), MILLION), price(inputs.coldStart(), MILLION),
                price(inputs.sweep(), inputs.sweepsPerMonth()), fixedPerMonth,
                storedGb * (prices.storagePerGbMonth() + prices.pitrPerGbMonth()));
    }

    /** {@code times} operations of {@code usage}, priced. */
    Breakdown price(Usage usage, double times) {
        Map<Service, Double> dollars = new EnumMap<>(Service.class);
        double gbSeconds = usage.compute().stream().mapToDouble(Compute::gbSeconds).sum();
        dollars.put(Service.LAMBDA_REQUESTS, times * usage.lambdaRequests() / MILLION * prices.lambdaPerMillionRequests());
        dollars.put(Service.LAMBDA_DURATION, times * gbSeconds * prices.gbSecond(inputs.architecture()));
        dollars.put(Service.API_GATEWAY, times * usage.apiRequests() / MILLION * prices.httpApiPerMillionRequests());
        dollars.put(Service.DYNAMODB_WRITES, times * usage.writeUnits() / MILLION * prices.perMillionWriteUnits());
        dollars.put(Service.DYNAMODB_READS, times * usage.readUnits() / MILLION * prices.perMillionReadUnits());
        // Logs kept a month at most (infra's default retention is 30 days): storage is an upper bound.
        double logGb = times * usage.logBytes() / GB;
        dollars.put(Service.CLOUDWATCH_LOGS, logGb * (prices.logsIngestionPerGb() + prices.logsStoragePerGbMonth()));
        dollars.put(Service.SECRETS_MANAGER, times * usage.secretCalls() / 10_000 * prices.secretsPerTenThousandCalls());
        return new Breakdown(dollars);
    }

    /**
     * docs/cost.md's table (Worked example): each line of the bill per million charges, and what
     * each delta adds.
     */
    public String markdown() {
        Estimate e = compute();
        List<String> lines = new ArrayList<>();
        lines.add("| " + prices.region() + ", " + inputs.architecture().name().toLowerCase(Locale.ROOT)
                + " | per million charges | + per million replays | + per million unknown outcomes"
                + " | + per million cold starts | sweeps, per month |");
        lines.add("|---|---:|---:|---:|---:|---:|");
        for (Service service : Service.values()) {
            lines.add("| " + service.label + " | " + dollars(e.perMillionCharges().of(service)) + " | "
                    + dollars(e.perMillionReplays().of(service)) + " | "
                    + dollars(e.perMillionUnknownOutcomes().of(service)) + " | "
                    + dollars(e.perMillionColdStarts().of(service)) + " | "
                    + dollars(e.sweepsPerMonth().of(service)) + " |");
        }
        lines.add("| **total** | **" + dollars(e.perMillionCharges().total()) + "** | **"
                + dollars(e.perMillionReplays().total()) + "** | **" + dollars(e.perMillionUnknownOutcomes().total())
                + "** | **" + dollars(e.perMillionColdStarts().total()) + "** | **"
                + dollars(e.sweepsPerMonth().total()) + "** |");
        lines.add("");
        Map<String, Double> byFunction = new LinkedHashMap<>();
        for (Compute c : inputs.charge().compute()) {
            byFunction.merge(c.function(), MILLION * c.gbSeconds() * prices.gbSecond(inputs.architecture()), Double::sum);
        }
        List<String> shares = new ArrayList<>();
        byFunction.forEach((function, amount) -> shares.add(function + " " + dollars(amount)));
        lines.add("Lambda duration per million charges by function: " + String.join(", ", shares) + ".");
        lines.add("Fixed per month (custom metrics, alarms, dashboard, secrets): " + dollars(e.fixedPerMonth())
                + ". DynamoDB storage with point-in-time recovery: " + dollars(e.storagePerMonthPerMillionCharges())
                + " per month for every million charges kept.");
        return String.join("\n", lines) + "\n";
    }

    private static String dollars(double amount) {
        return String.format(Locale.ROOT, "$%.3f", amount);
    }
}
