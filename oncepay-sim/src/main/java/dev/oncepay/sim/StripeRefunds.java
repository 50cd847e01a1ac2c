package dev.oncepay.sim;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Stripe's refunds of PaymentIntents without HTTP or faults: refund once per idempotency key, never
 * more than is left of the PaymentIntent's charge, record each in the shared ledger, settle pending
 * ones later, emit Stripe's refund and charge events, retrieve and list.
 */
final class StripeRefunds {

    static final String CREATED = "refund.created";
    static final String UPDATED = "refund.updated";
    static final String FAILED = "refund.failed";
    static final String CHARGE_REFUNDED = "charge.refunded";

    private final ObjectMapper json;
    private final Clock clock;
    private final Ledger ledger;
    private final StripeProvider intents;
    private final WebhookSender webhooks;
    /** Shared with the generic API's refunds, by charge id: a succeeded PaymentIntent has one charge. */
    private final KeyedLocks chargeLocks;
    private final RefundSettler settler;
    /** Every refund by id, in creation order. */
    private final Map<String, StripeRefund> refunds = new LinkedHashMap<>();

    StripeRefunds(ObjectMapper json, Clock clock, Ledger ledger, StripeProvider intents, WebhookSender webhooks,
            KeyedLocks chargeLocks, RefundSettler settler) {
        this.json = json;
        this.clock = clock;
        this.ledger = ledger;
        this.intents = intents;
        this.webhooks = webhooks;
        this.chargeLocks = chargeLocks;
        this.settler = settler;
    }

    /**
     * {@code POST /v1/refunds} once per key: the refund, or the {@code 400} that refused it, is
     * stored and replayed like a PaymentIntent create's; a {@code 404} stores nothing.
     *
     * @param plan {@code decline}: the refund fails; {@code nonFinal}: it is {@code pending} and
     *     settles after {@code settleMs}
     */
    ChargeOutcome create(String key, StripeForm form, StripeRefundParams params, FaultPlan plan, long settleMs) {
        return intents.once(key, "refunds", form, () -> intents.storable(() -> {
            StripeRefund refund = execute(key, params, plan, settleMs);
            return new ChargeOutcome(200, intents.write(refund.toJson(json)), false);
        }));
    }

    private StripeRefund execute(String key, StripeRefundParams params, FaultPlan plan, long settleMs) {
        PaymentIntent intent = intents.retrieve(params.paymentIntent()).orElseThrow(() -> StripeErrors.resourceMissing(
                404, "payment_intent", "No such payment_intent: '" + params.paymentIntent() + "'"));
        if (intent.status() != PaymentIntentStatus.SUCCEEDED) {
            throw StripeErrors.nothingToRefund(intent, json);
        }
        // A succeeded PaymentIntent never changes again: only what is left of its charge needs the lock.
        StripeRefund refund = chargeLocks.withLocked(intent.latestCharge(), () -> {
            long left = intent.amount() - ledger.refunded(intent.latestCharge());
            if (left <= 0) {
                throw StripeErrors.chargeAlreadyRefunded(intent.latestCharge());
            }
            long amount = params.amount().orElse(left);
            if (amount > left) {
                throw StripeErrors.refundTooLarge(amount, left, intent.currency());
            }
            RefundStatus status = plan.nonFinal() ? RefundStatus.PENDING
                    : plan.decline() ? RefundStatus.FAILED : RefundStatus.SUCCEEDED;
            StripeRefund created = new StripeRefund("re_" + RandomIds.next(), intent.id(), intent.latestCharge(),
                    amount, intent.currency(), RefundStatus.PENDING, params.reason(), params.metadata(),
                    "txn_" + RandomIds.next(), null, key, clock.instant().truncatedTo(ChronoUnit.MILLIS));
            created = status == RefundStatus.PENDING ? created : created.settled(status);
            synchronized (refunds) {
                refunds.put(created.id(), created);
            }
            ledger.record(created.toLedgerRefund());
            return created;
        });
        publish(CREATED, refund, null, key);
        reportOutcome(refund, key);
        if (refund.status() == RefundStatus.PENDING) {
            RefundStatus outcome = plan.decline() ? RefundStatus.FAILED : RefundStatus.SUCCEEDED;
            settler.later(() -> settle(refund, outcome), settleMs);
        }
        return refund;
    }

