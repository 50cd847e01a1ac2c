package dev.oncepay.drill;

import dev.oncepay.contract.DeploymentSettings;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/** The one-screen text summary and the self-contained HTML report (inline SVG, no scripts, no CDN). */
final class Report {
    private static final String[] COLORS = {"#2b8a3e", "#e67700", "#1971c2", "#ae3ec9", "#c92a2a", "#f08c00",
        "#495057", "#0b7285", "#862e9c", "#5c940d", "#d9480f", "#364fc7"};

    private Report() {
    }

    static String summary(DrillOptions o, Oracle.Verdict v, Measurements m) {
        List<String> l = new ArrayList<>();
        l.add(String.format(Locale.ROOT, "oncepay chaos drill: %d payments, %d clients, seed %d, provider %s, profile %s, "
                + "%d charge sandboxes", o.payments(), o.clients(), o.seed(), o.provider(), o.profile(),
                o.chargeSandboxes()));
        if (o.stripe()) {
            Map<String, Long> cards = new TreeMap<>();
            m.records.forEach(r -> cards.merge(r.plan.paymentMethod(), 1L, Long::sum));
            l.add("  payment methods: " + cards + "; shoppers at the 3-D Secure prompt: " + m.authentications);
        }
        l.add(String.format(Locale.ROOT, "  provider faults: %s; %d spike/storm windows; outage %s; sandbox kills %d %s",
                m.baseline.isEmpty() ? "none" : m.baseline, m.windows.stream().filter(w -> w.startMs() < m.workloadEndMs)
                        .count(),
                m.outageStartMs < 0 ? "none" : String.format(Locale.ROOT, "+%.1f..+%.1f s", m.outageStartMs / 1000.0,
                        m.outageEndMs / 1000.0), m.kills, m.killsByFunction));
        if (m.store != null && !m.store.plan().quiet()) {
            FaultSchedule.Plan p = m.store.plan();
            l.add(String.format(Locale.ROOT, "  store faults: %s; %d throttling/500/latency/stall/lost-answer windows;"
                    + " outage %s", FaultSchedule.describe(p.baseline()), p.windows().stream()
                            .filter(w -> w.startMs() < m.workloadEndMs).count(),
                    m.store.outageStartMs() < 0 ? "none" : String.format(Locale.ROOT, "+%.1f..+%.1f s",
                            m.store.outageStartMs() / 1000.0, m.store.outageEndMs() / 1000.0)));
            l.add("  store faults injected: " + m.storeInjected);
        }
        long shoppers = m.records.stream().filter(r -> r.plan.shopper()).count();
        l.addAll(wrap(String.format(Locale.ROOT, "  clients: %d shoppers (a 5xx or a timeout -> pay the order"
                + " again under a fresh key), %d orders paid again, %d orders double-clicked (two keys within 100 ms);"
                + " %d answers followed an order's Location (409 order-already-paid or order-in-progress) instead of"
                + " paying; double charges count orders, orphan charges count provider charge requests nobody waited"
                + " for", shoppers, v.repaidOrders(), v.doubleClickedOrders(), v.followedAnswers()), 110));
        l.add(v.lines());
        if (m.outage != null) {
            l.addAll(wrap(m.outage.line(), 110));
        }
        l.addAll(queued(o, m));
        l.add(m.wallets.line());
        l.add(m.refunds.lines());
        l.add(m.events.lines());
        if (o.stripe()) {
            l.add("awaiting customer: " + v.awaitingCustomer() + " (3-D Secure never finished: pending, nothing charged;"
                    + " neither lost nor stuck; " + m.awaitingNeverShown + " never answered requires_action to a client,"
                    + " so no front end could ask the customer)");
        }
        for (String prefix : List.of("DOUBLE CHARGE", "ORPHAN CHARGE", "ASYNC REFUSED")) {
            List<String> shown = v.details().stream().filter(d -> d.startsWith(prefix)).toList();
            shown.stream().limit(10).forEach(d -> l.add("  " + d));
            if (shown.size() > 10) {
                l.add("  ... " + (shown.size() - 10) + " more in summary.txt");
            }
        }
        l.add(String.format(Locale.ROOT, "  ledger %d charges executed (%d succeeded, %d extra on double-charged orders);"
                + " %d charge requests reached the provider; needs review %d; keys in flight %d; abandoned claims %d;"
                + " API/table mismatches %d", v.ledgerCharges(), v.ledgerSucceeded(), v.extraCharges(),
                v.chargeRequests(), v.needsReview(), v.keysInFlight(), v.abandonedClaims(), v.viewMismatches()));
        l.add(m.wallets.breakdown());
        StringBuilder walletAnswers = new StringBuilder("  wallet answers:");
        m.wallets.answers().forEach((k, n) -> walletAnswers.append(' ').append(k).append(' ').append(n).append(';'));
        l.addAll(wrap(walletAnswers.toString(), 110));
        m.wallets.details().stream().filter(d -> Character.isUpperCase(d.charAt(0))).limit(10)
                .forEach(d -> l.add("  " + d));
        l.addAll(wrap(m.refunds.counts(), 110));
        m.refunds.details().stream().filter(d -> Character.isUpperCase(d.charAt(0))).limit(10)
                .forEach(d -> l.add("  " + d));
        l.addAll(wrap(m.events.counts() + (m.merchant == null ? "" : String.format(Locale.ROOT,
                "; the endpoint failed %.0f %% of them throughout and was dark %s", o.merchantFailRate() * 100,
                m.merchant.outageStartMs() < 0 ? "never" : String.format(Locale.ROOT, "+%.1f..+%.1f s",
                        m.merchant.outageStartMs() / 1000.0, m.merchant.outageEndMs() / 1000.0))), 110));
        l.add(String.format(Locale.ROOT, "  event-delivery: %d invocations by the event queue's mapping (%d messages, %d"
                + " failed) %s ms", m.eventBatches.size(), m.eventBatches.stream().mapToInt(QueueDelivery::messages).sum(),
                m.eventBatches.stream().mapToInt(QueueDelivery::failed).sum(),
                percentiles(m.eventBatches.stream().map(QueueDelivery::ms).toList(), 50, 95)));
        m.events.details().stream().limit(10).forEach(d -> l.add("  " + d));
        Map<String, Long> conflicts = m.conflictsByProblem();
        StringBuilder split = new StringBuilder();
        conflicts.forEach((problem, n) -> split.append(split.length() == 0 ? "" : ", ").append(problem).append(' ')
                .append(n));
        l.add(String.format(Locale.ROOT, "POST 409: %d (%s)", conflicts.values().stream().mapToLong(Long::longValue)
                .sum(), split));
        StringBuilder answers = new StringBuilder("answers by status:");
        m.answersByStatus().forEach((k, n) -> answers.append(' ').append(k).append(' ').append(n).append(';'));
        l.addAll(wrap(answers.toString(), 110));
        double workloadS = m.workloadEndMs / 1000.0;
        List<Long> e2e = m.endToEnd();
        l.add(String.format(Locale.ROOT, "throughput %.1f payments/s (%d answered in %.1f s of workload); settle phase %.1f s",
                m.answered() / Math.max(0.001, m.lastFirstAnswerMs() / 1000.0), m.answered(), workloadS,
                (m.settleEndMs - m.workloadEndMs) / 1000.0));
        l.add(String.format(Locale.ROOT, "latency to first answer (201/402/202), retries included: p50 %d p95 %d p99 %d ms",
                Measurements.percentile(e2e, 50), Measurements.percentile(e2e, 95), Measurements.percentile(e2e, 99)));
        if (o.slowAccount() != null) {
            String second = DrillOptions.SECOND_ACCOUNT_TENANT;
            java.util.function.Predicate<Recorder.PaymentRecord> slowOne = r -> r.plan.tenant().equals(second);
            l.add(perAccount("first answer", m.endToEnd(slowOne.negate()), m.endToEnd(slowOne), o));
            l.add(perAccount("time to outcome (first request to first terminal answer)", m.toOutcome(slowOne.negate()),
                    m.toOutcome(slowOne), o));
        }
        StringBuilder per = new StringBuilder("per POST by outcome (n p50/p95/p99 ms):");
        m.postLatencyByOutcome().forEach((k, vs) -> per.append(String.format(Locale.ROOT, " %s %d %d/%d/%d;", k, vs.size(),
                Measurements.percentile(vs, 50), Measurements.percentile(vs, 95), Measurements.percentile(vs, 99))));
        l.addAll(wrap(per.toString(), 110));
        int posts = m.posts();
        l.add(String.format(Locale.ROOT, "requests per payment: %.2f POST (%.2f retries beyond the %d submitters' first), "
                + "%.2f polls", posts / (double) o.payments(), (posts - m.submitters()) / (double) o.payments(),
                m.submitters(), m.polls() / (double) o.payments()));
        l.add(String.format(Locale.ROOT, "provider calls per payment: %.2f charge requests (functions' logged attempts,"
                + " %d; a killed sandbox's last call is not logged; %d reached the provider), %.2f lookups (%d), %.2f"
                + " executed (ledger, %d)", m.providerCharges / (double) o.payments(), m.providerCharges,
                v.chargeRequests(), m.providerLookups / (double) o.payments(), m.providerLookups,
                m.ledgerCharges / (double) o.payments(), m.ledgerCharges));
        int dynamo = m.dynamoRequests.values().stream().mapToInt(Integer::intValue).sum();
        StringBuilder byOperation = new StringBuilder();
        m.dynamoRequests.forEach((operation, n) -> byOperation.append(byOperation.length() == 0 ? "" : ", ")
                .append(operation).append(' ').append(String.format(Locale.ROOT, "%.2f", n / (double) o.payments())));
        l.addAll(wrap(String.format(Locale.ROOT, "DynamoDB requests per payment (every function, workload and settle, SDK"
                + " retries included; at the wire; wallet operations too): %.2f (%d: %s); conditions failed %s",
                dynamo / (double) o.payments(), dynamo, byOperation, m.dynamoConditionsFailed), 110));
        l.addAll(wrap("fleet breakers (the functions' own log lines): transitions " + m.breakerTransitions, 110));
        l.addAll(wrap("fleet protection (the functions' own metrics, summed): " + m.protectionMetrics, 110));
        if (m.outageStats != null) {
            l.add("provider requests during the outage (the simulator's own counts, /_sim/stats): "
                    + m.outageStats.during());
        }
        List<long[]> open = m.breakerOpenIntervals();
        StringBuilder b = new StringBuilder(String.format(Locale.ROOT, "breaker: %d open interval(s) seen by clients "
                + "(%d fast 503s)", open.size(), m.count("503-breaker")));
        for (long[] i : open) {
            long rec = m.firstSuccessAfter(i[1]);
            b.append(String.format(Locale.ROOT, "; open +%.1f..+%.1f s, next 201 at %s", i[0] / 1000.0, i[1] / 1000.0,
                    rec < 0 ? "never" : String.format(Locale.ROOT, "+%.1f s", rec / 1000.0)));
        }
        l.addAll(wrap(b.toString(), 110));
        List<Long> settle = m.unknownToTerminal(r -> !r.plan.respondAsync());
        l.add(String.format(Locale.ROOT, "unknown (202) -> terminal, charged in the request: %d payments, p50 %d p95 %d"
                + " max %d ms", settle.size(),
                Measurements.percentile(settle, 50), Measurements.percentile(settle, 95),
                Measurements.percentile(settle, 100)));
        if (m.naiveRan) {
            List<Long> lat = m.naiveResults.stream().map(NaiveClient.Result::latencyMs).toList();
            double naiveTput = m.naiveResults.size() / Math.max(0.001, m.naiveDurationMs / 1000.0);
            double tput = m.answered() / Math.max(0.001, m.lastFirstAnswerMs() / 1000.0);
            l.add(String.format(Locale.ROOT, "naive client (no key reuse, straight to the PSP): double charges %d "
                    + "(%d extra charges), %.1f submissions/s, p50 %d p95 %d p99 %d ms", m.naiveDoubleCharges,
                    m.naiveExtraCharges, naiveTput, Measurements.percentile(lat, 50), Measurements.percentile(lat, 95),
                    Measurements.percentile(lat, 99)));
            l.add(String.format(Locale.ROOT, "cost of safety (oncepay / naive): throughput x%.2f, latency p50 x%.2f "
                    + "p95 x%.2f p99 x%.2f", tput / naiveTput,
                    ratio(Measurements.percentile(e2e, 50), Measurements.percentile(lat, 50)),
                    ratio(Measurements.percentile(e2e, 95), Measurements.percentile(lat, 95)),
                    ratio(Measurements.percentile(e2e, 99), Measurements.percentile(lat, 99))));
        }
        l.add("verdict: " + (passed(v, m) ? "PASS" : "FAIL") + " (timing on a real machine is not deterministic; the seed fixes"
                + " workload, fault and crash schedules)");
        return String.join("\n", l);
    }

