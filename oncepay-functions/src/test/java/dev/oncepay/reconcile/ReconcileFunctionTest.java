package dev.oncepay.reconcile;

import dev.oncepay.testing.PaymentViews;
import dev.oncepay.payment.Actor;
import static dev.oncepay.reconcile.ReconcileFixture.body;
import static dev.oncepay.reconcile.ReconcileFixture.paymentId;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.oncepay.provider.spi.ProviderRefusal;
import dev.oncepay.charge.ChargePhase;
import dev.oncepay.http.HttpApiResponse;
import dev.oncepay.contract.Metrics;
import dev.oncepay.testing.RecordingMetrics;
import dev.oncepay.payment.Payment;
import dev.oncepay.payment.PaymentRepository;
import dev.oncepay.payment.PaymentRepository.SweepState;
import dev.oncepay.payment.PaymentStatus;
import dev.oncepay.payment.Transition;
import dev.oncepay.provider.policy.FleetBreakers;
import dev.oncepay.provider.ProviderGateway;
import dev.oncepay.provider.spi.ProviderOperation;
import dev.oncepay.reconcile.ReconcileFixture.AtProvider;
import dev.oncepay.sim.Faults;
import dev.oncepay.sim.LedgerEntry;
import dev.oncepay.contract.Attr;
import dev.oncepay.contract.Table;
import dev.oncepay.store.DynamoRequestCounter;
import dev.oncepay.testing.PhaseHooks;
import dev.oncepay.testing.TestClock;
import dev.oncepay.testing.TestEnvironment;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import jakarta.inject.Inject;
import java.util.Optional;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.UUID;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The reconcile Lambda through its entry point: a real EventBridge scheduled event posted to the
 * Lambda mock event server, against dynalite and the PSP simulator. Time moves by the test clock.
 */
@QuarkusTest
@TestProfile(ReconcileProfile.class)
@WithTestResource(value = TestEnvironment.class, scope = TestResourceScope.GLOBAL)
class ReconcileFunctionTest {
    /** The charge run's first check of an UNKNOWN payment (oncepay.sweep.first-check-delay) plus a second. */
    private static final Duration FIRST_CHECK = Duration.ofSeconds(31);
    /** Twice the charge lease (35 s) plus a second: when a stuck PENDING payment becomes due. */
    private static final Duration PENDING_DUE = Duration.ofSeconds(71);
    /** oncepay.reconcile.provider-visibility-lag (default). */
    private static final Duration VISIBILITY_LAG = Duration.ofMinutes(5);
    /** The longest deferral in the test profile (backoff cap 1 min) plus a second. */
    private static final Duration NEXT_CHECK = Duration.ofSeconds(61);

    @Inject
    ReconcileFixture fx;
    @Inject
    TestClock clock;
    @Inject
    DynamoRequestCounter dynamoCalls;
    @Inject
    PhaseHooks chargeHooks;
    @Inject
    SweepHooks sweepHooks;
    @Inject
    RecordingMetrics metrics;
    @Inject
    ProviderGateway provider;
    @Inject
    FleetBreakers breakers;
    @Inject
    ObjectMapper json;
    @Inject
    PaymentRepository payments;

    @BeforeEach
    void reset() {
        fx.reset();
    }

