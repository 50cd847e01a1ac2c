package dev.oncepay.api;

import dev.oncepay.http.HttpApiEvent;
import java.util.Locale;

/**
 * The {@code Prefer} request header (RFC 7240) as the payments API reads it: only {@code
 * respond-async} matters. Preferences are comma-separated (API Gateway joins repeated headers the
 * same way), names are case-insensitive, and a preference may carry parameters after {@code ;}.
 * Anything else is ignored, as the RFC asks of preferences a server does not support.
 */
final class PreferHeader {
    static final String RESPOND_ASYNC = "respond-async";
    /** The response header that says a preference was honoured. */
    static final String APPLIED = "Preference-Applied";

    private PreferHeader() {
    }

    static boolean respondAsync(HttpApiEvent event) {
        String prefer = event.header("Prefer");
        if (prefer == null) {
            return false;
        }
        for (String preference : prefer.split(",")) {
            String name = preference.split("[;=]", 2)[0].strip().toLowerCase(Locale.ROOT);
            if (name.equals(RESPOND_ASYNC)) {
                return true;
            }
        }
        return false;
    }
}