    /** The healthy account's figure beside the slow one's ({@code --slow-account}). */
    private static String perAccount(String figure, List<Long> healthy, List<Long> slow, DrillOptions o) {
        return String.format(Locale.ROOT, "  per account, %s: sim (other tenants, healthy) n %d %s ms; stripe (%s,"
                + " %d ms slower) n %d %s ms", figure, healthy.size(), percentiles(healthy, 50, 95),
                DrillOptions.SECOND_ACCOUNT_TENANT, o.slowAccount().toMillis(), slow.size(), percentiles(slow, 50, 95));
    }

    /**
     * The orders paid with {@code Prefer: respond-async}: their answers, the {@code 202}'s latency,
     * the time from it to the outcome, the worker's queue lag, and each charge queue: its deepest
     * backlog, the worker's invocations from it and what is left on it.
     */
    static List<String> queued(DrillOptions o, Measurements m) {
        List<String> l = new ArrayList<>();
        long orders = m.records.stream().filter(r -> r.plan.respondAsync()).count();
        StringBuilder answers = new StringBuilder();
        m.asyncAnswers().forEach((k, n) -> answers.append(' ').append(k).append(' ').append(n).append(';'));
        l.addAll(wrap(String.format(Locale.ROOT, "async payments (Prefer: respond-async, share %.2f): %d orders; their"
                + " POST answers:%s", o.asyncShare(), orders, answers), 110));
        if (orders == 0) {
            return l;
        }
        List<Long> queued = m.queued202LatencyMs();
        List<Long> toOutcome = m.unknownToTerminal(r -> r.plan.respondAsync());
        l.add(String.format(Locale.ROOT, "  202 of a queued charge: n %d %s ms; 202 -> outcome (polled from 200 ms to"
                + " 1 s): n %d %s ms", queued.size(), percentiles(queued, 50, 95, 99), toOutcome.size(),
                percentiles(toOutcome, 50, 95, 99)));
        long workerMs = m.deliveries.stream().mapToLong(QueueDelivery::ms).sum();
        l.add(String.format(Locale.ROOT, "  charge worker: queue lag (its ChargeQueueLag: request to its start) n %d %s"
                + " max %d ms; %.0f ms of worker invocations per async order", m.queueLagsMs.size(),
                percentiles(m.queueLagsMs, 50, 95), Measurements.percentile(m.queueLagsMs, 100),
                workerMs / (double) orders));
        java.util.Set<String> queues = new java.util.TreeSet<>(m.queueAtEnd.keySet());
        m.deliveries.forEach(d -> queues.add(d.queue()));
        java.util.Map<String, String> deadLetterQueueOf = new java.util.HashMap<>();
        queues.forEach(q -> deadLetterQueueOf.put(q, DeploymentSettings.chargeDeadLetterQueueName(
                q.substring(DeploymentSettings.chargeQueueName("").length()))));
        for (String queue : queues) {
            if (deadLetterQueueOf.containsValue(queue)) {
                continue; // on its queue's line
            }
            List<QueueDelivery> from = m.deliveries.stream().filter(d -> d.queue().equals(queue)).toList();
            QueueWatch.Depth deadLetters = m.queueAtEnd.get(deadLetterQueueOf.get(queue));
            l.addAll(wrap(String.format(Locale.ROOT, "  queue %s: deepest %s; %d worker invocations (%d messages, %d"
                    + " failed) %s ms; left at the end %s; dead letters %s", queue, depth(m.queueDeepest.get(queue)),
                    from.size(), from.stream().mapToInt(QueueDelivery::messages).sum(),
                    from.stream().mapToInt(QueueDelivery::failed).sum(),
                    percentiles(from.stream().map(QueueDelivery::ms).toList(), 50, 95), depth(m.queueAtEnd.get(queue)),
                    deadLetters == null ? "-" : Integer.toString(deadLetters.total())), 110));
        }
        return l;
    }