    @Test
    void commitThenTimeoutIsSettledByTheNextSweepAndTheKeyThenReplaysTheSettledPayment() throws Exception {
        String key = UUID.randomUUID().toString();
        String body = body(4200, "order_e2e");
        HttpApiResponse accepted = fx.commitThenTimeout(key, body, false);
        String id = paymentId(accepted);
        assertEquals("pending", json.readTree(accepted.body()).get("status").asText());
        assertEquals(1, fx.ledgerOf(id).size(), "the provider executed the charge before timing out");

        SweepSummary early = fx.sweep();
        assertEquals(0, early.examined(), "not due before the first check delay");

        clock.advance(FIRST_CHECK);
        CountedSweep counted = countedSweep();
        SweepSummary sweep = counted.summary();

        assertEquals(1, sweep.examined());
        assertEquals(1, sweep.settled().succeeded());
        assertEquals(0, sweep.resent());
        // The sandbox's first reads of the fleet lookup breaker's shard (then trusted for
        // breaker-cache) and of its bulkhead slot shard; the charge's it still holds from the charge.
        assertEquals(Map.of("Query", 4L + ReconcileFixture.REFUND_SHARD_QUERIES + ReconcileFixture.OUTBOX_SHARD_QUERIES
                + ReconcileFixture.BACKLOG_QUERIES_WHEN_NONE_WAIT, "GetItem", 3L, "UpdateItem", 1L),
                counted.dynamoCalls(), "4 shard queries per sweep, then one consistent read and one conditional write per"
                        + " payment, 4 refund shard queries, 4 outbox shard queries; then the backlog gauges' queries of the attention index");
        assertEquals(1, counted.lookups(), "one lookup by reference");
        assertEquals(0, counted.charges(), "no charge sent: the lookup found it");

        List<LedgerEntry> ledger = fx.ledgerOf(id);
        assertEquals(1, ledger.size());
        SweepState settled = fx.state(id);
        assertEquals(PaymentStatus.SUCCEEDED, settled.payment().status());
        assertEquals(ledger.get(0).id(), settled.payment().providerPaymentId());
        assertNull(settled.nextCheckAt());
        assertFalse(fx.listed(id), "out of the sweep index");

        HttpApiResponse replay = fx.post(key, body);
        assertEquals(201, replay.statusCode(), replay.body());
        assertEquals("true", replay.header("Idempotent-Replayed"));
        JsonNode payment = json.readTree(replay.body());
        assertEquals("succeeded", payment.get("status").asText());
        assertEquals(ledger.get(0).id(), payment.get("providerPaymentId").asText());
        assertEquals(payment, PaymentViews.asCharged(json.readTree(fx.get(id).body())),
                "GET shows the same settled payment");
        assertEquals(0, fx.sweep().examined(), "nothing left to do");
        assertEquals(1, fx.ledgerOf(id).size(), "still exactly one charge");
    }

    @Test
    void unknownDeclinedChargeIsFailedByTheLookup() throws Exception {
        String key = UUID.randomUUID().toString();
        String body = body(1500, "order_declined");
        String id = paymentId(fx.commitThenTimeout(key, body, true));
        clock.advance(FIRST_CHECK);

        SweepSummary sweep = fx.sweep();

        assertEquals(1, sweep.settled().failed());
        Payment failed = fx.state(id).payment();
        assertEquals(PaymentStatus.FAILED, failed.status());
        assertEquals("card_declined", failed.declineCode());
        assertEquals(fx.ledgerOf(id).get(0).id(), failed.providerPaymentId());
        HttpApiResponse replay = fx.post(key, body);
        assertEquals(402, replay.statusCode());
        assertEquals("true", replay.header("Idempotent-Replayed"));
        assertEquals("card_declined", json.readTree(replay.body()).get("declineCode").asText());
        assertEquals(1, fx.ledgerOf(id).size());
    }

    @Test
    void chargeThatNeverReachedTheProviderIsResentWithTheSameProviderKeyOnce() throws Exception {
        // The connection drops before the provider executes anything: UNKNOWN, nothing in the ledger.
        fx.sim().setFaults(Faults.none().withResetRate(1.0));
        String key = UUID.randomUUID().toString();
        String body = body(990, "order_lost");
        HttpApiResponse accepted = fx.post(key, body);
        fx.sim().setFaults(Faults.none());
        assertEquals(202, accepted.statusCode(), accepted.body());
        String id = paymentId(accepted);
        assertEquals(List.of(), fx.ledgerOf(id));
        clock.advance(FIRST_CHECK);

        CountedSweep counted = countedSweep();
        SweepSummary sweep = counted.summary();

        assertEquals(1, sweep.resent());
        assertEquals(1, sweep.settled().succeeded());
        assertEquals(1, counted.lookups());
        assertEquals(1, counted.charges());
        // and the sandbox's first reads of the fleet lookup breaker's shard and bulkhead slot shard
        // (the charge's it holds)
        assertEquals(Map.of("Query", 4L + ReconcileFixture.REFUND_SHARD_QUERIES + ReconcileFixture.OUTBOX_SHARD_QUERIES
                + ReconcileFixture.BACKLOG_QUERIES_WHEN_NONE_WAIT, "GetItem", 3L,
                "UpdateItem", 1L), counted.dynamoCalls());
        List<LedgerEntry> ledger = fx.ledgerOf(id);
        assertEquals(1, ledger.size());
        assertEquals("oncepay-" + id, ledger.get(0).idempotencyKey(), "re-sent with the payment's provider key");
        assertEquals(ledger.get(0).id(), fx.state(id).payment().providerPaymentId());

        HttpApiResponse replay = fx.post(key, body);
        assertEquals(201, replay.statusCode());
        assertEquals("true", replay.header("Idempotent-Replayed"));
        clock.advance(NEXT_CHECK);
        assertEquals(0, fx.sweep().examined());
        assertEquals(1, fx.ledgerOf(id).size());
    }

