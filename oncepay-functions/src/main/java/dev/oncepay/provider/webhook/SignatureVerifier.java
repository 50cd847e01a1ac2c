package dev.oncepay.provider.webhook;

import dev.oncepay.config.SigningSecret;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Verifies a {@code t=<unix seconds>,v1=<hex>[,v1=<hex>...]} signature header: the hex
 * HMAC-SHA256 of {@code "<t>.<raw body>"} under any active secret must equal any {@code v1}
 * (constant-time comparison, over every secret and signature), and {@code t} must be within the tolerance of our clock in either
 * direction, which bounds how long a captured request can be replayed. Stripe's scheme
 * ({@code Stripe-Signature}), and the generic PSP's ({@code Payment-Signature}): one verifier per
 * header name. It answers which account's secret verified, so a fact speaks only for that
 * account's payments. Pure: no I/O, no logging.
 */
public final class SignatureVerifier {
    /** A real header is ~80 characters per signature; anything far larger is not one. */
    static final int MAX_HEADER_LENGTH = 2048;
    /** Rotation needs two or three; bounding them bounds the work an unauthenticated request causes. */
    static final int MAX_SIGNATURES = 8;
    private static final int MAC_BYTES = 32;
    private static final int MAX_TIMESTAMP_DIGITS = 12;
    private static final HexFormat HEX = HexFormat.of();

    private final String headerName;

    /** @param headerName the header that carries the signature, for error messages */
    public SignatureVerifier(String headerName) {
        this.headerName = headerName;
    }

    public String headerName() {
        return headerName;
    }

    /**
     * @param secrets the provider's active secrets, each with its account (at least one)
     * @return the account whose secret made a signature in the header
     * @throws InvalidSignatureException for a missing or malformed header, a timestamp outside the
     *         tolerance, no signature made with any active secret, or signatures made with the
     *         secrets of more than one account
     */
    public String verify(String header, byte[] rawBody, List<SigningSecret> secrets, Instant now, Duration tolerance) {
        Parsed parsed = parse(header);
        long age = now.getEpochSecond() - parsed.timestamp();
        if (Math.abs(age) > tolerance.toSeconds()) {
            throw new InvalidSignatureException(age > 0 ? "timestamp too old" : "timestamp in the future");
        }
        boolean[] matched = new boolean[secrets.size()];
        for (int i = 0; i < secrets.size(); i++) {
            byte[] expected = hmac(secrets.get(i).secret(), parsed.timestampText(), rawBody);
            for (byte[] candidate : parsed.signatures()) {
                // Constant time per comparison; every pair is compared, so timing says nothing of which matched.
                matched[i] |= MessageDigest.isEqual(expected, candidate);
            }
        }
        Set<String> accounts = new TreeSet<>();
        for (int i = 0; i < matched.length; i++) {
            if (matched[i]) {
                accounts.add(secrets.get(i).account());
            }
        }
        if (accounts.isEmpty()) {
            throw new InvalidSignatureException("no signature matches an active secret");
        }
        if (accounts.size() > 1) {
            // Which account speaks would be a guess; the startup check refuses a secret shared by two accounts.
            throw new InvalidSignatureException("signatures match the secrets of more than one account");
        }
        return accounts.iterator().next();
    }

    static byte[] hmac(String secret, String timestampText, byte[] rawBody) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(secret.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
            mac.update(timestampText.getBytes(StandardCharsets.US_ASCII));
            mac.update((byte) '.');
            return mac.doFinal(rawBody);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 is part of every JDK", e);
        }
    }

    private record Parsed(long timestamp, String timestampText, List<byte[]> signatures) {
    }

    private Parsed parse(String header) {
        if (header == null || header.isBlank()) {
            throw new InvalidSignatureException("missing " + headerName + " header");
        }
        if (header.length() > MAX_HEADER_LENGTH) {
            throw new InvalidSignatureException(headerName + " header too long");
        }
        String timestampText = null;
        List<byte[]> signatures = new ArrayList<>();
        for (String part : header.split(",", -1)) {
            int eq = part.indexOf('=');
            if (eq <= 0) {
                throw new InvalidSignatureException("malformed " + headerName + " header");
            }
            String name = part.substring(0, eq).trim();
            String value = part.substring(eq + 1).trim();
            switch (name) {
                case "t" -> {
                    if (timestampText != null || !isTimestamp(value)) {
                        throw new InvalidSignatureException("malformed " + headerName + " timestamp");
                    }
                    timestampText = value;
                }
                case "v1" -> {
                    if (value.length() != MAC_BYTES * 2) {
                        throw new InvalidSignatureException("malformed " + headerName + " v1");
                    }
                    try {
                        signatures.add(HEX.parseHex(value));
                    } catch (IllegalArgumentException notHex) {
                        throw new InvalidSignatureException("malformed " + headerName + " v1");
                    }
                    if (signatures.size() > MAX_SIGNATURES) {
                        throw new InvalidSignatureException("too many signatures");
                    }
                }
                default -> {
                    // Other schemes (v0, future versions) are ignored, as Stripe does; they never verify.
                }
            }
        }
        if (timestampText == null) {
            throw new InvalidSignatureException(headerName + " has no timestamp");
        }
        if (signatures.isEmpty()) {
            throw new InvalidSignatureException(headerName + " has no v1 signature");
        }
        return new Parsed(Long.parseLong(timestampText), timestampText, signatures);
    }

    private static boolean isTimestamp(String value) {
        if (value.isEmpty() || value.length() > MAX_TIMESTAMP_DIGITS) {
            return false;
        }
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (c < '0' || c > '9') {
                return false;
            }
        }
        return true;
    }
}
