package dev.oncepay.api;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.oncepay.validation.FieldError;
import dev.oncepay.validation.InvalidRequestException;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Set;

/** The JSON body of a redelivery request: an object of known fields only, or the request is refused before anything is read. */
final class RedeliveryRequest {
    private static final ObjectMapper JSON = new ObjectMapper();

    private RedeliveryRequest() {
    }

    /** @throws InvalidRequestException the body is no JSON object */
    static JsonNode object(byte[] body) {
        JsonNode root;
        try {
            root = body == null ? null : JSON.readTree(body);
        } catch (IOException notJson) {
            root = null;
        }
        if (root == null || !root.isObject()) {
            throw new InvalidRequestException("body", "must be a JSON object");
        }
        return root;
    }

    /** @throws InvalidRequestException naming each field that is not one of {@code allowed} */
    static void onlyFields(JsonNode root, Set<String> allowed) {
        List<FieldError> errors = new ArrayList<>();
        for (Iterator<String> names = root.fieldNames(); names.hasNext();) {
            String name = names.next();
            if (!allowed.contains(name)) {
                errors.add(new FieldError(name, "is not a field of a redelivery"));
            }
        }
        if (!errors.isEmpty()) {
            throw new InvalidRequestException(errors);
        }
    }
}
