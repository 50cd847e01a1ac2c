package dev.oncepay.provider.webhook;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.oncepay.config.SigningSecret;
import dev.oncepay.sim.WebhookSignature;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The signature scheme on its own, against the simulator's signer (the provider's side). */
class SignatureVerifierTest {
    private static final String SECRET = "local-sim-secret";
    private static final String ACCOUNT = "default";
    private static final Duration TOLERANCE = Duration.ofSeconds(300);
    private static final Instant NOW = Instant.parse("2026-11-30T10:00:00Z");
    private static final long T = NOW.getEpochSecond();
    private static final String BODY = "{\"id\":\"evt_1\",\"type\":\"charge.succeeded\",\"data\":{\"note\":\"Café ☕\"}}";

    private static final SignatureVerifier PAYMENT_SIGNATURE = new SignatureVerifier("Payment-Signature");

    /** Verifies with {@code secrets}, all of account {@value #ACCOUNT}. */
    private static String verify(String header, String body, List<String> secrets) {
        return verifyWith(header, body, secrets.stream().map(s -> new SigningSecret(ACCOUNT, s)).toList());
    }

    private static String verifyWith(String header, String body, List<SigningSecret> secrets) {
        return PAYMENT_SIGNATURE.verify(header, body.getBytes(StandardCharsets.UTF_8), secrets, NOW, TOLERANCE);
    }

    private static String reason(String header, String body, List<String> secrets) {
        return assertThrows(InvalidSignatureException.class, () -> verify(header, body, secrets)).getMessage();
    }

    @Test
    void acceptsTheProvidersSignatureOverNonAsciiBody() {
        assertDoesNotThrow(() -> verify(WebhookSignature.header(SECRET, BODY, T), BODY, List.of(SECRET)));
    }

    @Test
    void rejectsWrongSecretAndTamperedBody() {
        assertEquals("no signature matches an active secret",
                reason(WebhookSignature.header("other", BODY, T), BODY, List.of(SECRET)));
        assertEquals("no signature matches an active secret",
                reason(WebhookSignature.header(SECRET, BODY, T), BODY.replace("evt_1", "evt_2"), List.of(SECRET)));
        // The timestamp is signed too: moving it invalidates the signature.
        String header = WebhookSignature.header(SECRET, BODY, T).replace("t=" + T, "t=" + (T + 1));
        assertEquals("no signature matches an active secret", reason(header, BODY, List.of(SECRET)));
    }

    @Test
    void timestampToleranceBothDirectionsInclusive() {
        assertDoesNotThrow(() -> verify(WebhookSignature.header(SECRET, BODY, T - 300), BODY, List.of(SECRET)));
        assertDoesNotThrow(() -> verify(WebhookSignature.header(SECRET, BODY, T + 300), BODY, List.of(SECRET)));
        assertEquals("timestamp too old", reason(WebhookSignature.header(SECRET, BODY, T - 301), BODY, List.of(SECRET)));
        assertEquals("timestamp in the future",
                reason(WebhookSignature.header(SECRET, BODY, T + 301), BODY, List.of(SECRET)));
    }

    @Test
    void rotationAcceptsAnyActiveSecretAndAnyV1() {
        List<String> both = List.of("next-secret", SECRET);
        assertDoesNotThrow(() -> verify(WebhookSignature.header(SECRET, BODY, T), BODY, both));
        assertDoesNotThrow(() -> verify(WebhookSignature.header("next-secret", BODY, T), BODY, both));
        // The provider signs with old and new secret during its own rotation: one match is enough.
        String twoSignatures = WebhookSignature.header("retired-secret", BODY, T) + ",v1="
                + WebhookSignature.hmacHex(SECRET, T + "." + BODY);
        assertDoesNotThrow(() -> verify(twoSignatures, BODY, List.of(SECRET)));
        assertEquals("no signature matches an active secret",
                reason(WebhookSignature.header("retired-secret", BODY, T), BODY, both));
    }

    @Test
    void toleratesSpacesUpperCaseHexAndUnknownSchemes() {
        String mac = WebhookSignature.hmacHex(SECRET, T + "." + BODY);
        assertDoesNotThrow(() -> verify(" t=" + T + " , v0=abc, v1=" + mac.toUpperCase(Locale.ROOT), BODY,
                List.of(SECRET)));
    }