    /** A pending refund settles unless a reset forgot it meanwhile; a failed one gives its amount back. */
    private void settle(StripeRefund pending, RefundStatus outcome) {
        Optional<StripeRefund> settled = chargeLocks.withLocked(pending.charge(), () -> {
            synchronized (refunds) {
                StripeRefund current = refunds.get(pending.id());
                if (current == null || current.status() != RefundStatus.PENDING) {
                    return Optional.empty();
                }
                StripeRefund done = current.settled(outcome);
                refunds.put(done.id(), done);
                ledger.update(done.toLedgerRefund());
                return Optional.of(done);
            }
        });
        settled.ifPresent(done -> {
            publish(UPDATED, done, json.createObjectNode().put("status", pending.status().wire()), null);
            reportOutcome(done, null);
        });
    }

    /** {@code refund.failed} for a failed refund, {@code charge.refunded} for a succeeded one. */
    private void reportOutcome(StripeRefund refund, String key) {
        if (refund.status() == RefundStatus.FAILED) {
            publish(FAILED, refund, null, key);
        } else if (refund.status() == RefundStatus.SUCCEEDED) {
            intents.retrieve(refund.paymentIntent()).ifPresent(intent -> send(CHARGE_REFUNDED, intent,
                    chargeJson(intent), null, key));
        }
    }

    private void publish(String type, StripeRefund refund, ObjectNode previous, String key) {
        intents.retrieve(refund.paymentIntent())
                .ifPresent(intent -> send(type, intent, refund.toJson(json), previous, key));
    }

    /** Signed as the PaymentIntent's events are: with its account's secret, else the target's. */
    private void send(String type, PaymentIntent intent, ObjectNode object, ObjectNode previous, String key) {
        String id = WebhookEvent.newId();
        webhooks.publish(id, type,
                StripeEvent.envelope(json, id, type, clock.instant().getEpochSecond(), object, previous, key),
                intents.signingSecretOf(intent).orElse(null));
    }

    /**
     * The PaymentIntent's charge as Stripe shows it in {@code charge.refunded}: {@code amount_refunded}
     * counts succeeded and pending refunds, {@code refunded} is true once nothing is left.
     */
    private ObjectNode chargeJson(PaymentIntent intent) {
        long refunded = ledger.refunded(intent.latestCharge());
        Instant created = ledger.charge(intent.latestCharge()).map(Charge::createdAt).orElse(intent.createdAt());
        ObjectNode node = json.createObjectNode();
        node.put("id", intent.latestCharge());
        node.put("object", "charge");
        node.put("amount", intent.amount());
        node.put("amount_captured", intent.amount());
        node.put("amount_refunded", refunded);
        node.put("captured", true);
        node.put("created", created.getEpochSecond());
        node.put("currency", intent.currency());
        node.put("livemode", false);
        ObjectNode pairs = node.putObject("metadata");
        intent.metadata().forEach(pairs::put);
        node.put("paid", true);
        node.put("payment_intent", intent.id());
        node.put("payment_method", intent.paymentMethod());
        node.put("refunded", refunded >= intent.amount());
        node.put("status", "succeeded");
        return node;
    }

    Optional<StripeRefund> retrieve(String id) {
        synchronized (refunds) {
            return Optional.ofNullable(refunds.get(id));
        }
    }

    /** The refunds of {@code paymentIntent} created at least {@code lag} ago, newest first as Stripe lists. */
    List<StripeRefund> ofPaymentIntent(String paymentIntent, Duration lag) {
        Instant visibleBefore = clock.instant().minus(lag);
        List<StripeRefund> found = new ArrayList<>();
        synchronized (refunds) {
            for (StripeRefund refund : refunds.values()) {
                if (refund.paymentIntent().equals(paymentIntent) && !refund.createdAt().isAfter(visibleBefore)) {
                    found.add(0, refund);
                }
            }
        }
        return found;
    }

    void clear() {
        synchronized (refunds) {
            refunds.clear();
        }
    }
}