    @Test
    void notFoundPastTheResendHorizonIsNeverResentAndIsFinalOnlyAfterTheProviderWindow() {
        Payment payment = fx.unknownPayment(700, AtProvider.NOTHING);
        int chargesBefore = fx.sim().chargeRequests();
        Instant finalAt = payment.createdAt().plus(Duration.ofHours(25)); // window 24 h + margin 1 h

        // 2 h: past the re-send horizon (1 h). Nothing is sent; the next check is when "not found" is final.
        clock.advance(Duration.ofHours(2));
        SweepSummary pastHorizon = fx.sweep();
        assertEquals(1, pastHorizon.deferred());
        assertEquals(0, pastHorizon.resent());
        SweepState deferred = fx.state(payment.id());
        assertEquals(PaymentStatus.UNKNOWN, deferred.payment().status());
        assertEquals(1, deferred.payment().checkAttempts());
        assertEquals(finalAt.toEpochMilli(), deferred.nextCheckAt().toEpochMilli());
        clock.advance(Duration.ofHours(22));
        assertEquals(0, fx.sweep().examined(), "not checked again before then");

        clock.advance(Duration.ofHours(1).plusSeconds(1));
        SweepSummary afterWindow = fx.sweep();
        assertEquals(1, afterWindow.settled().failed());
        Payment failed = fx.state(payment.id()).payment();
        assertEquals(PaymentStatus.FAILED, failed.status());
        assertEquals(Payment.NOT_CHARGED, failed.declineCode());
        assertNull(failed.providerPaymentId());
        assertEquals(chargesBefore, fx.sim().chargeRequests(), "never re-sent");
        assertEquals(List.of(), fx.ledgerOf(payment.id()));
    }

    @Test
    void deferralsBackOffKeepTheReplayByteIdenticalAndTheCapDeadLettersToNeedsReview() throws Exception {
        String key = UUID.randomUUID().toString();
        String body = body(3100, "order_capped");
        HttpApiResponse accepted = fx.commitThenTimeout(key, body, false);
        String id = paymentId(accepted);
        fx.sim().setFaults(Faults.none().withOutage(true)); // every lookup answers 503
        clock.advance(FIRST_CHECK);

        for (int check = 1; check <= 2; check++) {
            Instant before = clock.instant();
            SweepSummary sweep = fx.sweep();
            assertEquals(1, sweep.deferred(), "check " + check);
            assertEquals(1.0, metrics.lastGauge(Metrics.UNKNOWN_BACKLOG), "the backlog gauge saw it waiting");
            assertTrue(metrics.lastGauge(Metrics.UNKNOWN_OLDEST_AGE) >= FIRST_CHECK.toSeconds());
            SweepState state = fx.state(id);
            assertEquals(PaymentStatus.UNKNOWN, state.payment().status());
            assertEquals(check, state.payment().checkAttempts());
            Duration ceiling = Duration.ofSeconds(10L << (check - 1)); // equal jitter under base·2^attempts
            assertTrue(!state.nextCheckAt().isBefore(before.plus(ceiling.dividedBy(2)))
                    && !state.nextCheckAt().isAfter(clock.instant().plus(ceiling)), () -> "next check " + state);
            HttpApiResponse replay = fx.post(key, body);
            assertEquals(202, replay.statusCode());
            assertEquals(accepted.body(), replay.body(), "a deferral changes nothing a client sees");
            clock.advance(NEXT_CHECK);
        }

        metrics.reset();
        SweepSummary third = fx.sweep();
        assertEquals(1, third.deadLettered());
        assertEquals(1, metrics.counted(Metrics.NEEDS_REVIEW), "every move to NEEDS_REVIEW is counted for the alarm");
        SweepState dead = fx.state(id);
        assertEquals(PaymentStatus.NEEDS_REVIEW, dead.payment().status());
        assertTrue(dead.payment().statusReason().startsWith("dead-lettered after 3 checks"), dead.payment().statusReason());
        assertTrue(dead.payment().statusReason().contains("lookup failed"), dead.payment().statusReason());
        HttpApiResponse inReview = fx.get(id);
        assertEquals("needs_review", json.readTree(inReview.body()).path("status").asText());
        assertEquals("reconcile_gave_up", json.readTree(inReview.body()).path("reviewReason").asText(), inReview::body);
        assertEquals(PaymentViews.asCharged(json.readTree(inReview.body())), json.readTree(fx.post(key, body).body()),
                "the replay says the same");
        assertFalse(fx.listed(id), "out of the sweep index");
        clock.advance(NEXT_CHECK);
        assertEquals(0, fx.sweep().examined());
        assertEquals(1, fx.ledgerOf(id).size(), "dead-lettering never touches the charge");
    }

