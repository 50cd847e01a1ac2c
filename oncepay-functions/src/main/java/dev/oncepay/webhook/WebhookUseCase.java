package dev.oncepay.webhook;

import dev.oncepay.config.LoggedPayment;
import dev.oncepay.config.OncepayConfig;
import dev.oncepay.config.Secrets;
import dev.oncepay.payment.Actor;
import dev.oncepay.payment.Payment;
import dev.oncepay.payment.PaymentRepository;
import dev.oncepay.provider.webhook.ProviderEvent.RefundFact;
import dev.oncepay.refund.RefundSettlement;
import dev.oncepay.payment.PaymentStatus;
import dev.oncepay.payment.ProviderAccount;
import dev.oncepay.payment.ReviewReason;
import dev.oncepay.payment.Transition;
import dev.oncepay.provider.webhook.InvalidSignatureException;
import dev.oncepay.provider.webhook.MalformedEventException;
import dev.oncepay.provider.webhook.ProviderEvent;
import dev.oncepay.provider.webhook.ProviderEvent.ChargeFact;
import dev.oncepay.config.SigningSecret;
import dev.oncepay.provider.webhook.VerifiedEvent;
import dev.oncepay.provider.webhook.WebhookFormat;
import dev.oncepay.provider.webhook.WebhookFormats;
import dev.oncepay.webhook.JournalEntry.State;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Event;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import org.jboss.logging.Logger;

/**
 * Accepts provider events at least once and applies each exactly once: one state machine for every
 * provider, whose {@link WebhookFormat} only verifies and reads its events.
 *
 * <p>The payment is read first: a final fact it already records, written by someone else (the
 * usual case: the charge run settled it before the webhook came), changes nothing and is answered
 * from that read, with no journal item. Otherwise three single-item conditional writes, in this
 * order (the first read serves step 2's first attempt):
 * <ol>
 * <li>journal the event {@code RECEIVED} ({@code attribute_not_exists OR expired}). If it is
 * already {@code PROCESSED}, this is a duplicate: answer with the stored outcome. If it is
 * {@code RECEIVED}, an earlier delivery died (or is running right now): carry on, because step 2
 * is idempotent;</li>
 * <li>apply the fact to the payment through the state machine: read, decide with
 * {@link PaymentStatus#onProviderFact}, conditional update on the status read (no fence epoch: a
 * provider fact outranks a running charge, whose fenced settle then fails and replays the settled
 * payment). A fact the payment already has is a no-op, so re-applying after a crash writes
 * nothing. The write carries {@code webhook <provider>/<eventId>} as status reason, so a later
 * delivery can tell that this event made the change. A FAILED fact whose charge stays open to the
 * customer ({@link ChargeFact#cancelRequired()}) records the cancel pending in the same write;
 * the reconcile sweep sends it;</li>
 * <li>mark the journal {@code PROCESSED} with the outcome.</li>
 * </ol>
 * A crash after 1 leaves {@code RECEIVED}: the provider's redelivery (we did not answer 2xx)
 * applies it, and if the provider gave up the reconcile sweep settles the payment anyway. A crash
 * after 2 leaves the payment settled and the journal {@code RECEIVED}: the redelivery re-applies,
 * which writes nothing, and completes the journal. Nothing is lost, nothing applied twice.
 *
 * <p>An event about a payment that another provider charged changes nothing: it is journaled as
 * {@link WebhookOutcome#PROVIDER_CONFLICT} and acknowledged. An event signed with the secret of
 * another account of the payment's provider than the payment's own changes nothing either: a
 * secret speaks only for its account's payments ({@code oncepay.webhook.secrets.<provider>.<account>}),
 * so the event is journaled as {@link WebhookOutcome#NOT_OURS} and acknowledged. So do events that report no final
 * outcome ({@link WebhookOutcome#NOT_FINAL}, after the same checks of payment and provider), are of
 * a type oncepay does not act on, or are not about this deployment's payments
 * ({@link WebhookOutcome#NOT_OURS}); the last two read no payment.
 */
