package dev.oncepay.provider.psp;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.oncepay.payment.Payment;
import dev.oncepay.payment.Refund;
import dev.oncepay.provider.spi.RefundResult;
import dev.oncepay.provider.spi.ChargeResult;
import dev.oncepay.provider.spi.IndeterminateProviderFault;
import java.util.ArrayList;
import java.util.List;

/**
 * A PSP answer (to a charge, a refund or a lookup) that is not a fault to retry (no {@code 5xx}, {@code 408}, {@code 409} or
 * {@code 429}), read strictly (design rule 11): only an explicit final answer is an outcome.
 */
record PspAnswer(int httpStatus, String body) {

    /**
     * A charge answer: {@code SUCCEEDED} only for a {@code 2xx} charge of ours that says
     * {@code succeeded}, {@code FAILED} only for one that says {@code declined}/{@code failed},
     * a {@code 402}, or a request the provider refused as such ({@code 400}, {@code 404},
     * {@code 422}); anything else — another status word, no status, no or an unreadable body, an
     * answer about another charge, any other code — is {@code UNKNOWN}, for reconcile to ask.
     */
    ChargeResult toChargeResult(Payment sent, ObjectMapper json) {
        if (httpStatus / 100 == 2) {
            return readCharge(sent, json);
        }
        return switch (httpStatus) {
            case 402 -> ChargeResult.failed(null, errorCode(json, "card_declined"));
            // The provider refused the request itself; it can never succeed as sent, and was not executed.
            case 400, 404, 422 -> ChargeResult.failed(null, "provider_rejected_" + httpStatus);
            default -> ChargeResult.unknown("provider answered HTTP " + httpStatus + ", which is no outcome");
        };
    }

    private ChargeResult readCharge(Payment sent, ObjectMapper json) {
        String unclear = "provider answered HTTP " + httpStatus;
        if (body == null || body.isBlank()) {
            return ChargeResult.unknown(unclear + " without a body");
        }
        PspCharge charge;
        try {
            JsonNode node = json.readTree(body);
            if (node == null || !node.isObject()) {
                return ChargeResult.unknown(unclear + " with a body that is no charge");
            }
            charge = json.treeToValue(node, PspCharge.class);
        } catch (Exception unreadable) {
            return ChargeResult.unknown(unclear + " with an unreadable body");
        }
        if (charge.id() == null || charge.id().isBlank()) {
            return ChargeResult.unknown(unclear + " with a charge without id (status '" + charge.status() + "')");
        }
        if (!about(charge, sent)) {
            return ChargeResult.unknown(unclear + " about another charge: " + charge.id() + " of " + charge.reference()
                    + ", " + charge.amount() + " " + charge.currency());
        }
        return switch (charge.chargeStatus().outcome()) {
            case SUCCEEDED -> ChargeResult.succeeded(charge.id());
            case FAILED -> ChargeResult.failed(charge.id(), charge.declineCodeOrStatus());
            case UNKNOWN, NOT_SENT, NEEDS_REVIEW -> ChargeResult.notFinal(charge.id(), unclear + ": charge " + charge.id() + " is '"
                    + charge.status() + "', not final");
        };
    }

    /** Whether what the provider reports (where it says) is the charge we asked for. */
    private static boolean about(PspCharge charge, Payment sent) {
        return (charge.reference() == null || charge.reference().equals(sent.id()))
                && (charge.amount() == null || charge.amount() == sent.amount())
                && (charge.currency() == null || charge.currency().equalsIgnoreCase(sent.currency()));
    }

    /**
     * A lookup answer: the charges, only from a {@code 2xx} whose {@code data} is a list of charge
     * objects. Anything else is no answer at all — never "no charge".
     *
     * @throws IndeterminateProviderFault when the answer is not such a list
     */
    List<PspCharge> toLookup(ObjectMapper json) {
        return toList(json, PspCharge.class, "charge");
    }

    /** A refund lookup answer: the refunds, read as strictly as {@link #toLookup}. */
    List<PspRefund> toRefundLookup(ObjectMapper json) {
        return toList(json, PspRefund.class, "refund");
    }

    /**
     * A refund answer: {@code SUCCEEDED} or {@code FAILED} only for a {@code 2xx} refund of ours
     * that says so; {@code FAILED} for a request the provider refused as such ({@code 400},
     * {@code 402}, {@code 404}, {@code 422}: nothing was refunded); anything else {@code UNKNOWN}.
     */
    RefundResult toRefundResult(Refund sent, ObjectMapper json) {
        if (httpStatus / 100 != 2) {
            return switch (httpStatus) {
                case 400, 402, 404, 422 -> RefundResult.failed(null, errorCode(json, "provider_rejected_" + httpStatus));
                default -> RefundResult.unknown(null, "provider answered HTTP " + httpStatus + ", which is no outcome");
            };
        }
        String unclear = "provider answered HTTP " + httpStatus;
        PspRefund refund;
        try {
            JsonNode node = body == null || body.isBlank() ? null : json.readTree(body);
            if (node == null || !node.isObject()) {
                return RefundResult.unknown(null, unclear + " without a refund");
            }
            refund = json.treeToValue(node, PspRefund.class);
        } catch (Exception unreadable) {
            return RefundResult.unknown(null, unclear + " with an unreadable body");
        }
        if (refund.id() == null || refund.id().isBlank()) {
            return RefundResult.unknown(null, unclear + " with a refund without id");
        }
        boolean about = (refund.reference() == null || refund.reference().equals(sent.id()))
                && (refund.amount() == null || refund.amount() == sent.amount());
        if (!about) {
            return RefundResult.unknown(null, unclear + " about another refund: " + refund.id() + " of "
                    + refund.reference() + ", " + refund.amount());
        }
        return switch (refund.outcome()) {
            case SUCCEEDED -> RefundResult.succeeded(refund.id());
            case FAILED -> RefundResult.failed(refund.id(), refund.failureCode() != null ? refund.failureCode() : "failed");
            default -> RefundResult.unknown(refund.id(), unclear + ": refund " + refund.id() + " is '"
                    + refund.status() + "', not final");
        };
    }

    private <T> List<T> toList(ObjectMapper json, Class<T> type, String what) {
        String unclear = "lookup answered HTTP " + httpStatus;
        if (httpStatus / 100 != 2) {
            throw new IndeterminateProviderFault(unclear, null);
        }
        JsonNode data;
        try {
            data = body == null || body.isBlank() ? null : json.readTree(body).path("data");
        } catch (Exception unreadable) {
            throw new IndeterminateProviderFault(unclear + " with an unreadable body", unreadable);
        }
        if (data == null || !data.isArray()) {
            throw new IndeterminateProviderFault(unclear + " without its data list", null);
        }
        List<T> entries = new ArrayList<>();
        for (JsonNode element : data) {
            if (!element.isObject()) {
                throw new IndeterminateProviderFault(unclear + " with a list entry that is no " + what, null);
            }
            try {
                entries.add(json.treeToValue(element, type));
            } catch (Exception unreadable) {
                throw new IndeterminateProviderFault(unclear + " with an unreadable " + what, unreadable);
            }
        }
        return List.copyOf(entries);
    }

    private String errorCode(ObjectMapper json, String fallback) {
        try {
            JsonNode error = body == null || body.isBlank() ? null : json.readTree(body).path("error");
            if (error != null && error.hasNonNull("code")) {
                return error.get("code").asText();
            }
            if (error != null && error.hasNonNull("type")) {
                return error.get("type").asText();
            }
        } catch (Exception unreadable) {
            // a 402 is a decline whatever its body says
        }
        return fallback;
    }
}