    @ParameterizedTest
    @ValueSource(strings = {
        "", " ", "garbage", "t=,v1=00", "v1=%MAC%", "t=%T%", "t=%T%,v1=", "t=%T%,v1=zz%MAC%",
        "t=%T%,v1=%MAC%00", "t=-5,v1=%MAC%", "t=1e9,v1=%MAC%", "t=%T%,t=%T%,v1=%MAC%", "t=%T%;v1=%MAC%",
        "t=%T%,=x,v1=%MAC%", "t=99999999999999999999,v1=%MAC%" })
    void rejectsMalformedHeaders(String template) {
        String mac = WebhookSignature.hmacHex(SECRET, T + "." + BODY);
        String header = template.replace("%T%", Long.toString(T)).replace("%MAC%", mac);
        InvalidSignatureException e = assertThrows(InvalidSignatureException.class,
                () -> verify(header, BODY, List.of(SECRET)));
        assertFalse(e.getMessage().contains(SECRET));
        assertFalse(e.getMessage().contains(mac), "the expected MAC never appears in an error");
    }

    @Test
    void rejectsMissingAndOversizedHeaders() {
        assertEquals("missing Payment-Signature header", reason(null, BODY, List.of(SECRET)));
        String huge = "t=" + T + ",v1=" + "ab".repeat(32) + ",x=" + "y".repeat(3000);
        assertEquals("Payment-Signature header too long", reason(huge, BODY, List.of(SECRET)));
        StringBuilder many = new StringBuilder("t=" + T);
        for (int i = 0; i < 9; i++) {
            many.append(",v1=").append("ab".repeat(32));
        }
        assertEquals("too many signatures", reason(many.toString(), BODY, List.of(SECRET)));
    }

    @Test
    void errorsNameTheHeaderOfTheProvidersFormat() {
        SignatureVerifier stripe = new SignatureVerifier("Stripe-Signature");
        byte[] body = BODY.getBytes(StandardCharsets.UTF_8);
        assertEquals("missing Stripe-Signature header", assertThrows(InvalidSignatureException.class,
                () -> stripe.verify(null, body, List.of(new SigningSecret(ACCOUNT, SECRET)), NOW, TOLERANCE)).getMessage());
        assertEquals("Stripe-Signature has no v1 signature", assertThrows(InvalidSignatureException.class,
                () -> stripe.verify("t=" + T, body, List.of(new SigningSecret(ACCOUNT, SECRET)), NOW, TOLERANCE))
                .getMessage());
    }

    @Test
    void answersTheAccountWhoseSecretMatchedWhicheverSecretOfItAndWhereverItIsListed() {
        List<SigningSecret> accounts = List.of(new SigningSecret("stripe-a", "a-next"), new SigningSecret("stripe-a", "a-prev"),
                new SigningSecret("stripe-b", "b-current"));
        assertEquals("stripe-a", verifyWith(WebhookSignature.header("a-next", BODY, T), BODY, accounts));
        assertEquals("stripe-a", verifyWith(WebhookSignature.header("a-prev", BODY, T), BODY, accounts));
        assertEquals("stripe-b", verifyWith(WebhookSignature.header("b-current", BODY, T), BODY, accounts));
        // The provider's own rotation of B: an unknown v1 beside B's.
        String rolling = WebhookSignature.header("b-retired", BODY, T) + ",v1=" + WebhookSignature.hmacHex("b-current", T + "." + BODY);
        assertEquals("stripe-b", verifyWith(rolling, BODY, accounts));
    }

    @Test
    void signaturesOfTwoAccountsInOneHeaderAreRefused() {
        List<SigningSecret> accounts = List.of(new SigningSecret("stripe-a", "a-current"),
                new SigningSecret("stripe-b", "b-current"));
        String both = WebhookSignature.header("a-current", BODY, T) + ",v1=" + WebhookSignature.hmacHex("b-current", T + "." + BODY);
        assertEquals("signatures match the secrets of more than one account", assertThrows(InvalidSignatureException.class,
                () -> verifyWith(both, BODY, accounts)).getMessage());
    }

    @Test
    void aSigningSecretNeverShowsItsValue() {
        assertFalse(new SigningSecret("stripe-a", "whsec_do_not_print").toString().contains("whsec_do_not_print"));
    }
}
