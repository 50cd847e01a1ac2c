package dev.oncepay.sim;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.util.HexFormat;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/** The {@code Payment-Signature} scheme: {@code t=<unix s>,v1=<hex HMAC-SHA256 of "<t>.<body>">}. */
public final class WebhookSignature {

    public static final String HEADER = "Payment-Signature";

    private WebhookSignature() {
    }

    /** The full header value for {@code body} signed at {@code unixSeconds}. */
    public static String header(String secret, String body, long unixSeconds) {
        return "t=" + unixSeconds + ",v1=" + hmacHex(secret, unixSeconds + "." + body);
    }

    public static String hmacHex(String secret, String payload) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(secret.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
            return HexFormat.of().formatHex(mac.doFinal(payload.getBytes(StandardCharsets.UTF_8)));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 is part of every JDK", e);
        }
    }
}