    @Test
    void aPaymentOfAnotherProviderAccountIsNeverLookedUpHereAndEndsInReview() {
        Payment otherProvider = fx.unknownPayment(910, AtProvider.SUCCEEDED);
        fx.rebind(otherProvider.id(), "acme", "default");
        clock.advance(Duration.ofMillis(5));
        Payment otherAccount = fx.pendingPayment(920, AtProvider.NOTHING, Duration.ZERO);
        fx.rebind(otherAccount.id(), "sim", "acct_elsewhere");

        for (int check = 1; check <= 2; check++) {
            CountedSweep sweep = countedSweep();
            assertEquals(2, sweep.summary().deferred(), "check " + check + ": " + sweep.summary());
            assertEquals(0, sweep.lookups(), "not asked at a provider account that did not charge them");
            assertEquals(0, sweep.charges());
            clock.advance(NEXT_CHECK);
        }
        CountedSweep last = countedSweep();

        assertEquals(2, last.summary().deadLettered());
        assertEquals(0, last.lookups());
        for (Payment p : List.of(otherProvider, otherAccount)) {
            Payment dead = fx.state(p.id()).payment();
            assertEquals(PaymentStatus.NEEDS_REVIEW, dead.status());
            assertTrue(dead.statusReason().contains("does not reach"), dead.statusReason());
        }
        assertEquals(List.of(), fx.ledgerOf(otherAccount.id()), "nothing sent for the PENDING one");
    }

    @Test
    void aPaymentFailedWithDeclineCodeNoChargeAtProviderIsReplayedAsNotCharged() throws Exception {
        String key = UUID.randomUUID().toString();
        String body = body(930, "order_legacy");
        fx.sim().setFaults(Faults.none().withResetRate(1.0)); // dropped before the provider executed it
        HttpApiResponse accepted = fx.post(key, body);
        fx.sim().setFaults(Faults.none());
        assertEquals(202, accepted.statusCode(), accepted.body());
        String id = paymentId(accepted);
        // A payment the provider never had a charge for, FAILED with declineCode no_charge_at_provider.
        TestEnvironment.dynamo().updateItem(b -> b.tableName(TestEnvironment.TABLE)
                .key(Attr.key(PaymentRepository.pk(id)))
                .updateExpression("SET #s = :failed, #d = :code REMOVE #shard, #next")
                .expressionAttributeNames(Map.of("#s", Table.STATUS, "#d", Table.DECLINE_CODE,
                        "#shard", Table.SWEEP_SHARD, "#next", Table.NEXT_CHECK_AT))
                .expressionAttributeValues(Map.of(":failed", Attr.s("FAILED"),
                        ":code", Attr.s(Payment.NO_CHARGE_AT_PROVIDER))));

        HttpApiResponse replay = fx.post(key, body);

        assertEquals(402, replay.statusCode());
        assertEquals("https://oncepay.dev/problems/payment-not-charged",
                json.readTree(replay.body()).get("type").asText());
    }

    @Test
    void unresolvedPastTheAgeCapIsDeadLettered() {
        Payment payment = fx.unknownPayment(500, AtProvider.SUCCEEDED);
        fx.sim().setFaults(Faults.none().withOutage(true));
        clock.advance(Duration.ofHours(73));

        SweepSummary sweep = fx.sweep();

        assertEquals(1, sweep.deadLettered());
        Payment dead = fx.state(payment.id()).payment();
        assertEquals(PaymentStatus.NEEDS_REVIEW, dead.status());
        assertTrue(dead.statusReason().contains("caps: 3 checks, PT72H"), dead.statusReason());
    }