    /** {@code 12 at +45.2 s (3 waiting, 2 in flight, 7 delayed)}, or {@code -} for a queue never read. */
    private static String depth(QueueWatch.Depth d) {
        return d == null ? "-" : String.format(Locale.ROOT, "%d at +%.1f s (%d waiting, %d in flight, %d delayed)",
                d.total(), d.atMs() / 1000.0, d.visible(), d.inFlight(), d.delayed());
    }

    /** {@code p50 12 p95 40}: the percentiles of {@code values} asked for. */
    static String percentiles(java.util.Collection<Long> values, int... ps) {
        StringBuilder s = new StringBuilder();
        for (int p : ps) {
            s.append(s.length() == 0 ? "" : " ").append('p').append(p).append(' ')
                    .append(Measurements.percentile(values, p));
        }
        return s.toString();
    }

    /** Payments, wallets and refunds alike. */
    private static boolean passed(Oracle.Verdict v, Measurements m) {
        return v.ok() && m.wallets.mismatches() == 0 && m.refunds.ok() && m.events.ok();
    }

    private static double ratio(long a, long b) {
        return b <= 0 ? Double.NaN : a / (double) b;
    }

    private static List<String> wrap(String s, int width) {
        List<String> out = new ArrayList<>();
        String rest = s;
        while (rest.length() > width) {
            int cut = rest.lastIndexOf(' ', width);
            cut = cut <= 0 ? width : cut;
            out.add(rest.substring(0, cut));
            rest = "    " + rest.substring(cut + 1);
        }
        out.add(rest);
        return out;
    }

