package dev.oncepay.sim.merchant;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * oncepay's event signature as a merchant checks it: {@code Oncepay-Signature: t=<unix s>,v1=<hex>[,v1=<hex>…]},
 * each {@code v1} the hex HMAC-SHA256 of {@code "<t>.<raw body>"} with one of the endpoint's secrets.
 */
public final class MerchantSignature {

    public static final String HEADER = "Oncepay-Signature";
    /** How far {@code t} may be from the merchant's clock, either way. */
    public static final Duration TOLERANCE = Duration.ofSeconds(300);

    private MerchantSignature() {
    }

    /** The header value oncepay sends for {@code body} at {@code unixSeconds}, one {@code v1} per secret. */
    public static String header(List<String> secrets, String body, long unixSeconds) {
        StringBuilder header = new StringBuilder("t=").append(unixSeconds);
        for (String secret : secrets) {
            header.append(",v1=").append(hmacHex(secret, unixSeconds + "." + body));
        }
        return header.toString();
    }

    /** Whether any {@code v1} matches any of {@code secrets} (constant time) and {@code t} is within the tolerance. */
    public static boolean verify(String header, byte[] body, List<String> secrets, long nowUnixSeconds) {
        if (header == null || secrets.isEmpty()) {
            return false;
        }
        Long t = null;
        List<byte[]> signatures = new ArrayList<>();
        for (String part : header.split(",")) {
            int eq = part.indexOf('=');
            if (eq < 0) {
                continue;
            }
            String name = part.substring(0, eq).trim();
            String value = part.substring(eq + 1).trim();
            if (name.equals("t")) {
                try {
                    t = Long.parseLong(value);
                } catch (NumberFormatException malformed) {
                    return false;
                }
            } else if (name.equals("v1")) {
                signatures.add(value.getBytes(StandardCharsets.US_ASCII));
            }
        }
        if (t == null || Math.abs(nowUnixSeconds - t) > TOLERANCE.toSeconds()) {
            return false;
        }
        String payload = t + "." + new String(body, StandardCharsets.UTF_8);
        boolean matched = false;
        for (String secret : secrets) {
            byte[] expected = hmacHex(secret, payload).getBytes(StandardCharsets.US_ASCII);
            for (byte[] signature : signatures) {
                // No early exit: the time taken says nothing about which secret or signature matched.
                matched |= MessageDigest.isEqual(expected, signature);
            }
        }
        return matched;
    }

    static String hmacHex(String secret, String payload) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(secret.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
            return HexFormat.of().formatHex(mac.doFinal(payload.getBytes(StandardCharsets.UTF_8)));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 is part of every JDK", e);
        }
    }
}