    @Test
    void openChargeBreakerDefersWithoutAnyProviderCall() {
        // An outage opens the charge breaker (test threshold: 4 attempts); the charge ends UNKNOWN.
        fx.sim().setFaults(Faults.none().withOutage(true));
        String key = UUID.randomUUID().toString();
        String body = body(2500, "order_outage");
        HttpApiResponse accepted = fx.post(key, body);
        assertEquals(202, accepted.statusCode(), accepted.body());
        assertEquals(Optional.of(ProviderRefusal.BREAKER_OPEN), provider.chargeRefusal(ReconcileFixture.ACCOUNT));
        String id = paymentId(accepted);
        Payment before = fx.state(id).payment();
        fx.sim().setFaults(Faults.none()); // healthy again, but the breaker stays open for its delay
        clock.advance(FIRST_CHECK);

        CountedSweep counted = countedSweep();
        SweepSummary sweep = counted.summary();

        assertEquals(1, sweep.deferred());
        assertEquals(0, counted.charges());
        assertEquals(0, counted.lookups(), "not even a lookup");
        SweepState deferred = fx.state(id);
        assertEquals(PaymentStatus.UNKNOWN, deferred.payment().status());
        assertEquals(1, deferred.payment().checkAttempts());
        assertTrue(deferred.nextCheckAt().isAfter(clock.instant().minusSeconds(1)));
        assertEquals(before.updatedAt(), deferred.payment().updatedAt(), "a deferral does not touch updatedAt");
    }

    @Test
    void aChargeBreakerOpenedByAnotherSandboxDefersTheSweepWithoutAnyProviderCall() {
        // Another function's sandbox (the charge API's) met the outage; this sweep only reads the breaker.
        Payment payment = fx.unknownPayment(2600, AtProvider.SUCCEEDED);
        breakers.openFromAnotherSandbox(ReconcileFixture.ACCOUNT, ProviderOperation.CHARGE);

        CountedSweep counted = countedSweep();

        assertEquals(1, counted.summary().deferred(), counted.summary()::toString);
        assertEquals(0, counted.charges());
        assertEquals(0, counted.lookups(), "not even a lookup");
        assertEquals(PaymentStatus.UNKNOWN, fx.state(payment.id()).payment().status());
    }

    @Test
    void anAccountAtItsCapOfChargesInFlightDefersTheSweepWithoutAnyProviderCall() throws Exception {
        // The charge API's sandboxes hold every charge slot of the account: the provider is slow.
        Payment payment = fx.unknownPayment(2700, AtProvider.SUCCEEDED);
        Runnable endSlowCalls = breakers.fillFromOtherSandboxes(ReconcileFixture.ACCOUNT, ProviderOperation.CHARGE);
        try {
            metrics.reset();
            CountedSweep counted = countedSweep();

            assertEquals(1, counted.summary().deferred(), counted.summary()::toString);
            assertEquals(0, counted.charges());
            assertEquals(0, counted.lookups(), "a slow provider is not asked more");
            assertEquals(1, metrics.counted(Metrics.PROVIDER_AT_CAPACITY));
            assertEquals(PaymentStatus.UNKNOWN, fx.state(payment.id()).payment().status());
        } finally {
            endSlowCalls.run();
        }
    }