    static Path write(DrillOptions o, Oracle.Verdict v, Measurements m, String summary) throws IOException {
        Path dir = o.reportDir();
        Files.createDirectories(dir);
        List<String> details = new ArrayList<>(v.details());
        details.addAll(m.wallets.details());
        details.addAll(m.refunds.details());
        details.addAll(m.events.details());
        Files.writeString(dir.resolve("summary.txt"), summary + "\n\n" + String.join("\n", details) + "\n");
        StringBuilder h = new StringBuilder();
        h.append("<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>oncepay chaos drill</title><style>")
                .append("body{font-family:sans-serif;margin:24px;max-width:1100px}pre{background:#f4f4f4;padding:12px;")
                .append("white-space:pre-wrap}.ok{color:#2b8a3e}.bad{color:#c92a2a}svg{background:#fff;border:1px solid #ddd}")
                .append("</style></head><body><h1>oncepay chaos drill</h1>");
        h.append("<h2 class=\"").append(passed(v, m) ? "ok\">PASS" : "bad\">FAIL").append("</h2><pre>")
                .append(esc(summary)).append("</pre>");
        h.append("<h2>Latency distribution (POST attempts, by outcome)</h2>").append(latencyChart(m));
        h.append("<h2>Outcomes over time (POST answers per second)</h2>").append(outcomesChart(m));
        h.append("<h2>Breaker state over time</h2><p>Fast 503s (circuit breaker open) per second; shaded red: provider "
                + "outage; shaded yellow: latency/429 windows; grey lines: sandbox kills.</p>").append(breakerChart(m));
        h.append("<h2>Timeline</h2><pre>");
        m.recorder.events.forEach(e -> h.append(String.format(Locale.ROOT, "+%8.1f s  %s%n", e.getKey() / 1000.0,
                esc(e.getValue()))));
        h.append("</pre>");
        if (!details.isEmpty()) {
            h.append("<h2>Details</h2><pre>").append(esc(String.join("\n", details))).append("</pre>");
        }
        h.append("</body></html>\n");
        Path report = dir.resolve("report.html");
        Files.writeString(report, h.toString(), StandardCharsets.UTF_8);
        return report;
    }

