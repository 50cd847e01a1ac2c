package dev.oncepay.provider.psp;

import com.fasterxml.jackson.databind.JsonNode;
import dev.oncepay.payment.PaymentStatus;
import dev.oncepay.payment.RefundStatus;
import dev.oncepay.provider.webhook.ProviderEvent.RefundFact;
import dev.oncepay.provider.webhook.EventBody;
import dev.oncepay.provider.webhook.MalformedEventException;
import dev.oncepay.provider.webhook.ProviderEvent;
import dev.oncepay.config.SigningSecret;
import dev.oncepay.provider.webhook.VerifiedEvent;
import dev.oncepay.provider.webhook.ProviderEvent.ChargeFact;
import dev.oncepay.provider.webhook.SignatureVerifier;
import dev.oncepay.provider.webhook.WebhookFormat;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

/**
 * The generic PSP's webhooks (design §3): {@code Payment-Signature}, and
 * {@code {"id":"evt_…","type":"charge.succeeded|charge.failed","data":{"chargeId","reference","status","amount","currency"}}},
 * and {@code refund.succeeded|refund.failed} whose {@code data} is the refund ({@code id}, {@code reference}: our refund id).
 * Unknown fields are ignored (providers add fields); events of other types are accepted with
 * whatever reference they carry, for the audit journal only.
 */
@ApplicationScoped
public class PspWebhookFormat implements WebhookFormat {
    public static final String PROVIDER_ID = "sim";
    public static final String CHARGE_SUCCEEDED = "charge.succeeded";
    public static final String CHARGE_FAILED = "charge.failed";
    public static final String REFUND_SUCCEEDED = "refund.succeeded";
    public static final String REFUND_FAILED = "refund.failed";
    private static final SignatureVerifier SIGNATURE = new SignatureVerifier("Payment-Signature");

    @Override
    public String providerId() {
        return PROVIDER_ID;
    }

    @Override
    public String signatureHeader() {
        return SIGNATURE.headerName();
    }

    @Override
    public VerifiedEvent read(String signature, byte[] rawBody, List<SigningSecret> secrets, Instant now,
            Duration tolerance) {
        String account = SIGNATURE.verify(signature, rawBody, secrets, now, tolerance);
        return new VerifiedEvent(account, parse(rawBody));
    }

    /** The event in a verified body. */
    static ProviderEvent parse(byte[] body) {
        String text = EventBody.text(body);
        JsonNode root = EventBody.object(body);
        String id = EventBody.token(root.get("id"), "id", EventBody.MAX_ID, true);
        String type = EventBody.token(root.get("type"), "type", EventBody.MAX_TYPE, true);
        JsonNode data = root.get("data");
        if (type.equals(REFUND_SUCCEEDED) || type.equals(REFUND_FAILED)) {
            return refund(id, type, data, text);
        }
        PaymentStatus outcome = switch (type) {
            case CHARGE_SUCCEEDED -> PaymentStatus.SUCCEEDED;
            case CHARGE_FAILED -> PaymentStatus.FAILED;
            default -> null;
        };
        if (outcome == null) {
            // Not ours to apply: keep what identifies it, validate nothing else.
            String reference = data != null && data.isObject()
                    ? EventBody.tokenOrNull(data.get("reference"), EventBody.MAX_ID) : null;
            return ProviderEvent.ignoredType(id, type, reference, text);
        }
        if (data == null || !data.isObject()) {
            throw new MalformedEventException("data", "required object");
        }
        String reference = EventBody.token(data.get("reference"), "data.reference", EventBody.MAX_ID, true);
        String chargeId = EventBody.token(data.get("chargeId"), "data.chargeId", EventBody.MAX_ID, false);
        String declineCode = EventBody.token(data.get("declineCode"), "data.declineCode", EventBody.MAX_ID, false);
        long amount = EventBody.amount(data.get("amount"), "data.amount");
        String currency = EventBody.currency(data.get("currency"), "data.currency");
        JsonNode status = data.get("status");
        if (status != null && !status.isNull()) {
            String expected = outcome == PaymentStatus.SUCCEEDED ? "succeeded" : "failed";
            if (!status.isTextual() || !status.textValue().equals(expected)) {
                throw new MalformedEventException("data.status", "must be \"" + expected + "\" in a " + type + " event");
            }
        }
        return ProviderEvent.fact(id, type, reference,
                new ChargeFact(outcome, chargeId, amount, currency, declineCode), text);
    }

    /** {@code refund.succeeded|refund.failed}: {@code data} is the refund, its {@code reference} our refund id. */
    private static ProviderEvent refund(String id, String type, JsonNode data, String text) {
        if (data == null || !data.isObject()) {
            throw new MalformedEventException("data", "required object");
        }
        RefundStatus outcome = type.equals(REFUND_SUCCEEDED) ? RefundStatus.SUCCEEDED : RefundStatus.FAILED;
        String reference = EventBody.token(data.get("reference"), "data.reference", EventBody.MAX_ID, true);
        String refundId = EventBody.token(data.get("id"), "data.id", EventBody.MAX_ID, true);
        String failureCode = EventBody.token(data.get("failureCode"), "data.failureCode", EventBody.MAX_ID, false);
        long amount = EventBody.amount(data.get("amount"), "data.amount");
        String currency = EventBody.currency(data.get("currency"), "data.currency");
        JsonNode status = data.get("status");
        String expected = outcome == RefundStatus.SUCCEEDED ? "succeeded" : "failed";
        if (status != null && !status.isNull() && (!status.isTextual() || !status.textValue().equals(expected))) {
            throw new MalformedEventException("data.status", "must be \"" + expected + "\" in a " + type + " event");
        }
        return ProviderEvent.refundFact(id, type, reference,
                new RefundFact(outcome, refundId, amount, currency, failureCode), text);
    }
}