@ApplicationScoped
public class WebhookUseCase {
    private static final Logger LOG = Logger.getLogger(WebhookUseCase.class);
    /** Why a FAILED fact whose charge stays open to the customer leaves the payment in the sweep. */
    private static final String CANCEL_PENDING_REASON = "declined; the charge stays open until the sweep cancels it";

    private final WebhookConfig config;
    private final WebhookFormats formats;
    private final OncepayConfig oncepay;
    private final EventJournal journal;
    private final PaymentRepository payments;
    private final Clock clock;
    private final Event<WebhookPhaseReached> phases;
    /** The signing secrets of now (a SnapStart restore reloads them), rather than the mapping's startup copy. */
    private final Secrets currentSecrets;
    private final RefundSettlement refunds;

    public WebhookUseCase(WebhookConfig config, WebhookFormats formats, OncepayConfig oncepay, EventJournal journal,
            PaymentRepository payments, Clock clock, Event<WebhookPhaseReached> phases, Secrets currentSecrets,
            RefundSettlement refunds) {
        this.config = config;
        this.refunds = refunds;
        this.currentSecrets = currentSecrets;
        this.formats = formats;
        this.oncepay = oncepay;
        this.journal = journal;
        this.payments = payments;
        this.clock = clock;
        this.phases = phases;
    }

    /**
     * @throws UnknownProviderException the provider has no webhook format or no secret is configured for it
     * @throws InvalidSignatureException the signature does not verify; nothing was stored
     * @throws MalformedEventException the verified body is not an event; nothing was stored
     */
    public WebhookReceipt receive(WebhookDelivery delivery) {
        String provider = delivery.provider();
        WebhookFormat format = formatOf(provider);
        List<SigningSecret> secrets = secretsOf(provider);
        if (delivery.rawBody().length > config.maxBodyBytes()) {
            throw new MalformedEventException("body", "larger than " + config.maxBodyBytes() + " bytes");
        }
        VerifiedEvent verified = format.read(delivery.signatureHeader(), delivery.rawBody(), secrets, clock.instant(),
                config.tolerance());
        ProviderEvent event = verified.event();
        ProviderAccount signer = new ProviderAccount(provider, verified.account());
        LoggedPayment.name(event.reference()); // verified: the payment this delivery is about

        // Most facts arrive after the charge run has settled the payment: one read answers them, and a
        // fact that changes nothing needs neither a journal entry nor a write (2 requests saved).
        boolean aboutPayment = event.kind() == ProviderEvent.Kind.FACT || event.kind() == ProviderEvent.Kind.NOT_FINAL;
        Optional<Payment> seen = aboutPayment ? payments.find(event.reference()) : Optional.empty();
        if (event.kind() == ProviderEvent.Kind.FACT && seen.isPresent() && changesNothing(signer, seen.get(), event)) {
            LOG.debugf("webhook already settled provider=%s eventId=%s paymentId=%s", provider, event.id(),
                    event.reference());
            return new WebhookReceipt(event.id(), event.type(), WebhookOutcome.ALREADY_SETTLED, false);
        }

        Instant now = clock.instant();
        Optional<JournalEntry> earlier = journal.receive(provider, event, now, now.plus(config.retention()));
        if (earlier.isPresent() && earlier.get().state() == State.PROCESSED) {
            LOG.infof("webhook duplicate provider=%s eventId=%s outcome=%s", provider, event.id(),
                    earlier.get().outcome().apiName());
            return new WebhookReceipt(event.id(), event.type(), earlier.get().outcome(), true);
        }
        if (earlier.isPresent()) {
            LOG.infof("webhook resuming provider=%s eventId=%s (journaled RECEIVED by an earlier delivery)",
                    provider, event.id());
        }
        reached(provider, event.id(), WebhookPhase.JOURNALED, false);

        Applied applied = apply(signer, event, seen);
        reached(provider, event.id(), WebhookPhase.PAYMENT_UPDATED, applied.written());

        journal.markProcessed(provider, event.id(), applied.outcome(), applied.detail(), clock.instant());
        reached(provider, event.id(), WebhookPhase.PROCESSED, false);
        LOG.infof("webhook processed provider=%s eventId=%s type=%s paymentId=%s outcome=%s", provider, event.id(),
                event.type(), event.reference(), applied.outcome().apiName());
        return new WebhookReceipt(event.id(), event.type(), applied.outcome(), false);
    }