    private static String latencyChart(Measurements m) {
        // Log-spaced buckets from 1 ms to 60 s.
        double[] edges = new double[40];
        for (int i = 0; i < edges.length; i++) {
            edges[i] = Math.pow(10, i * 4.8 / (edges.length - 1));
        }
        Map<String, int[]> hist = new TreeMap<>();
        m.postLatencyByOutcome().forEach((k, vs) -> {
            int[] h = new int[edges.length];
            for (long x : vs) {
                int i = 0;
                while (i < edges.length - 1 && x > edges[i]) {
                    i++;
                }
                h[i]++;
            }
            hist.put(k + " (" + vs.size() + ")", h);
        });
        int max = hist.values().stream().flatMapToInt(java.util.Arrays::stream).max().orElse(1);
        int w = 1000;
        int ht = 300;
        StringBuilder s = svgStart(w, ht + 60);
        int c = 0;
        for (Map.Entry<String, int[]> e : hist.entrySet()) {
            StringBuilder pts = new StringBuilder();
            for (int i = 0; i < edges.length; i++) {
                pts.append(String.format(Locale.ROOT, "%.1f,%.1f ", 50 + i * (w - 200) / (double) (edges.length - 1),
                        ht - e.getValue()[i] * (ht - 20) / (double) max));
            }
            String col = COLORS[c % COLORS.length];
            s.append("<polyline fill=\"none\" stroke-width=\"2\" stroke=\"").append(col).append("\" points=\"")
                    .append(pts).append("\"/>");
            s.append(text(w - 140, 20 + 16 * c, esc(e.getKey()), col));
            c++;
        }
        for (int i = 0; i < edges.length; i += 5) {
            s.append(text(40 + i * (w - 200) / (edges.length - 1), ht + 20, label(edges[i]), "#333"));
        }
        s.append(text(50, ht + 45, "latency (log scale); y: attempts per bucket, max " + max, "#333"));
        return s.append("</svg>").toString();
    }

