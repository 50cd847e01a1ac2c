package dev.oncepay.reconcile;

import dev.oncepay.payment.Actor;
import static dev.oncepay.reconcile.ReconcileFixture.body;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.oncepay.provider.spi.ProviderRefusal;
import dev.oncepay.charge.ChargePhase;
import dev.oncepay.http.HttpApiResponse;
import dev.oncepay.payment.Payment;
import dev.oncepay.payment.PaymentRepository;
import dev.oncepay.payment.PaymentStatus;
import dev.oncepay.payment.Transition;
import dev.oncepay.provider.ProviderGateway;
import dev.oncepay.reconcile.ReconcileFixture.AtProvider;
import dev.oncepay.sim.Faults;
import dev.oncepay.sim.WebhookEvent;
import dev.oncepay.sim.LedgerEntry;
import dev.oncepay.testing.PhaseHooks;
import dev.oncepay.testing.TestClock;
import dev.oncepay.testing.TestEnvironment;
import dev.oncepay.webhook.WebhookDelivery;
import dev.oncepay.webhook.WebhookOutcome;
import dev.oncepay.webhook.WebhookUseCase;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import jakarta.inject.Inject;
import java.util.Optional;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Sweeps racing each other, a webhook, or a charge retry on the same payments: every write is
 * conditional on what its writer read, so each payment ends in one state, settled once.
 * Interleavings at a chosen step use {@link SweepHooks} (deterministic); the rest is real
 * concurrency on the use case.
 */
@QuarkusTest
@TestProfile(ReconcileProfile.class)
@WithTestResource(value = TestEnvironment.class, scope = TestResourceScope.GLOBAL)
class ReconcileRaceTest {
    @Inject
    ReconcileFixture fx;
    @Inject
    ReconcileUseCase useCase;
    @Inject
    PaymentRepository payments;
    @Inject
    TestClock clock;
    @Inject
    SweepHooks sweepHooks;
    @Inject
    PhaseHooks chargeHooks;
    @Inject
    ProviderGateway provider;
    @Inject
    WebhookUseCase webhooks;

    private final ExecutorService threads = Executors.newFixedThreadPool(8);

    @BeforeEach
    void reset() {
        fx.reset();
    }

    @AfterEach
    void stopThreads() {
        sweepHooks.reset();
        threads.shutdownNow();
    }

    @Test
    void concurrentSweepsSettleEachPaymentOnceAndTheirCountsAddUp() throws Exception {
        List<Payment> made = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            AtProvider at = i < 4 ? AtProvider.SUCCEEDED : i < 6 ? AtProvider.DECLINED : AtProvider.NOTHING;
            made.add(fx.unknownPayment(300 + i, at));
        }
        List<SweepSummary> summaries = sweepAtOnce(4, "concurrent-");