    /**
     * The header that carries {@code provider}'s signature.
     *
     * @throws UnknownProviderException oncepay has no webhook format for the provider
     */
    public String signatureHeaderOf(String provider) {
        return formatOf(provider).signatureHeader();
    }

    private WebhookFormat formatOf(String provider) {
        return formats.forProvider(provider).orElseThrow(() -> new UnknownProviderException(provider));
    }

    private List<SigningSecret> secretsOf(String provider) {
        List<SigningSecret> usable = currentSecrets.signingSecrets(provider);
        if (usable.isEmpty()) {
            throw new UnknownProviderException(provider);
        }
        return usable;
    }

    /** What applying did; {@code written} if this delivery's write moved the payment. */
    private record Applied(WebhookOutcome outcome, String detail, boolean written) {
    }

    /** The writes a decision needs (none for a no-op), the outcome, and its detail. */
    private record Decision(List<Transition> transitions, WebhookOutcome outcome, String detail) {
    }

    /**
     * A final fact the payment already records, from the provider account that charged it, that this
     * event did not write itself (a duplicate of an applied event still answers from the journal).
     */
    private boolean changesNothing(ProviderAccount signer, Payment payment, ProviderEvent event) {
        if (!payment.providerAccount().equals(signer)) {
            return false;
        }
        Decision decision = decide(payment, event.fact().orElseThrow(), event.type(), marker(signer.provider(), event),
                clock.instant());
        return decision.outcome() == WebhookOutcome.ALREADY_SETTLED && decision.transitions().isEmpty();
    }

    private static String marker(String provider, ProviderEvent event) {
        return "webhook " + provider + "/" + event.id();
    }