    private static String label(double ms) {
        return ms < 1000 ? String.format(Locale.ROOT, "%.0f ms", ms) : String.format(Locale.ROOT, "%.1f s", ms / 1000);
    }

    private static String outcomesChart(Measurements m) {
        long end = Math.max(1, m.settleEndMs / 1000 + 1);
        Map<String, long[]> series = new LinkedHashMap<>();
        for (Recorder.Attempt a : m.recorder.attempts) {
            if (!a.method().equals("POST")) {
                continue;
            }
            int sec = (int) Math.min(end - 1, (a.startMs() + a.latencyMs()) / 1000);
            series.computeIfAbsent(a.outcome(), k -> new long[(int) end])[sec]++;
        }
        long max = 1;
        for (int i = 0; i < end; i++) {
            long sum = 0;
            for (long[] x : series.values()) {
                sum += x[i];
            }
            max = Math.max(max, sum);
        }
        int w = 1000;
        int ht = 300;
        StringBuilder s = svgStart(w, ht + 60);
        double bw = (w - 200) / (double) end;
        for (int i = 0; i < end; i++) {
            double y = ht;
            int c = 0;
            for (long[] x : series.values()) {
                double h = x[i] * (ht - 20) / (double) max;
                y -= h;
                s.append(String.format(Locale.ROOT, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\"/>",
                        50 + i * bw, y, Math.max(0.5, bw - 0.3), h, COLORS[c % COLORS.length]));
                c++;
            }
        }
        int c = 0;
        for (String k : series.keySet()) {
            s.append(text(w - 140, 20 + 16 * c, k, COLORS[c % COLORS.length]));
            c++;
        }
        s.append(axis(end, w, ht, bw)).append(text(50, ht + 45, "seconds since the workload started; y max " + max
                + "/s; settle phase from +" + m.workloadEndMs / 1000 + " s", "#333"));
        return s.append("</svg>").toString();
    }