        for (SweepSummary s : summaries) {
            assertEquals(s.examined(), s.settled().total() + s.deferred() + s.deadLettered() + s.skipped() + s.errors(),
                    () -> "each examined entry has exactly one outcome: " + s);
            assertEquals(0, s.errors(), s::toString);
        }
        assertEquals(4 + 2, summaries.stream().mapToInt(s -> s.settled().succeeded()).sum(), summaries::toString);
        assertEquals(2, summaries.stream().mapToInt(s -> s.settled().failed()).sum(), summaries::toString);
        assertEquals(0, summaries.stream().mapToInt(SweepSummary::deferred).sum(), summaries::toString);
        for (int i = 0; i < made.size(); i++) {
            Payment p = fx.state(made.get(i).id()).payment();
            List<LedgerEntry> ledger = fx.ledgerOf(p.id());
            assertEquals(1, ledger.size(), "exactly one charge for payment " + i + ", even when re-sent by several sweeps");
            assertEquals(i < 4 || i >= 6 ? PaymentStatus.SUCCEEDED : PaymentStatus.FAILED, p.status());
            assertEquals(ledger.get(0).id(), p.providerPaymentId());
            assertFalse(fx.listed(p.id()));
        }
    }

    @Test
    void concurrentSweepsDeferEachPaymentOnceWhileTheBreakerIsOpen() throws Exception {
        // An outage opens the charge breaker and leaves one UNKNOWN payment; seven more join it.
        fx.sim().setFaults(Faults.none().withOutage(true));
        HttpApiResponse accepted = fx.post(UUID.randomUUID().toString(), body(1000, "order_breaker"));
        fx.sim().setFaults(Faults.none());
        assertEquals(202, accepted.statusCode(), accepted.body());
        assertEquals(Optional.of(ProviderRefusal.BREAKER_OPEN), provider.chargeRefusal(ReconcileFixture.ACCOUNT));
        List<String> ids = new ArrayList<>(List.of(ReconcileFixture.paymentId(accepted)));
        for (int i = 0; i < 7; i++) {
            ids.add(fx.unknownPayment(1001 + i, AtProvider.SUCCEEDED).id());
        }
        clock.advance(Duration.ofSeconds(31));
        int calls = fx.sim().chargeRequests() + fx.sim().lookupRequests();

        List<SweepSummary> summaries = sweepAtOnce(4, "breaker-");

        assertEquals(8, summaries.stream().mapToInt(SweepSummary::deferred).sum(), () -> "one deferral each: " + summaries);
        for (SweepSummary s : summaries) {
            assertEquals(s.examined(), s.deferred() + s.skipped(), s::toString);
        }
        for (String id : ids) {
            assertEquals(1, fx.state(id).payment().checkAttempts(), "one attempt counted for " + id);
        }
        assertEquals(calls, fx.sim().chargeRequests() + fx.sim().lookupRequests(), "no provider call at all");
    }

    @Test
    void sweepOvertakenByAnotherBetweenItsReadAndItsDeferralDoesNotCountTwice() {
        fx.sim().setFaults(Faults.none().withOutage(true)); // lookups fail: both sweeps want to defer
        Payment payment = fx.unknownPayment(1100, AtProvider.NOTHING);
        AtomicReference<SweepSummary> overtaking = new AtomicReference<>();
        sweepHooks.onceAt(ReconcilePhase.READ, id -> overtaking.set(useCase.sweep("overtaking")));

        SweepSummary overtaken = fx.sweep();

        assertEquals(1, overtaking.get().deferred(), overtaking.get()::toString);
        assertEquals(0, overtaken.deferred(), overtaken::toString);
        assertEquals(1, overtaken.skipped(), "its conditional deferral lost: the attempt was counted already");
        assertEquals(1, fx.state(payment.id()).payment().checkAttempts());
    }

    @Test
    void webhookSettlingTheSameWayBetweenLookupAndWriteWins() {
        Payment payment = fx.unknownPayment(400, AtProvider.SUCCEEDED);
        String chargeId = fx.ledgerOf(payment.id()).get(0).id();
        AtomicReference<WebhookOutcome> delivered = new AtomicReference<>();
        sweepHooks.onceAt(ReconcilePhase.LOOKED_UP, id -> delivered.set(webhook(WebhookEvent.SUCCEEDED, id)));

        SweepSummary sweep = fx.sweep();

        assertEquals(WebhookOutcome.APPLIED, delivered.get());
        assertEquals(0, sweep.settled().total(), sweep::toString);
        assertEquals(1, sweep.skipped(), "settled by the webhook; nothing left for the sweep");
        Payment settled = fx.state(payment.id()).payment();
        assertEquals(PaymentStatus.SUCCEEDED, settled.status());
        assertEquals(chargeId, settled.providerPaymentId());
        assertTrue(settled.statusReason().startsWith("webhook sim/evt_"), "the webhook's write stands");
        assertEquals(WebhookOutcome.ALREADY_SETTLED, webhook(WebhookEvent.SUCCEEDED, payment.id()));
    }

    @Test
    void webhookWithAConflictingFactBetweenLookupAndWriteEndsInReview() {
        Payment payment = fx.unknownPayment(410, AtProvider.SUCCEEDED);
        AtomicReference<WebhookOutcome> delivered = new AtomicReference<>();
        sweepHooks.onceAt(ReconcilePhase.LOOKED_UP, id -> delivered.set(webhook(WebhookEvent.FAILED, id)));

        SweepSummary sweep = fx.sweep();

        assertEquals(WebhookOutcome.APPLIED, delivered.get(), "the payment was UNKNOWN: the event applied");
        assertEquals(1, sweep.settled().needsReview(), sweep::toString);
        Payment review = fx.state(payment.id()).payment();
        assertEquals(PaymentStatus.NEEDS_REVIEW, review.status());
        assertTrue(review.statusReason().contains("conflicting facts: recorded FAILED"), review.statusReason());
        assertFalse(fx.listed(payment.id()));
    }

    @Test
    void webhookAfterTheSweepFindsItSettledAndAConflictStillEndsInReview() {
        Payment payment = fx.unknownPayment(420, AtProvider.SUCCEEDED);
        assertEquals(1, fx.sweep().settled().succeeded());

        assertEquals(WebhookOutcome.ALREADY_SETTLED, webhook(WebhookEvent.SUCCEEDED, payment.id()));
        assertEquals(PaymentStatus.SUCCEEDED, fx.state(payment.id()).payment().status());
        assertEquals(WebhookOutcome.CONFLICT, webhook(WebhookEvent.FAILED, payment.id()));
        assertEquals(PaymentStatus.NEEDS_REVIEW, fx.state(payment.id()).payment().status());
    }

    @Test
    void paymentSettledMeanwhileWithAnotherChargeGoesToReview() {
        Payment payment = fx.unknownPayment(425, AtProvider.SUCCEEDED);
        // Someone records a success with a charge id the provider does not report for this payment.
        sweepHooks.onceAt(ReconcilePhase.LOOKED_UP, id -> payments.apply(id, payment.tenant(), new Transition(PaymentStatus.UNKNOWN,
                PaymentStatus.SUCCEEDED, "ch_someOtherCharge", null, "test", null, OptionalLong.empty()), Actor.SWEEP, clock.instant()));

        SweepSummary sweep = fx.sweep();

        assertEquals(1, sweep.settled().needsReview(), sweep::toString);
        Payment review = fx.state(payment.id()).payment();
        assertEquals(PaymentStatus.NEEDS_REVIEW, review.status());
        assertTrue(review.statusReason().contains("with charge ch_someOtherCharge"), review.statusReason());
    }

    @Test
    void commitThenTimeoutIsSettledBySweepOrWebhookWhicheverComesFirstAndReplaysOnce() throws Exception {
        String key = UUID.randomUUID().toString();
        String body = body(8800, "order_either");
        String id = ReconcileFixture.paymentId(fx.commitThenTimeout(key, body, false));
        clock.advance(Duration.ofSeconds(31));
        CountDownLatch start = new CountDownLatch(1);

        CompletableFuture<SweepSummary> sweep = CompletableFuture.supplyAsync(() -> {
            await(start);
            return fx.sweep(); // through the Lambda entry point
        }, threads);
        CompletableFuture<WebhookOutcome> webhook = CompletableFuture.supplyAsync(() -> {
            await(start);
            return webhook(WebhookEvent.SUCCEEDED, id);
        }, threads);
        start.countDown();
        SweepSummary summary = sweep.get(60, TimeUnit.SECONDS);
        WebhookOutcome outcome = webhook.get(60, TimeUnit.SECONDS);

        int sweepWon = summary.settled().succeeded();
        int webhookWon = outcome == WebhookOutcome.APPLIED ? 1 : 0;
        System.out.printf("sweep or webhook: sweep %d, webhook %s%n", sweepWon, outcome);
        assertEquals(1, sweepWon + webhookWon, () -> "exactly one settles: " + summary + ", webhook " + outcome);
        assertEquals(webhookWon == 1 ? WebhookOutcome.APPLIED : WebhookOutcome.ALREADY_SETTLED, outcome);
        HttpApiResponse replay = fx.post(key, body);
        assertEquals(201, replay.statusCode(), replay.body());
        assertEquals("true", replay.header("Idempotent-Replayed"));
        assertEquals(1, fx.ledgerOf(id).size(), "exactly one charge");
        assertEquals(fx.ledgerOf(id).get(0).id(), fx.state(id).payment().providerPaymentId());
    }

    /** {@code count} sweeps released together, invocation ids {@code prefix + n}; their summaries in that order. */
    private List<SweepSummary> sweepAtOnce(int count, String prefix) throws Exception {
        CountDownLatch start = new CountDownLatch(1);
        List<Future<SweepSummary>> running = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            int n = i;
            running.add(threads.submit(() -> {
                start.await();
                return useCase.sweep(prefix + n);
            }));
        }
        start.countDown();
        List<SweepSummary> summaries = new ArrayList<>();
        for (Future<SweepSummary> f : running) {
            summaries.add(f.get(60, TimeUnit.SECONDS));
        }
        return summaries;
    }

    private static void await(CountDownLatch latch) {
        try {
            latch.await(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Test
    void staleIndexEntryOfAPaymentSettledMeanwhileIsSkipped() {
        Payment first = fx.unknownPayment(430, AtProvider.SUCCEEDED);
        clock.advance(Duration.ofMillis(5));
        Payment second = fx.unknownPayment(431, AtProvider.SUCCEEDED);
        // While the sweep works on the first, a webhook settles the second, which the sweep listed already.
        AtomicReference<WebhookOutcome> delivered = new AtomicReference<>();
        sweepHooks.onceAt(ReconcilePhase.READ, id -> delivered.set(webhook(WebhookEvent.SUCCEEDED, second.id())));
        int lookups = fx.sim().lookupRequests();

        SweepSummary sweep = fx.sweep();

        assertEquals(WebhookOutcome.APPLIED, delivered.get());
        assertEquals(2, sweep.examined());
        assertEquals(1, sweep.settled().succeeded());
        assertEquals(1, sweep.skipped());
        assertEquals(1, fx.sim().lookupRequests() - lookups, "the re-read stops it before the provider is asked");
        assertEquals(PaymentStatus.SUCCEEDED, fx.state(first.id()).payment().status());
        assertTrue(fx.state(second.id()).payment().statusReason().startsWith("webhook sim/"));
    }

    @Test
    void sweepAndWebhooksRacingOnTheSamePaymentsSettleEachOnce() throws Exception {
        List<Payment> made = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            made.add(fx.unknownPayment(500 + i, AtProvider.SUCCEEDED));
        }
        Map<String, String> charges = made.stream()
                .collect(Collectors.toMap(Payment::id, p -> fx.ledgerOf(p.id()).get(0).id()));
        AtomicInteger webhookLosses = new AtomicInteger();
        // The sweep works oldest first; the webhooks arrive newest first, from the moment the sweep
        // has read its first payment, so the two meet somewhere in the middle.
        CountDownLatch sweepStarted = new CountDownLatch(1);
        sweepHooks.onceAt(ReconcilePhase.READ, id -> sweepStarted.countDown());
        AtomicInteger webhookWins = new AtomicInteger();
        Future<SweepSummary> sweep = threads.submit(() -> useCase.sweep("racing-webhooks"));
        Future<?> webhooks = threads.submit(() -> {
            assertTrue(sweepStarted.await(30, TimeUnit.SECONDS));
            for (int i = made.size() - 1; i >= 0; i--) {
                String id = made.get(i).id();
                WebhookOutcome outcome = webhook(WebhookEvent.SUCCEEDED, id);
                (outcome == WebhookOutcome.APPLIED ? webhookWins : webhookLosses).incrementAndGet();
            }
            return null;
        });
        SweepSummary summary = sweep.get(60, TimeUnit.SECONDS);
        webhooks.get(60, TimeUnit.SECONDS);
        System.out.printf("sweep vs webhooks: sweep settled %d, skipped %d; webhooks applied %d%n",
                summary.settled().succeeded(), summary.skipped(), webhookWins.get());

        assertEquals(8, summary.settled().succeeded() + webhookWins.get(),
                () -> "each payment settled by exactly one writer: " + summary + ", webhooks " + webhookWins);
        assertEquals(summary.settled().succeeded(), webhookLosses.get(), "each webhook that lost found it settled");
        assertEquals(summary.examined(), summary.settled().total() + summary.skipped(), summary::toString);
        for (Payment p : made) {
            Payment settled = fx.state(p.id()).payment();
            assertEquals(PaymentStatus.SUCCEEDED, settled.status());
            assertEquals(charges.get(p.id()), settled.providerPaymentId());
            assertEquals(1, fx.ledgerOf(p.id()).size());
        }
    }

    @Test
    void aSweepSettlingAFrozenRunsPaymentFirstLeavesTheRunAnsweringItAsItsOwnAnswer() throws Exception {
        String key = UUID.randomUUID().toString();
        String body = body(7600, "order_frozen");
        // The run has the provider's answer but freezes before its settle...
        chargeHooks.parkOnceAfter(ChargePhase.PROVIDER_ANSWERED);
        CompletableFuture<HttpApiResponse> run = CompletableFuture.supplyAsync(() -> fx.post(key, body), threads);
        assertTrue(chargeHooks.awaitParked());
        String id = fx.onlyPaymentOf(key);
        // ...long enough for the sweep to find it, ask the provider and settle it (same epoch: no newer run).
        clock.advance(Duration.ofSeconds(71));
        SweepSummary sweep = fx.sweep();
        assertEquals(1, sweep.settled().succeeded(), sweep::toString);
        assertEquals(0, sweep.resent());
        Payment bySweep = fx.state(id).payment();

        chargeHooks.release();
        HttpApiResponse answer = run.get(60, TimeUnit.SECONDS);

        assertEquals(201, answer.statusCode(), answer.body());
        assertNull(answer.header("Idempotent-Replayed"), "the client's first answer is never a replay");
        assertEquals(bySweep, fx.state(id).payment(), "the agreeing fact changed nothing");
        assertEquals(fx.post(key, body).body(), answer.body(), "the replay renders the same bytes");
        assertEquals(1, fx.ledgerOf(id).size());
    }

    /** Past the dead run's lease and the provider's visibility lag: the sweep would fail it as not charged. */
    private static final Duration PAST_LAG = ReconcileFixture.LEASE.plus(Duration.ofMinutes(5)).plusSeconds(1);

    @Test
    void sweepAboutToFailAStuckPendingAsNotChargedLosesToTheClientsTakeoverAndSendsNothing() throws Exception {
        chargeHooks.crashOnceAfter(ChargePhase.PAYMENT_RECORDED);
        String key = UUID.randomUUID().toString();
        String body = body(7700, "order_takeover");
        assertThrows(PhaseHooks.SimulatedCrash.class, () -> fx.post(key, body));
        String id = fx.onlyPaymentOf(key);
        clock.advance(PAST_LAG);
        int chargesBefore = fx.sim().chargeRequests();
        // The sweep found no charge and is about to write "nothing charged" at epoch 1...
        SweepHooks.Park park = sweepHooks.parkOnceAt(ReconcilePhase.LOOKED_UP);
        CompletableFuture<SweepSummary> sweep = CompletableFuture.supplyAsync(fx::sweep, threads);
        assertTrue(park.awaitParked());

        // ...when the client retries its key: the retry takes over (epoch 2), fences and charges.
        HttpApiResponse retried = fx.post(key, body);
        assertEquals(201, retried.statusCode(), retried.body());
        park.release();
        SweepSummary summary = sweep.get(60, TimeUnit.SECONDS);

        assertEquals(0, summary.resent(), "the sweep sends no charge for a PENDING payment");
        assertEquals(1, summary.skipped(), "its epoch-1 verdict lost to the takeover: " + summary);
        assertEquals(0, summary.settled().total());
        assertEquals(chargesBefore + 1, fx.sim().chargeRequests(), "one charge request: the client's retry");
        List<LedgerEntry> ledger = fx.ledgerOf(id);
        assertEquals(1, ledger.size());
        Payment settled = fx.state(id).payment();
        assertEquals(PaymentStatus.SUCCEEDED, settled.status());
        assertEquals(2, settled.leaseEpoch(), "settled by the takeover's run");
        assertEquals(ledger.get(0).id(), settled.providerPaymentId());
    }

    @Test
    void aTakeoverStillRunningWhenTheSweepLooksIsWaitedForNotFailed() throws Exception {
        chargeHooks.crashOnceAfter(ChargePhase.PAYMENT_RECORDED);
        String key = UUID.randomUUID().toString();
        String body = body(7800, "order_slow_takeover");
        assertThrows(PhaseHooks.SimulatedCrash.class, () -> fx.post(key, body));
        String id = fx.onlyPaymentOf(key);
        clock.advance(PAST_LAG);
        // The client's retry takes over and fences (new lease end), then stalls before calling the provider.
        chargeHooks.parkOnceAfter(ChargePhase.PAYMENT_RECORDED);
        CompletableFuture<HttpApiResponse> retry = CompletableFuture.supplyAsync(() -> fx.post(key, body), threads);
        assertTrue(chargeHooks.awaitParked());
        Payment fenced = fx.state(id).payment();
        assertEquals(2, fenced.leaseEpoch());
        clock.advance(Duration.ofSeconds(71)); // the sweep sees it again, past the new lease but not past its lag

        SweepSummary summary = fx.sweep();

        assertEquals(1, summary.deferred(), "counted from the latest fence, the lag has not passed: " + summary);
        assertEquals(0, summary.resent());
        assertEquals(PaymentStatus.PENDING, fx.state(id).payment().status());
        assertEquals(fenced.leaseExpiresAt().plus(Duration.ofMinutes(5)).toEpochMilli(),
                fx.state(id).nextCheckAt().toEpochMilli());
        chargeHooks.release();
        HttpApiResponse answer = retry.get(60, TimeUnit.SECONDS);
        assertEquals(201, answer.statusCode(), answer.body());
        assertEquals(1, fx.ledgerOf(id).size());
        assertEquals(PaymentStatus.SUCCEEDED, fx.state(id).payment().status());
    }

    /**
     * The webhook function's use case receiving the simulator's signed {@code type} event about
     * the payment's charge (as delivered to {@code POST /webhooks/sim}).
     */
    private WebhookOutcome webhook(String type, String paymentId) {
        dev.oncepay.sim.WebhookDelivery signed = fx.sim().webhookFor(type, paymentId);
        return webhooks.receive(new WebhookDelivery("sim", signed.signature(),
                signed.body().getBytes(StandardCharsets.UTF_8))).outcome();
    }
}