    /**
     * @param signer the provider account whose secret signed the event
     * @param firstRead the payment (or its absence) as read before journaling: the first attempt's read
     */
    private Applied apply(ProviderAccount signer, ProviderEvent event, Optional<Payment> firstRead) {
        String provider = signer.provider();
        if (event.kind() == ProviderEvent.Kind.IGNORED_TYPE) {
            return new Applied(WebhookOutcome.IGNORED_TYPE, event.detail(), false);
        }
        if (event.kind() == ProviderEvent.Kind.REFUND_FACT) {
            return applyRefund(signer, event);
        }
        if (event.kind() == ProviderEvent.Kind.NOT_OURS) {
            // Loud: a steady stream of these means a misrouted endpoint or the wrong mode configured.
            LOG.warnf("webhook not about our payments provider=%s eventId=%s: %s", provider, event.id(), event.detail());
            return new Applied(WebhookOutcome.NOT_OURS, event.detail(), false);
        }
        String marker = marker(provider, event);
        boolean written = false;
        for (int attempt = 1; attempt <= config.applyAttempts(); attempt++) {
            Optional<Payment> found = attempt == 1 ? firstRead : payments.find(event.reference());
            if (found.isEmpty()) {
                LOG.warnf("webhook for unknown payment provider=%s eventId=%s reference=%s", provider, event.id(),
                        event.reference());
                return new Applied(WebhookOutcome.UNKNOWN_PAYMENT, "no payment " + event.reference(), false);
            }
            Payment payment = found.get();
            if (!payment.providerAccount().provider().equals(provider)) {
                // Design rule 15: only the provider that charged a payment speaks for it. Acknowledged, so
                // the sender stops retrying; journaled with both parties for whoever looks into it.
                String detail = "payment " + payment.id() + " was charged through " + payment.providerAccount()
                        + "; an event from provider " + provider + " is not applied";
                LOG.warnf("webhook provider conflict eventId=%s: %s", event.id(), detail);
                return new Applied(WebhookOutcome.PROVIDER_CONFLICT, detail, false);
            }
            if (!payment.providerAccount().equals(signer)) {
                // A secret speaks for its own account only: another account's event (or a leaked secret of
                // it) never moves this payment. Acknowledged, so the sender stops retrying.
                String detail = "payment " + payment.id() + " belongs to " + payment.providerAccount()
                        + "; the event is signed with a secret of " + signer + " and is not applied";
                LOG.warnf("webhook from another account eventId=%s: %s", event.id(), detail);
                return new Applied(WebhookOutcome.NOT_OURS, detail, false);
            }
            if (event.kind() == ProviderEvent.Kind.NOT_FINAL) {
                // Under way at the provider: the payment stays as it is until a final fact or the sweep.
                return new Applied(WebhookOutcome.NOT_FINAL, event.detail(), false);
            }
            ChargeFact fact = event.fact().orElseThrow();
            Instant now = clock.instant();
            Decision decision = decide(payment, fact, event.type(), marker, now);
            boolean complete = true;
            for (Transition t : decision.transitions()) {
                if (!payments.apply(payment.id(), payment.tenant(), t, Actor.webhook(provider, event.id()), now)) {
                    complete = false;
                    break;
                }
                written = true;
            }
            if (complete) {
                if (decision.outcome() == WebhookOutcome.CONFLICT && !decision.transitions().isEmpty()) {
                    LOG.warnf("webhook conflict: payment %s moved to NEEDS_REVIEW: %s", payment.id(), decision.detail());
                }
                return new Applied(decision.outcome(), decision.detail(), written);
            }
            LOG.debugf("webhook eventId=%s lost a race on payment %s (attempt %d); re-reading", event.id(),
                    payment.id(), attempt);
        }
        // The provider retries a failed delivery; the journal stays RECEIVED until then.
        throw new IllegalStateException("payment " + event.reference() + " kept changing under webhook " + event.id());
    }

    /** A fact about one of our refunds, through the refund state machine; a pending refund changes nothing. */
    private Applied applyRefund(ProviderAccount signer, ProviderEvent event) {
        RefundFact fact = event.refundFact().orElseThrow();
        if (!fact.isFinal()) {
            return new Applied(WebhookOutcome.NOT_FINAL, "refund " + fact.refundId() + " is not final yet", false);
        }
        RefundSettlement.Applied applied = refunds.apply(event.reference(), signer, fact.outcome(), fact.refundId(),
                fact.failureCode(), fact.amount(), Actor.webhook(signer.provider(), event.id()),
                marker(signer.provider(), event));
        String detail = "refund " + event.reference() + ": " + applied.name().toLowerCase(Locale.ROOT);
        return switch (applied) {
            case APPLIED -> new Applied(WebhookOutcome.APPLIED, detail, true);
            case ALREADY_SETTLED -> new Applied(WebhookOutcome.ALREADY_SETTLED, detail, false);
            case CONFLICT -> new Applied(WebhookOutcome.CONFLICT, detail, true);
            case UNDER_REVIEW -> new Applied(WebhookOutcome.UNDER_REVIEW, detail, false);
            case UNKNOWN_REFUND -> new Applied(WebhookOutcome.UNKNOWN_PAYMENT, "no refund " + event.reference(), false);
            case OTHER_ACCOUNT -> new Applied(WebhookOutcome.NOT_OURS, detail + " of another provider account", false);
        };
    }