    private static String breakerChart(Measurements m) {
        long end = Math.max(1, m.settleEndMs / 1000 + 1);
        long[] fast = new long[(int) end];
        for (Recorder.Attempt a : m.recorder.attempts) {
            if (a.outcome().equals("503-breaker")) {
                fast[(int) Math.min(end - 1, (a.startMs() + a.latencyMs()) / 1000)]++;
            }
        }
        long max = Math.max(1, java.util.Arrays.stream(fast).max().orElse(1));
        int w = 1000;
        int ht = 200;
        double bw = (w - 200) / (double) end;
        StringBuilder s = svgStart(w, ht + 60);
        for (FaultSchedule.Window win : m.windows) {
            if (win.startMs() / 1000 < end) {
                s.append(String.format(Locale.ROOT, "<rect x=\"%.1f\" y=\"0\" width=\"%.1f\" height=\"%d\" fill=\"#fff3bf\"/>",
                        50 + win.startMs() / 1000.0 * bw, (win.endMs() - win.startMs()) / 1000.0 * bw, ht));
            }
        }
        if (m.outageStartMs >= 0) {
            s.append(String.format(Locale.ROOT, "<rect x=\"%.1f\" y=\"0\" width=\"%.1f\" height=\"%d\" fill=\"#ffc9c9\"/>",
                    50 + m.outageStartMs / 1000.0 * bw, (m.outageEndMs - m.outageStartMs) / 1000.0 * bw, ht));
        }
        m.recorder.events.forEach(e -> {
            if (e.getValue().startsWith("crash: SIGKILL")) {
                double x = 50 + e.getKey() / 1000.0 * bw;
                s.append(String.format(Locale.ROOT, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"0\" y2=\"%d\" stroke=\"#868e96\"/>",
                        x, x, ht));
            }
        });
        StringBuilder pts = new StringBuilder();
        for (int i = 0; i < end; i++) {
            double y = ht - fast[i] * (ht - 20) / (double) max;
            pts.append(String.format(Locale.ROOT, "%.1f,%.1f %.1f,%.1f ", 50 + i * bw, y, 50 + (i + 1) * bw, y));
        }
        s.append("<polyline fill=\"none\" stroke=\"#c92a2a\" stroke-width=\"2\" points=\"").append(pts).append("\"/>");
        s.append(axis(end, w, ht, bw)).append(text(50, ht + 45, "fast 503s (breaker open) per second, max " + max,
                "#333"));
        return s.append("</svg>").toString();
    }

    private static String axis(long end, int w, int ht, double bw) {
        StringBuilder s = new StringBuilder();
        long step = Math.max(1, end / 10);
        for (long t = 0; t < end; t += step) {
            s.append(text((int) (45 + t * bw), ht + 20, t + " s", "#333"));
        }
        return s.toString();
    }

    private static StringBuilder svgStart(int w, int h) {
        return new StringBuilder("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + w + "\" height=\"" + h
                + "\" viewBox=\"0 0 " + w + " " + h + "\">");
    }

    private static String text(int x, int y, String t, String color) {
        return "<text x=\"" + x + "\" y=\"" + y + "\" font-size=\"12\" fill=\"" + color + "\">" + t + "</text>";
    }

    private static String esc(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
    }
}
