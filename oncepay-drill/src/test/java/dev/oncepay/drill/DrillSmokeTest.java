package dev.oncepay.drill;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.oncepay.local.LambdaPackage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The drill's CI configuration ({@link DrillOptions#smoke}), once per hostile profile, and once
 * against the simulator's Stripe mode (Stripe's test cards: some decline, some ask the shopper to
 * authenticate, who approves, refuses or abandons): seeded payments through the real local run, some
 * from shoppers who pay again under a fresh key, some double-clicked under two keys, some paid with
 * {@code Prefer: respond-async} (queued, charged by the charge worker), with killed
 * sandboxes and either a provider with real providers' habits and an outage, or a store that
 * throttles, fails, stalls, loses answers and has an outage. It asserts only the invariants — no
 * order charged twice whatever its keys and whatever the cause ({@code double charges per order:
 * 0}), no charge nobody waited for, nothing lost or stuck, every client's last answer agrees with
 * the ledger (a followed order's payment included), the order guard met (clients followed an
 * order's {@code Location}), every settled payment's and refund's final state applied at the merchant
 * endpoint, which fails a fifth of the deliveries and goes dark for a while, in order and signed
 * ({@code events missing: 0}, {@code events out of order applied: 0}, {@code events with a bad
 * signature: 0}), charges queued and run by the worker and no queued request refused for
 * the provider's state ({@code async 503 provider-at-capacity/unavailable: 0}), no more charge
 * requests reaching the provider during its outage than the fleet breaker's bound ({@code outage
 * charge requests over the breaker's bound: 0}), and {@code wallet mismatches: 0} for the wallet traffic mixed in —
 * never timings.
 */
@Tag("local-run")
@Tag("slow")
class DrillSmokeTest {
    @ParameterizedTest(name = "{0} {1}")
    @CsvSource({"sim, hostile-provider, 80", "sim, store-faults, 80", "stripe, hostile-provider, 60"})
    // A cold package trains five functions' AppCDS archives before the first case: 126 s to ready on 2 busy cores.
    @Timeout(420)
    void noOrderChargedTwiceNoOrphanNothingLostOrStuck(String provider, String profile, int payments) throws Exception {
        Path root = Path.of("").toAbsolutePath();
        while (!Files.exists(root.resolve("package.json"))) {
            root = root.getParent();
        }
        Path app = LambdaPackage.built();
        String name = provider.equals("sim") ? profile : provider + "-" + profile;
        DrillOptions options = DrillOptions.smoke(provider, profile, payments, 7, app,
                root.resolve("target/drill-test/" + name));
        Drill.Outcome outcome = Drill.run(options, System.out);
        String details = String.join("\n", outcome.verdict().details());
        assertTrue(outcome.summary().contains("provider " + provider + ", profile " + profile), outcome.summary());
        assertTrue(outcome.verdict().chargeRequests() > 0, "charges reached the provider's " + provider + " API");
        assertTrue(outcome.summary().contains("\ndouble charges per order: 0\n"), outcome.summary());
        assertEquals(0, outcome.verdict().doubleCharges(), details);
        assertEquals(0, outcome.verdict().orphanCharges(), details);
        assertEquals(0, outcome.verdict().lost(), details);
        assertEquals(0, outcome.verdict().stuck(), details);
        assertEquals(0, outcome.verdict().disagreeing(), details);
        // A share of the orders was paid with Prefer: respond-async: queued, charged by the worker,
        // and never refused for the provider's state.
        assertTrue(outcome.summary().contains("\nasync 503 provider-at-capacity/unavailable: 0\n"), outcome.summary());
        assertEquals(0, outcome.verdict().asyncRefused(), details);
        assertTrue(count(outcome.summary(), "\\s202\\s+queued\\s+(\\d+);") > 0, "charges were queued: " + outcome.summary());
        assertTrue(count(outcome.summary(),
                "(?s)queue oncepay-charges-default:.*?;\\s+(\\d+)\\s+worker\\s+invocations") > 0,
                "the charge worker ran: " + outcome.summary());
        if (profile.equals("hostile-provider")) {
            // The provider went down for a while: the fleet breaker let no more reach it than its bound.
            assertTrue(outcome.outage() != null, "the provider had its outage: " + outcome.summary());
            assertEquals(0, outcome.outage().overBound(), outcome.outage().line());
            assertTrue(outcome.summary().contains("\noutage charge requests over the breaker's bound: 0 ("),
                    outcome.summary());
        }
        assertTrue(outcome.verdict().doubleClickedOrders() > 0 && outcome.verdict().followedAnswers() > 0,
                "double clicks met the order guard: " + outcome.summary());
        // The wallets met the same faults: none unbalanced, applied twice, below zero, or answered
        // against its entries, and the traffic really ran (applied credits and debits, refused debits).
        WalletAudit.Verdict wallets = outcome.wallets();
        String walletDetails = String.join("\n", wallets.details());
        assertTrue(outcome.summary().contains("\nwallet mismatches: 0\n"), outcome.summary());
        assertEquals(0, wallets.mismatches(), walletDetails);
        assertEquals(0, wallets.unexpected(), walletDetails);
        assertEquals(WalletWorkload.WALLETS_PER_TENANT * Workload.TENANTS.size(), wallets.wallets());
        for (String answer : List.of("credits 201", "debits 201", "debits 402")) {
            assertTrue(wallets.answers().getOrDefault(answer, 0) > 0, answer + ": " + wallets.answers());
        }
        // Refunds met the same faults: none beyond the charge, none executed twice, none lost; and
        // on the generic API they really ran (the workload refunds only its orders).
        RefundAudit.Verdict refunds = outcome.refunds();
        String refundDetails = String.join("\n", refunds.details());
        assertTrue(outcome.summary().contains("\nover-refunds: 0\ndouble refunds: 0\nlost refunds: 0\n"),
                outcome.summary());
        assertEquals(0, refunds.overRefunds() + refunds.doubleRefunds() + refunds.lostRefunds(), refundDetails);
        if (provider.equals("sim")) {
            assertTrue(refunds.answers().getOrDefault("201", 0) > 0, "refunds ran: " + refunds.answers());
        }
        // The merchant endpoint failed a fifth of the deliveries and went dark for a while: still every
        // settled payment's and refund's final state reached it, none applied out of order, every
        // delivery signed with its endpoint's secret.
        EventAudit.Verdict events = outcome.events();
        String eventDetails = String.join("\n", events.details());
        assertTrue(outcome.summary().contains("\nevents missing: 0\nrefund events missing: 0\n"
                + "events out of order applied: 0\nevents with a bad signature: 0\n"), outcome.summary());
        assertEquals(0, events.missing() + events.refundsMissing() + events.outOfOrder() + events.rejected(), eventDetails);
        assertTrue(events.payments() > 0, "settled payments were expected at the merchant: " + events.counts());
        assertTrue(events.merchantCounts().path("failed").asInt() > 0, "the merchant failed some deliveries: " + events.counts());
        assertTrue(outcome.summary().contains("was dark +"), "the merchant went dark: " + outcome.summary());
        assertTrue(Files.exists(outcome.report()));
    }

    /** The number {@code pattern}'s group captures in the summary (its lines may wrap), 0 if it is not there. */
    private static int count(String summary, String pattern) {
        java.util.regex.Matcher m = java.util.regex.Pattern.compile(pattern).matcher(summary);
        return m.find() ? Integer.parseInt(m.group(1)) : 0;
    }
}