    /**
     * The state machine's answer to a provider fact about {@code payment}, as conditional writes.
     * A fact that contradicts the payment's recorded facts (amount, currency, charge id) or its
     * terminal outcome leads to {@code NEEDS_REVIEW}; nothing is ever silently overwritten.
     */
    private Decision decide(Payment payment, ChargeFact fact, String type, String marker, Instant now) {
        PaymentStatus status = payment.status();
        boolean oursAlready = isMarkedBy(payment.statusReason(), marker);
        if (status == PaymentStatus.NEEDS_REVIEW) {
            return new Decision(List.of(), oursAlready ? WebhookOutcome.CONFLICT : WebhookOutcome.UNDER_REVIEW,
                    oursAlready ? payment.statusReason() : "payment already needs review");
        }
        String mismatch = mismatch(payment, fact);
        if (mismatch != null) {
            String reason = marker + ": " + type + " " + mismatch;
            List<Transition> moves = new ArrayList<>();
            PaymentStatus from = status;
            if (from == PaymentStatus.PENDING) {
                // PENDING may not jump to NEEDS_REVIEW; go through UNKNOWN (listed for the sweep meanwhile).
                moves.add(new Transition(PaymentStatus.PENDING, PaymentStatus.UNKNOWN, null, null,
                        marker + ": " + Payment.REVIEW_BOUND + type + " " + mismatch,
                        now.plus(oncepay.sweep().firstCheckDelay()), OptionalLong.empty(), null,
                        ReviewReason.CONFLICTING_FACTS));
                from = PaymentStatus.UNKNOWN;
            }
            moves.add(Transition.toReview(from, null, reason, ReviewReason.CONFLICTING_FACTS));
            return new Decision(moves, WebhookOutcome.CONFLICT, reason);
        }
        PaymentStatus target = status.onProviderFact(fact.outcome());
        if (target == status) {
            return new Decision(List.of(), oursAlready ? WebhookOutcome.APPLIED : WebhookOutcome.ALREADY_SETTLED, null);
        }
        if (target == PaymentStatus.NEEDS_REVIEW) {
            String reason = marker + ": " + type + " contradicts recorded " + status;
            // Keep the recorded provider ids: the reviewer needs both facts, the event is journaled.
            return new Decision(List.of(Transition.toReview(status, null, reason, ReviewReason.CONFLICTING_FACTS)),
                    WebhookOutcome.CONFLICT, reason);
        }
        if (target == PaymentStatus.FAILED && fact.cancelRequired()) {
            // This function answers the provider without calling it: the cancel is recorded pending,
            // due at once, and the next sweep sends it.
            return new Decision(List.of(Transition.failedCancelPending(status, fact.chargeId(), fact.declineCode(),
                    marker + ": " + CANCEL_PENDING_REASON, now, OptionalLong.empty())), WebhookOutcome.APPLIED,
                    CANCEL_PENDING_REASON);
        }
        String declineCode = target == PaymentStatus.FAILED ? fact.declineCode() : null;
        return new Decision(List.of(new Transition(status, target, fact.chargeId(), declineCode, marker, null,
                OptionalLong.empty())), WebhookOutcome.APPLIED, null);
    }

    /** A description of how the event's charge differs from the payment, or {@code null}. */
    private static String mismatch(Payment payment, ChargeFact fact) {
        List<String> differences = new ArrayList<>();
        if (fact.amount() != payment.amount()) {
            differences.add("amount " + fact.amount() + " != " + payment.amount());
        }
        if (!fact.currency().equals(payment.currency())) {
            differences.add("currency " + fact.currency() + " != " + payment.currency());
        }
        if (fact.chargeId() != null && payment.providerPaymentId() != null
                && !Objects.equals(fact.chargeId(), payment.providerPaymentId())) {
            differences.add("charge " + fact.chargeId() + " != " + payment.providerPaymentId());
        }
        return differences.isEmpty() ? null : "does not match the payment: " + String.join(", ", differences);
    }

    private static boolean isMarkedBy(String statusReason, String marker) {
        return statusReason != null && (statusReason.equals(marker) || statusReason.startsWith(marker + ":"));
    }

    private void reached(String provider, String eventId, WebhookPhase phase, boolean paymentWritten) {
        phases.fire(new WebhookPhaseReached(provider, eventId, phase, paymentWritten));
    }
}
