package dev.oncepay.provider.psp;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.oncepay.payment.Payment;
import dev.oncepay.provider.spi.ChargeResult;
import dev.oncepay.provider.spi.IndeterminateProviderFault;
import java.util.ArrayList;
import java.util.List;

/**
 * A PSP answer that is not a fault to retry (no {@code 5xx}, {@code 408}, {@code 409} or
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
        List<PspCharge> charges = new ArrayList<>();
        for (JsonNode element : data) {
            if (!element.isObject()) {
                throw new IndeterminateProviderFault(unclear + " with a list entry that is no charge", null);
            }
            try {
                charges.add(json.treeToValue(element, PspCharge.class));
            } catch (Exception unreadable) {
                throw new IndeterminateProviderFault(unclear + " with an unreadable charge", unreadable);
            }
        }
        return List.copyOf(charges);
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
