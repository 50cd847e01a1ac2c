package dev.oncepay.provider;

import dev.oncepay.config.ReconcileConfig;
import dev.oncepay.payment.Payment;
import dev.oncepay.payment.PaymentStatus;
import dev.oncepay.payment.ProviderAccount;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Duration;
import java.time.Instant;

/**
 * When a provider's "no charge" for a payment is a proof that nothing was charged (design rule
 * 18), the one rule the sweep and the operator's resolution both apply. A lookup that lists no
 * charge proves nothing while a request of ours may still reach the provider, or while the
 * account's lookups may still trail a charge that did arrive:
 *
 * <ul>
 * <li>a PENDING payment (its run died; the sweep never sends it): once the run's lease has ended
 * and the account's lookup lag has passed after it;
 * <li>any other payment (its client held a 202, so the sweep may have re-sent it with its own
 * provider key until the re-send horizon): once the provider's idempotency window, plus the
 * margin or the account's lookup lag if longer, has passed since its creation. That is long after
 * the last re-send could have started and ended, so no re-send is in flight then.
 * </ul>
 */
@ApplicationScoped
public class NoChargeProof {
    private final ReconcileConfig config;
    private final ProviderAccounts accounts;

    public NoChargeProof(ReconcileConfig config, ProviderAccounts accounts) {
        this.config = config;
        this.accounts = accounts;
    }

    /**
     * How long after a charge reached {@code account} its lookups may still miss it: the account's
     * lookup lag, never less than the visibility lag assumed of every provider.
     */
    public Duration lag(ProviderAccount account) {
        return longest(config.providerVisibilityLag(), accounts.lookupLag(account));
    }

    /** Until when the sweep re-sends the charge of an UNKNOWN payment its provider has no charge for. */
    public Instant resendUntil(Payment payment) {
        Instant horizon = payment.createdAt().plus(config.resendHorizon());
        Instant insideWindow = payment.createdAt().plus(config.providerIdempotencyWindow()).minus(config.windowMargin());
        return horizon.isBefore(insideWindow) ? horizon : insideWindow;
    }

    /** From when a lookup that lists no charge for {@code payment} proves that nothing was charged. */
    public Instant provenAt(Payment payment) {
        if (payment.status() == PaymentStatus.PENDING) {
            // A queued payment may still be charged by the worker until its horizon, whatever its last run's lease.
            Instant lastSend = payment.queuedUntil() != null && payment.queuedUntil().isAfter(payment.leaseExpiresAt())
                    ? payment.queuedUntil() : payment.leaseExpiresAt();
            return provenAfter(lastSend, payment.providerAccount());
        }
        return payment.createdAt().plus(config.providerIdempotencyWindow())
                .plus(longest(config.windowMargin(), lag(payment.providerAccount())));
    }

    /** From when "no charge" at {@code account} is a proof, if no run of ours can send a charge after {@code lastSend}. */
    public Instant provenAfter(Instant lastSend, ProviderAccount account) {
        return lastSend.plus(lag(account));
    }

    private static Duration longest(Duration a, Duration b) {
        return a.compareTo(b) >= 0 ? a : b;
    }
}