    @Test
    void stuckPendingIsNeverChargedByTheSweepAndFailsAsNotChargedAfterTheVisibilityLag() throws Exception {
        // The charge run dies right after recording the payment: nothing reached the provider, and
        // the client saw a gateway error, not a 202. It may pay again under a new key.
        chargeHooks.crashOnceAfter(ChargePhase.PAYMENT_RECORDED);
        String key = UUID.randomUUID().toString();
        String body = body(6400, "order_stuck");
        assertThrows(PhaseHooks.SimulatedCrash.class, () -> fx.post(key, body));
        String id = fx.onlyPaymentOf(key);
        Instant leaseEnd = fx.state(id).payment().leaseExpiresAt();
        clock.advance(Duration.ofSeconds(36));
        assertEquals(0, fx.sweep().examined(), "the lease has ended but the charge run may still be retried by its client");

        clock.advance(PENDING_DUE.minusSeconds(36));
        CountedSweep asked = countedSweep();

        assertEquals(1, asked.summary().examined());
        assertEquals(0, asked.summary().resent(), "no client waits for this charge: never sent by the sweep");
        assertEquals(0, asked.charges());
        assertEquals(1, asked.lookups(), "only asked about");
        assertEquals(1, asked.summary().deferred());
        SweepState waiting = fx.state(id);
        assertEquals(PaymentStatus.PENDING, waiting.payment().status());
        assertEquals(leaseEnd.plus(VISIBILITY_LAG).toEpochMilli(), waiting.nextCheckAt().toEpochMilli(),
                "checked again once a charge would surely show in lookups");

        clock.advance(Duration.between(clock.instant(), leaseEnd.plus(VISIBILITY_LAG)).plusSeconds(1));
        CountedSweep settled = countedSweep();

        assertEquals(1, settled.summary().settled().failed());
        assertEquals(0, settled.charges());
        Payment failed = fx.state(id).payment();
        assertEquals(PaymentStatus.FAILED, failed.status());
        assertEquals(Payment.NOT_CHARGED, failed.declineCode());
        assertNull(failed.providerPaymentId());
        assertFalse(fx.listed(id), "settled: out of the sweep index");
        assertEquals(List.of(), fx.ledgerOf(id), "nothing was ever charged");

        // The client's key now says plainly that nothing was charged: not a decline.
        HttpApiResponse replay = fx.post(key, body);
        assertEquals(402, replay.statusCode(), replay.body());
        assertEquals("application/problem+json", replay.header("Content-Type"));
        assertEquals("true", replay.header("Idempotent-Replayed"));
        JsonNode problem = json.readTree(replay.body());
        assertEquals("https://oncepay.dev/problems/payment-not-charged", problem.get("type").asText());
        assertTrue(problem.get("detail").asText().contains("nothing was charged"), problem::toString);
        assertFalse(problem.has("declineCode"), "no decline code: the card was not declined");
        assertEquals(id, problem.get("paymentId").asText());
        assertEquals("failed", problem.get("payment").get("status").asText());
        JsonNode shown = json.readTree(fx.get(id).body());
        assertEquals("failed", shown.get("status").asText());
        assertTrue(shown.get("providerPaymentId").isNull());
        assertEquals(List.of(), fx.ledgerOf(id));
    }

    @Test
    void theClientsOwnRetryBeforeTheLagStillTakesOverAndCharges() {
        chargeHooks.crashOnceAfter(ChargePhase.PAYMENT_RECORDED);
        String key = UUID.randomUUID().toString();
        String body = body(6600, "order_retried");
        assertThrows(PhaseHooks.SimulatedCrash.class, () -> fx.post(key, body));
        String id = fx.onlyPaymentOf(key);
        clock.advance(PENDING_DUE);
        assertEquals(1, fx.sweep().deferred(), "asked, found nothing, waits");
        assertEquals(List.of(), fx.ledgerOf(id));

        HttpApiResponse retried = fx.post(key, body);

        assertEquals(201, retried.statusCode(), retried.body());
        assertNull(retried.header("Idempotent-Replayed"), "the takeover's answer is its own");
        List<LedgerEntry> ledger = fx.ledgerOf(id);
        assertEquals(1, ledger.size(), "charged once, by the client's retry");
        assertEquals("oncepay-" + id, ledger.get(0).idempotencyKey());
        Payment settled = fx.state(id).payment();
        assertEquals(PaymentStatus.SUCCEEDED, settled.status());
        assertEquals(2, settled.leaseEpoch());
        clock.advance(VISIBILITY_LAG.multipliedBy(2));
        assertEquals(0, fx.sweep().examined(), "settled payments are not swept");
        assertEquals(1, fx.ledgerOf(id).size());
    }

