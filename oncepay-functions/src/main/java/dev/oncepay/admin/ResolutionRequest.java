package dev.oncepay.admin;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.oncepay.validation.FieldError;
import dev.oncepay.validation.InvalidRequestException;
import dev.oncepay.payment.PaymentStatus;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Set;

/**
 * The body of {@code POST /admin/payments/{id}/resolve}: what the operator settles the payment as,
 * on which provider charge, why, and whether against what the provider says.
 *
 * @param status SUCCEEDED or FAILED
 * @param providerPaymentId the provider's charge: required for SUCCEEDED, optional for FAILED
 */
public record ResolutionRequest(PaymentStatus status, String providerPaymentId, String reason, boolean override) {
    static final int MAX_REASON = 500;
    private static final int MAX_ID = 255;
    private static final Set<String> FIELDS = Set.of("status", "providerPaymentId", "reason", "override");
    private static final ObjectMapper JSON = new ObjectMapper();

    /** @throws InvalidRequestException naming every field that is wrong; nothing is stored */
    public static ResolutionRequest parse(byte[] body) {
        JsonNode root;
        try {
            root = JSON.readTree(body);
        } catch (IOException notJson) {
            throw new InvalidRequestException("body", "must be a JSON object");
        }
        if (root == null || !root.isObject()) {
            throw new InvalidRequestException("body", "must be a JSON object");
        }
        List<FieldError> errors = new ArrayList<>();
        for (Iterator<String> names = root.fieldNames(); names.hasNext();) {
            String name = names.next();
            if (!FIELDS.contains(name)) {
                errors.add(new FieldError(name, "is not a field of a resolution"));
            }
        }
        JsonNode statusNode = root.get("status");
        PaymentStatus status = null;
        if (statusNode == null || !statusNode.isTextual()
                || !Set.of("succeeded", "failed").contains(statusNode.asText())) {
            errors.add(new FieldError("status", "must be \"succeeded\" or \"failed\""));
        } else {
            status = "succeeded".equals(statusNode.asText()) ? PaymentStatus.SUCCEEDED : PaymentStatus.FAILED;
        }
        String providerPaymentId = text(root, "providerPaymentId", MAX_ID, errors);
        if (status == PaymentStatus.SUCCEEDED && providerPaymentId == null && !named(errors, "providerPaymentId")) {
            errors.add(new FieldError("providerPaymentId", "is required to resolve as succeeded"));
        }
        String reason = text(root, "reason", MAX_REASON, errors);
        if (reason == null && !named(errors, "reason")) {
            errors.add(new FieldError("reason", "is required (1 to " + MAX_REASON + " characters)"));
        }
        JsonNode overrideNode = root.get("override");
        if (overrideNode != null && !overrideNode.isBoolean()) {
            errors.add(new FieldError("override", "must be true or false"));
        }
        if (!errors.isEmpty()) {
            throw new InvalidRequestException(errors);
        }
        return new ResolutionRequest(status, providerPaymentId, reason, overrideNode != null && overrideNode.asBoolean());
    }

    /** What the request asks, in one canonical form (the idempotency fingerprint's body). */
    String canonicalJson() {
        ObjectNode node = JSON.createObjectNode();
        node.put("override", override);
        node.put("providerPaymentId", providerPaymentId);
        node.put("reason", reason);
        node.put("status", status.name());
        return node.toString();
    }

    /** The reason the history records: an override says so. */
    String recordedReason() {
        return override ? "override: " + reason : reason;
    }

    private static boolean named(List<FieldError> errors, String field) {
        return errors.stream().anyMatch(e -> e.field().equals(field));
    }

    private static String text(JsonNode root, String field, int max, List<FieldError> errors) {
        JsonNode node = root.get(field);
        if (node == null || node.isNull()) {
            return null;
        }
        String value = node.isTextual() ? node.asText() : null;
        if (value == null || value.isBlank() || value.length() > max
                || !value.codePoints().allMatch(c -> c >= 0x20 && c != 0x7f)) {
            errors.add(new FieldError(field, "must be text of 1 to " + max + " characters, no control characters"));
            return null;
        }
        return value;
    }
}
