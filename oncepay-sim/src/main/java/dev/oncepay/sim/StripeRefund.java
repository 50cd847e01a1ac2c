package dev.oncepay.sim;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Instant;
import java.util.Locale;
import java.util.Map;

/**
 * A Stripe Refund of a PaymentIntent's charge, as the simulator keeps it; its ledger entry is
 * {@link #toLedgerRefund()}. {@code idempotencyKey} is the provider's own bookkeeping and never
 * appears in the JSON. The simulator answers {@code pending}, {@code succeeded} or {@code failed}
 * (a card refund never needs the customer's action, so never {@code requires_action} or {@code canceled}).
 *
 * @param charge the PaymentIntent's {@code latest_charge}, the charge refunded
 * @param reason {@code duplicate}, {@code fraudulent}, {@code requested_by_customer}, or null
 * @param failureBalanceTransaction the {@code txn_…} that gave the amount back, once failed
 */
record StripeRefund(
        String id,
        String paymentIntent,
        String charge,
        long amount,
        String currency,
        RefundStatus status,
        String reason,
        Map<String, String> metadata,
        String balanceTransaction,
        String failureBalanceTransaction,
        String idempotencyKey,
        Instant createdAt) {

    /** Our refund id, when the caller sends it as {@code metadata[oncepay_refund_id]}: the ledger's reference. */
    static final String REFERENCE_KEY = "oncepay_refund_id";
    /** Why a simulated card refund fails: the card is gone (Stripe's most common reason). */
    static final String FAILURE_REASON = "expired_or_canceled_card";

    StripeRefund {
        metadata = Map.copyOf(metadata);
    }

    StripeRefund settled(RefundStatus outcome) {
        String failureTxn = outcome == RefundStatus.FAILED ? "txn_" + RandomIds.next() : null;
        return new StripeRefund(id, paymentIntent, charge, amount, currency, outcome, reason, metadata,
                balanceTransaction, failureTxn, idempotencyKey, createdAt);
    }

    /** The ledger's view, as for a generic refund: upper-case currency, reference = our refund id if sent. */
    Refund toLedgerRefund() {
        return new Refund(id, charge, amount, currency.toUpperCase(Locale.ROOT), status, metadata.get(REFERENCE_KEY),
                metadata, idempotencyKey, createdAt);
    }

    /** The Refund object field by field as Stripe documents it (https://docs.stripe.com/api/refunds/object). */
    ObjectNode toJson(ObjectMapper json) {
        ObjectNode node = json.createObjectNode();
        node.put("id", id);
        node.put("object", "refund");
        node.put("amount", amount);
        node.put("balance_transaction", balanceTransaction);
        node.put("charge", charge);
        node.put("created", createdAt.getEpochSecond());
        node.put("currency", currency);
        ObjectNode card = node.putObject("destination_details").put("type", "card").putObject("card");
        card.put("reference", status == RefundStatus.SUCCEEDED ? arn() : null);
        card.put("reference_status", switch (status) {
            case PENDING -> "pending";
            case SUCCEEDED -> "available";
            case FAILED -> "unavailable";
        });
        card.put("reference_type", "acquirer_reference_number");
        card.put("type", status == RefundStatus.PENDING ? "pending" : "refund");
        if (status == RefundStatus.FAILED) {
            node.put("failure_balance_transaction", failureBalanceTransaction);
            node.put("failure_reason", FAILURE_REASON);
        }
        ObjectNode pairs = node.putObject("metadata");
        metadata.forEach(pairs::put);
        node.put("payment_intent", paymentIntent);
        if (status == RefundStatus.PENDING) {
            node.put("pending_reason", "processing");
        }
        node.put("reason", reason);
        node.putNull("receipt_number");
        node.putNull("source_transfer_reversal");
        node.put("status", status.wire());
        node.putNull("transfer_reversal");
        return node;
    }

    /** A stable 23-digit acquirer reference number derived from the id, as card networks assign one. */
    private String arn() {
        return String.format("%023d", Math.floorMod((long) id.hashCode(), 100_000_000_000L));
    }
}