    @Test
    void pendingWhoseChargeExecutedIsSettledFromTheLookupWithoutResending() {
        chargeHooks.crashOnceAfter(ChargePhase.PROVIDER_ANSWERED);
        String key = UUID.randomUUID().toString();
        String body = body(6500, "order_answered");
        assertThrows(PhaseHooks.SimulatedCrash.class, () -> fx.post(key, body));
        String id = fx.sim().ledger().get(0).reference();
        assertEquals(PaymentStatus.PENDING, fx.state(id).payment().status());
        clock.advance(PENDING_DUE);
        int charges = fx.sim().chargeRequests();

        SweepSummary sweep = fx.sweep();

        assertEquals(1, sweep.settled().succeeded());
        assertEquals(0, sweep.resent());
        assertEquals(charges, fx.sim().chargeRequests());
        assertEquals(PaymentStatus.SUCCEEDED, fx.state(id).payment().status());
        assertEquals(201, fx.post(key, body).statusCode());
        assertEquals(1, fx.sim().ledger().size());
    }

    @Test
    void crashAfterTheLookupBeforeTheWriteIsRecoveredByTheNextSweep() {
        String key = UUID.randomUUID().toString();
        String id = paymentId(fx.commitThenTimeout(key, body(1200, "order_crash1"), false));
        clock.advance(FIRST_CHECK);
        sweepHooks.crashOnceAt(ReconcilePhase.LOOKED_UP);

        SweepSummary crashed = fx.sweep();
        assertEquals(1, crashed.errors());
        SweepState untouched = fx.state(id);
        assertEquals(PaymentStatus.UNKNOWN, untouched.payment().status());
        assertEquals(0, untouched.payment().checkAttempts());
        assertTrue(untouched.dueAt(clock.instant()), "still due: the next sweep picks it up");

        SweepSummary next = fx.sweep();
        assertEquals(1, next.settled().succeeded());
        assertEquals(PaymentStatus.SUCCEEDED, fx.state(id).payment().status());
        assertEquals(1, fx.ledgerOf(id).size());
    }

    @Test
    void crashAfterAResendBeforeTheWriteIsRecoveredFromTheLookupWithoutASecondCharge() {
        Payment payment = fx.unknownPayment(800, AtProvider.NOTHING);
        sweepHooks.crashOnceAt(ReconcilePhase.RESENT);

        SweepSummary crashed = fx.sweep();
        assertEquals(1, crashed.errors());
        assertEquals(1, crashed.resent());
        assertEquals(1, fx.ledgerOf(payment.id()).size(), "the re-sent charge executed");
        assertEquals(PaymentStatus.UNKNOWN, fx.state(payment.id()).payment().status());
        int charges = fx.sim().chargeRequests();

        SweepSummary next = fx.sweep();
        assertEquals(1, next.settled().succeeded());
        assertEquals(0, next.resent(), "the lookup finds the charge now");
        assertEquals(charges, fx.sim().chargeRequests());
        assertEquals(1, fx.ledgerOf(payment.id()).size());
        assertEquals(fx.ledgerOf(payment.id()).get(0).id(), fx.state(payment.id()).payment().providerPaymentId());
    }

    @Test
    void severalChargesForOnePaymentGoToReview() {
        Payment payment = fx.unknownPayment(900, AtProvider.TWO_CHARGES);

        SweepSummary sweep = fx.sweep();

        assertEquals(1, sweep.settled().needsReview());
        Payment review = fx.state(payment.id()).payment();
        assertEquals(PaymentStatus.NEEDS_REVIEW, review.status());
        assertTrue(review.statusReason().contains("2 charges"), review.statusReason());
        assertFalse(fx.listed(payment.id()));
    }

    @Test
    void pendingWithContradictingChargesGoesToReviewThroughUnknownEvenAcrossACrash() {
        Payment payment = fx.pendingPayment(950, AtProvider.TWO_CHARGES, Duration.ZERO);
        sweepHooks.crashOnceAt(ReconcilePhase.MARKED_UNKNOWN);

        SweepSummary crashed = fx.sweep();
        assertEquals(1, crashed.errors());
        SweepState between = fx.state(payment.id());
        assertEquals(PaymentStatus.UNKNOWN, between.payment().status(), "PENDING → UNKNOWN is the only way on");
        assertTrue(between.dueAt(clock.instant()), "and it is due at once");

        SweepSummary next = fx.sweep();
        assertEquals(1, next.settled().needsReview());
        assertEquals(PaymentStatus.NEEDS_REVIEW, fx.state(payment.id()).payment().status());
        assertEquals(2, fx.ledgerOf(payment.id()).size(), "reconcile charged nothing");
    }

