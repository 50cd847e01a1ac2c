package dev.oncepay.reconcile;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.oncepay.config.ReconcileConfig;
import dev.oncepay.payment.Payment;
import dev.oncepay.payment.PaymentStatus;
import dev.oncepay.payment.ProviderAccount;
import dev.oncepay.provider.spi.FoundCharge;
import dev.oncepay.provider.psp.PspChargeStatus;
import dev.oncepay.reconcile.ReconcileUseCase.NoAnswer;
import dev.oncepay.reconcile.ReconcileUseCase.NotFound;
import dev.oncepay.reconcile.ReconcileUseCase.Review;
import dev.oncepay.reconcile.ReconcileUseCase.Settle;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/** How a lookup answer is read, and the backoff: plain rules, no application needed. */
class ReconcileRulesTest {
    private static final Payment PAYMENT = new Payment("pay_1", "t", PaymentStatus.UNKNOWN, 4200, "EUR", "order", null,
            null, null, null, Instant.EPOCH, Instant.EPOCH, 1, 0, new ProviderAccount("sim", "default"), Instant.EPOCH, null, null);

    /** A charge as the PSP adapter reports it to reconcile: its status word read through the one mapping. */
    private static FoundCharge charge(String id, String status, String reference, long amount, String currency,
            String declineCode) {
        return new FoundCharge(id, PspChargeStatus.fromWire(status).outcome(), status, reference, amount, currency,
                declineCode, null);
    }

    private static FoundCharge charge(String id, String status, long amount, String currency, String declineCode) {
        return charge(id, status, "pay_1", amount, currency, declineCode);
    }

    @Test
    void oneSucceededChargeSettlesSucceeded() {
        Settle settle = assertInstanceOf(Settle.class,
                ReconcileUseCase.judge(PAYMENT, List.of(charge("ch_1", "succeeded", 4200, "EUR", null))));
        assertEquals(PaymentStatus.SUCCEEDED, settle.status());
        assertEquals("ch_1", settle.providerPaymentId());
    }

    @Test
    void declinedOrFailedChargeSettlesFailedWithItsCode() {
        Settle declined = assertInstanceOf(Settle.class,
                ReconcileUseCase.judge(PAYMENT, List.of(charge("ch_1", "declined", 4200, "EUR", "insufficient_funds"))));
        assertEquals(PaymentStatus.FAILED, declined.status());
        assertEquals("insufficient_funds", declined.declineCode());
        Settle failed = assertInstanceOf(Settle.class,
                ReconcileUseCase.judge(PAYMENT, List.of(charge("ch_2", "failed", 4200, "EUR", null))));
        assertEquals("failed", failed.declineCode());
    }

    @Test
    void noChargeIsNotFoundNotFailed() {
        assertInstanceOf(NotFound.class, ReconcileUseCase.judge(PAYMENT, List.of()));
        assertInstanceOf(NotFound.class, ReconcileUseCase.judge(PAYMENT,
                List.of(charge("ch_x", "succeeded", "pay_other", 4200, "EUR", null))));
    }

    @Test
    void severalChargesOrAContradictingOneGoToReview() {
        Review several = assertInstanceOf(Review.class, ReconcileUseCase.judge(PAYMENT,
                List.of(charge("ch_1", "succeeded", 4200, "EUR", null), charge("ch_2", "declined", 4200, "EUR", null))));
        assertTrue(several.reason().contains("2 charges"), several.reason());
        assertInstanceOf(Review.class,
                ReconcileUseCase.judge(PAYMENT, List.of(charge("ch_1", "succeeded", 4300, "EUR", null))));
        assertInstanceOf(Review.class,
                ReconcileUseCase.judge(PAYMENT, List.of(charge("ch_1", "succeeded", 4200, "USD", null))));
    }

    @Test
    void aChargeNotYetFinalIsNoAnswer() {
        assertInstanceOf(NoAnswer.class,
                ReconcileUseCase.judge(PAYMENT, List.of(charge("ch_1", "processing", 4200, "EUR", null))));
    }

    @Test
    void backoffIsEqualJitterUnderTheExponentialCeilingAndTheCap() {
        ReconcileUseCase useCase = new ReconcileUseCase(null, null, null, null, config(), null, null, null, null, null, null, null);
        for (int attempts = 0; attempts < 40; attempts++) {
            long ceiling = Math.min(Duration.ofMinutes(10).toMillis(), Duration.ofSeconds(1).toMillis() << Math.min(attempts, 30));
            long max = 0;
            long min = Long.MAX_VALUE;
            for (int i = 0; i < 200; i++) {
                long ms = useCase.backoff(attempts).toMillis();
                assertTrue(ms >= ceiling / 2 && ms <= ceiling, attempts + ": " + ms);
                max = Math.max(max, ms);
                min = Math.min(min, ms);
            }
            assertTrue(max - min > ceiling / 4, "spread over the upper half, not a fixed delay");
        }
    }

    private static ReconcileConfig config() {
        return new ReconcileConfig() {
            public int batchSize() {
                return 10;
            }

            public Duration timeBudget() {
                return Duration.ofSeconds(40);
            }

            public Duration backoffBase() {
                return Duration.ofSeconds(1);
            }

            public Duration backoffCap() {
                return Duration.ofMinutes(10);
            }

            public int maxAttempts() {
                return 10;
            }

            public Duration maxAge() {
                return Duration.ofDays(3);
            }

            public Duration resendHorizon() {
                return Duration.ofHours(1);
            }

            public Duration providerIdempotencyWindow() {
                return Duration.ofHours(24);
            }

            public Duration windowMargin() {
                return Duration.ofHours(1);
            }

            public Duration providerVisibilityLag() {
                return Duration.ofMinutes(5);
            }
        };
    }
}
