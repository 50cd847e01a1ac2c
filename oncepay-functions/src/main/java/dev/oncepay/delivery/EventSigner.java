package dev.oncepay.delivery;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.util.HexFormat;
import java.util.List;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Signs a delivery as oncepay's providers sign their webhooks to it: {@code t=<unix s>,v1=<hex>[,v1=<hex>…]},
 * each {@code v1} the hex HMAC-SHA256 of {@code "<t>.<raw body>"} under one of the endpoint's
 * secrets, newest first, so a merchant keeps verifying while it rotates. Pure: no I/O, no logging.
 */
public final class EventSigner {
    private static final HexFormat HEX = HexFormat.of();

    private EventSigner() {
    }

    /** The {@code Oncepay-Signature} header value for {@code body} at {@code unixSeconds}. */
    public static String header(List<String> secrets, String body, long unixSeconds) {
        if (secrets.isEmpty()) {
            throw new IllegalArgumentException("an endpoint without signing secrets cannot be signed for");
        }
        StringBuilder header = new StringBuilder("t=").append(unixSeconds);
        byte[] payload = (unixSeconds + "." + body).getBytes(StandardCharsets.UTF_8);
        for (String secret : secrets) {
            header.append(",v1=").append(HEX.formatHex(hmac(secret, payload)));
        }
        return header.toString();
    }

    private static byte[] hmac(String secret, byte[] payload) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(secret.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
            return mac.doFinal(payload);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 is part of every JDK", e);
        }
    }
}
