package dev.oncepay.reconcile;

import static dev.oncepay.reconcile.ReconcileFixture.body;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.oncepay.charge.ChargePhase;
import dev.oncepay.http.HttpApiResponse;
import dev.oncepay.payment.Payment;
import dev.oncepay.payment.PaymentRepository;
import dev.oncepay.payment.PaymentStatus;
import dev.oncepay.payment.Transition;
import dev.oncepay.provider.ProviderGateway;
import dev.oncepay.reconcile.ReconcileFixture.AtProvider;
import dev.oncepay.sim.Faults;
import dev.oncepay.sim.LedgerEntry;
import dev.oncepay.testing.PhaseHooks;
import dev.oncepay.testing.TestClock;
import dev.oncepay.testing.TestEnvironment;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import jakarta.inject.Inject;
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
        int sweeps = 4;
        CountDownLatch start = new CountDownLatch(1);
        List<Future<SweepSummary>> running = new ArrayList<>();
        for (int i = 0; i < sweeps; i++) {
            int n = i;
            running.add(threads.submit(() -> {
                start.await();
                return useCase.sweep("concurrent-" + n);
            }));
        }
        start.countDown();
        List<SweepSummary> summaries = new ArrayList<>();
        for (Future<SweepSummary> f : running) {
            summaries.add(f.get(60, TimeUnit.SECONDS));
        }

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
        assertTrue(provider.chargeBreakerOpen());
        List<String> ids = new ArrayList<>(List.of(ReconcileFixture.paymentId(accepted)));
        for (int i = 0; i < 7; i++) {
            ids.add(fx.unknownPayment(1001 + i, AtProvider.SUCCEEDED).id());
        }
        clock.advance(Duration.ofSeconds(31));
        int calls = fx.sim().chargeRequests() + fx.sim().lookupRequests();

        CountDownLatch start = new CountDownLatch(1);
        List<Future<SweepSummary>> running = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            int n = i;
            running.add(threads.submit(() -> {
                start.await();
                return useCase.sweep("breaker-" + n);
            }));
        }
        start.countDown();
        List<SweepSummary> summaries = new ArrayList<>();
        for (Future<SweepSummary> f : running) {
            summaries.add(f.get(60, TimeUnit.SECONDS));
        }

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
        sweepHooks.onceAt(ReconcilePhase.LOOKED_UP, id -> assertTrue(webhook(id, PaymentStatus.SUCCEEDED, chargeId)));

        SweepSummary sweep = fx.sweep();

        assertEquals(0, sweep.settled().total(), sweep::toString);
        assertEquals(1, sweep.skipped(), "settled by the webhook; nothing left for the sweep");
        Payment settled = fx.state(payment.id()).payment();
        assertEquals(PaymentStatus.SUCCEEDED, settled.status());
        assertEquals(chargeId, settled.providerPaymentId());
        assertEquals("webhook", settled.statusReason(), "the webhook's write stands");
        assertFalse(webhook(payment.id(), PaymentStatus.SUCCEEDED, chargeId), "a duplicate webhook changes nothing");
    }

    @Test
    void webhookWithAConflictingFactBetweenLookupAndWriteEndsInReview() {
        Payment payment = fx.unknownPayment(410, AtProvider.SUCCEEDED);
        String chargeId = fx.ledgerOf(payment.id()).get(0).id();
        sweepHooks.onceAt(ReconcilePhase.LOOKED_UP, id -> assertTrue(webhook(id, PaymentStatus.FAILED, chargeId)));

        SweepSummary sweep = fx.sweep();

        assertEquals(1, sweep.settled().needsReview(), sweep::toString);
        Payment review = fx.state(payment.id()).payment();
        assertEquals(PaymentStatus.NEEDS_REVIEW, review.status());
        assertTrue(review.statusReason().contains("conflicting facts: recorded FAILED"), review.statusReason());
        assertFalse(fx.listed(payment.id()));
    }

    @Test
    void webhookAfterTheSweepFindsItSettledAndAConflictStillEndsInReview() {
        Payment payment = fx.unknownPayment(420, AtProvider.SUCCEEDED);
        String chargeId = fx.ledgerOf(payment.id()).get(0).id();
        assertEquals(1, fx.sweep().settled().succeeded());

        assertFalse(webhook(payment.id(), PaymentStatus.SUCCEEDED, chargeId), "identical fact: nothing to do");
        assertEquals(PaymentStatus.SUCCEEDED, fx.state(payment.id()).payment().status());
        assertTrue(webhook(payment.id(), PaymentStatus.FAILED, chargeId), "conflicting fact: review");
        assertEquals(PaymentStatus.NEEDS_REVIEW, fx.state(payment.id()).payment().status());
    }

    @Test
    void staleIndexEntryOfAPaymentSettledMeanwhileIsSkipped() {
        Payment first = fx.unknownPayment(430, AtProvider.SUCCEEDED);
        clock.advance(Duration.ofMillis(5));
        Payment second = fx.unknownPayment(431, AtProvider.SUCCEEDED);
        String secondCharge = fx.ledgerOf(second.id()).get(0).id();
        // While the sweep works on the first, a webhook settles the second, which the sweep listed already.
        sweepHooks.onceAt(ReconcilePhase.READ, id -> assertTrue(webhook(second.id(), PaymentStatus.SUCCEEDED, secondCharge)));
        int lookups = fx.sim().lookupRequests();

        SweepSummary sweep = fx.sweep();

        assertEquals(2, sweep.examined());
        assertEquals(1, sweep.settled().succeeded());
        assertEquals(1, sweep.skipped());
        assertEquals(1, fx.sim().lookupRequests() - lookups, "the re-read stops it before the provider is asked");
        assertEquals(PaymentStatus.SUCCEEDED, fx.state(first.id()).payment().status());
        assertEquals("webhook", fx.state(second.id()).payment().statusReason());
    }

    @Test
    void sweepAndWebhooksRacingOnTheSamePaymentsSettleEachOnce() throws Exception {
        List<Payment> made = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            made.add(fx.unknownPayment(500 + i, AtProvider.SUCCEEDED));
        }
        Map<String, String> charges = made.stream()
                .collect(Collectors.toMap(Payment::id, p -> fx.ledgerOf(p.id()).get(0).id()));
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
                if (webhook(id, PaymentStatus.SUCCEEDED, charges.get(id))) {
                    webhookWins.incrementAndGet();
                }
            }
            return null;
        });
        SweepSummary summary = sweep.get(60, TimeUnit.SECONDS);
        webhooks.get(60, TimeUnit.SECONDS);
        System.out.printf("sweep vs webhooks: sweep settled %d, skipped %d; webhooks applied %d%n",
                summary.settled().succeeded(), summary.skipped(), webhookWins.get());

        assertEquals(8, summary.settled().succeeded() + webhookWins.get(),
                () -> "each payment settled by exactly one writer: " + summary + ", webhooks " + webhookWins);
        assertEquals(summary.examined(), summary.settled().total() + summary.skipped(), summary::toString);
        for (Payment p : made) {
            Payment settled = fx.state(p.id()).payment();
            assertEquals(PaymentStatus.SUCCEEDED, settled.status());
            assertEquals(charges.get(p.id()), settled.providerPaymentId());
            assertEquals(1, fx.ledgerOf(p.id()).size());
        }
    }

    @Test
    void chargeRetryTakingOverAStuckPendingWhileTheSweepResendsChargesOnce() throws Exception {
        chargeHooks.crashOnceAfter(ChargePhase.PAYMENT_RECORDED);
        String key = UUID.randomUUID().toString();
        String body = body(7700, "order_takeover");
        assertThrows(PhaseHooks.SimulatedCrash.class, () -> fx.post(key, body));
        clock.advance(Duration.ofSeconds(71));
        // The sweep found no charge and is about to re-send it...
        SweepHooks.Park park = sweepHooks.parkOnceAt(ReconcilePhase.LOOKED_UP);
        CompletableFuture<SweepSummary> sweep = CompletableFuture.supplyAsync(fx::sweep, threads);
        assertTrue(park.awaitParked());

        // ...when the client retries its key: the retry takes over (epoch 2), fences and charges.
        HttpApiResponse retried = fx.post(key, body);
        assertEquals(201, retried.statusCode(), retried.body());
        park.release();
        SweepSummary summary = sweep.get(60, TimeUnit.SECONDS);

        assertEquals(1, summary.resent(), "the sweep re-sent with the same provider key");
        assertEquals(1, summary.skipped(), "its epoch-1 write lost to the takeover: " + summary);
        assertEquals(0, summary.settled().total());
        List<LedgerEntry> ledger = fx.sim().ledger();
        assertEquals(1, ledger.size(), "the provider executed one charge for both senders");
        Payment settled = fx.state(ledger.get(0).reference()).payment();
        assertEquals(PaymentStatus.SUCCEEDED, settled.status());
        assertEquals(2, settled.leaseEpoch(), "settled by the takeover's run");
        assertEquals(ledger.get(0).id(), settled.providerPaymentId());
    }

    /**
     * What the webhook function does with a charge event (emulated through the same repository
     * path): apply the fact through the state machine, conditional on the status it read.
     *
     * @return whether this write changed the payment
     */
    private boolean webhook(String paymentId, PaymentStatus fact, String chargeId) {
        for (int round = 0; round < 3; round++) {
            Payment current = payments.find(paymentId).orElseThrow();
            PaymentStatus target = current.status().onProviderFact(fact);
            if (target == current.status()) {
                return false;
            }
            Transition t = new Transition(current.status(), target, target == PaymentStatus.NEEDS_REVIEW ? null : chargeId,
                    fact == PaymentStatus.FAILED && target == PaymentStatus.FAILED ? "card_declined" : null, "webhook", null,
                    current.status() == PaymentStatus.PENDING ? OptionalLong.of(current.leaseEpoch()) : OptionalLong.empty());
            if (payments.apply(paymentId, t, clock.instant())) {
                return true;
            }
        }
        throw new AssertionError("webhook emulation kept losing");
    }
}