    @Test
    void anUnknownLeftOnTheWayToReviewIsFinishedNeverResent() {
        // A webhook found a contradicting charge for a PENDING payment and died after its first
        // write (PENDING → UNKNOWN): its client holds no 202, so nobody waits for a charge.
        Payment payment = fx.pendingPayment(960, AtProvider.NOTHING, Duration.ZERO);
        Instant now = clock.instant();
        assertTrue(payments.apply(payment.id(), payment.tenant(), new Transition(PaymentStatus.PENDING, PaymentStatus.UNKNOWN, null,
                null, "webhook sim/evt_1: " + Payment.REVIEW_BOUND + "charge.succeeded does not match the payment",
                now, OptionalLong.empty()), Actor.SWEEP, now));

        CountedSweep sweep = countedSweep();

        assertEquals(1, sweep.summary().settled().needsReview());
        assertEquals(0, sweep.summary().resent(), "inside the re-send horizon, and still not re-sent");
        assertEquals(0, sweep.charges());
        Payment review = fx.state(payment.id()).payment();
        assertEquals(PaymentStatus.NEEDS_REVIEW, review.status());
        assertTrue(review.statusReason().contains("does not match"), review.statusReason());
        assertEquals(List.of(), fx.ledgerOf(payment.id()));
    }

    @Test
    void batchSizeAndOldestFirst() {
        Payment[] made = new Payment[10];
        for (int i = 0; i < made.length; i++) {
            made[i] = fx.unknownPayment(100 + i, AtProvider.SUCCEEDED);
            clock.advance(Duration.ofMillis(5)); // distinct next-check times, in creation order
        }

        SweepSummary first = fx.sweep();
        assertEquals(8, first.examined(), "batch size 8");
        assertEquals(8, first.settled().succeeded());
        for (int i = 0; i < made.length; i++) {
            assertEquals(i < 8 ? PaymentStatus.SUCCEEDED : PaymentStatus.UNKNOWN, fx.state(made[i].id()).payment().status(),
                    "oldest due first: payment " + i);
        }
        SweepSummary second = fx.sweep();
        assertEquals(2, second.settled().succeeded());
    }

    @Test
    void timeBudgetStopsStartingNewPayments() {
        for (int i = 0; i < 3; i++) {
            fx.unknownPayment(200 + i, AtProvider.SUCCEEDED);
        }
        // The first payment's lookup takes "41 s" (time budget 40 s): the sweep records its answer
        // and starts no other (a lookup that no longer fits the budget is not sent: see below).
        sweepHooks.onceAt(ReconcilePhase.LOOKED_UP, id -> clock.advance(Duration.ofSeconds(41)));

        SweepSummary sweep = fx.sweep();

        assertEquals(1, sweep.examined());
        assertEquals(1, sweep.settled().succeeded());
        assertEquals(2, sweep.notStarted());
        assertTrue(sweep.budgetExhausted());
        assertEquals(2, fx.sweep().settled().succeeded(), "the next invocation takes the rest");
    }

    @Test
    void aLookupThatNoLongerFitsTheSweepsBudgetIsNotSentAndThePaymentWaits() {
        String id = fx.unknownPayment(210, AtProvider.SUCCEEDED).id();
        // Reading the payment took "38 s" of the 40 s budget: a 5 s lookup attempt cannot end in time.
        sweepHooks.onceAt(ReconcilePhase.READ, paymentId -> clock.advance(Duration.ofSeconds(38)));

        CountedSweep sweep = countedSweep();

        assertEquals(0, sweep.lookups(), "no lookup is started that would outlive the sweep");
        assertEquals(1, sweep.summary().deferred());
        assertEquals(PaymentStatus.UNKNOWN, payments.find(id).orElseThrow().status());
    }

    /** One sweep and what it cost: provider charges and lookups sent, DynamoDB requests by operation. */
    private record CountedSweep(SweepSummary summary, int charges, int lookups, Map<String, Long> dynamoCalls) {
    }

    private CountedSweep countedSweep() {
        int chargesBefore = fx.sim().chargeRequests();
        int lookupsBefore = fx.sim().lookupRequests();
        dynamoCalls.reset();
        SweepSummary summary = fx.sweep();
        return new CountedSweep(summary, fx.sim().chargeRequests() - chargesBefore,
                fx.sim().lookupRequests() - lookupsBefore, dynamoCalls.snapshot());
    }
}
