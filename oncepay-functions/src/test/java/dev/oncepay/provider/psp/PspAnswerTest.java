package dev.oncepay.provider.psp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.oncepay.payment.Payment;
import dev.oncepay.payment.PaymentStatus;
import dev.oncepay.payment.ProviderAccount;
import dev.oncepay.provider.spi.ChargeResult;
import dev.oncepay.provider.spi.IndeterminateProviderFault;
import dev.oncepay.provider.spi.ProviderOutcome;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * How a provider answer is read, without the HTTP around it (the function tests in
 * {@code charge.HostileProviderTest} and {@code reconcile.HostileLookupTest} drive the same
 * answers through the simulator): only an explicit final answer is an outcome.
 */
class PspAnswerTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Payment SENT = new Payment("pay_1", "t", PaymentStatus.PENDING, 4200, "EUR", "order_1", null,
            null, null, null, Instant.EPOCH, Instant.EPOCH, 1, 0, new ProviderAccount("sim", "default"), Instant.EPOCH,
            null, null);

    private static ChargeResult charge(int status, String body) {
        return new PspAnswer(status, body).toChargeResult(SENT, JSON);
    }

    private static String chargeJson(String status) {
        return "{\"id\":\"ch_1\",\"status\":" + (status == null ? "null" : "\"" + status + "\"")
                + ",\"reference\":\"pay_1\",\"amount\":4200,\"currency\":\"EUR\"}";
    }

    @Test
    void a2xxIsFinalOnlyWhenItSaysSo() {
        assertEquals(ChargeResult.succeeded("ch_1"), charge(200, chargeJson("succeeded")));
        assertEquals(ChargeResult.succeeded("ch_1"), charge(201, chargeJson("succeeded")));
        assertEquals(ChargeResult.failed("ch_1", "declined"), charge(200, chargeJson("declined")));
        assertEquals(ChargeResult.failed("ch_1", "insufficient_funds"), charge(200,
                chargeJson("failed").replace("}", ",\"declineCode\":\"insufficient_funds\"}")));
        for (String notFinal : new String[] { "processing", "pending", "requires_action", "Succeeded", "", null }) {
            assertEquals(ProviderOutcome.UNKNOWN, charge(200, chargeJson(notFinal)).outcome(), String.valueOf(notFinal));
        }
    }

    @Test
    void a2xxWithoutAReadableChargeOfOursIsUnknown() {
        for (String body : new String[] { null, "", "  ", "not json", "<html>502 Bad Gateway</html>", "{\"id\":",
                "[]", "\"succeeded\"", "{}", "{\"status\":\"succeeded\"}", "{\"object\":\"charge\"}",
                "{\"id\":\"ch_1\",\"status\":\"succeeded\",\"amount\":\"lots\"}",
                chargeJson("succeeded").replace("pay_1", "pay_2"),
                chargeJson("succeeded").replace("4200", "4300"),
                chargeJson("declined").replace("EUR", "USD") }) {
            assertEquals(ProviderOutcome.UNKNOWN, charge(200, body).outcome(), String.valueOf(body));
        }
        assertEquals(ProviderOutcome.UNKNOWN, charge(204, null).outcome());
        assertEquals(ProviderOutcome.UNKNOWN, charge(202, chargeJson("processing")).outcome());
    }

    @Test
    void only402AndARejectedRequestAreFailuresAmongTheOtherCodes() {
        assertEquals(ChargeResult.failed(null, "card_declined"), charge(402, null));
        assertEquals(ChargeResult.failed(null, "expired_card"), charge(402, "{\"error\":{\"code\":\"expired_card\"}}"));
        assertEquals(ChargeResult.failed(null, "card_declined"), charge(402, "garbage"));
        for (int rejected : new int[] { 400, 404, 422 }) {
            assertEquals(ChargeResult.failed(null, "provider_rejected_" + rejected), charge(rejected, "{}"));
        }
        for (int unclear : new int[] { 100, 301, 302, 304, 405, 410, 413, 415, 418, 451 }) {
            assertEquals(ProviderOutcome.UNKNOWN, charge(unclear, chargeJson("declined")).outcome(), "HTTP " + unclear);
        }
    }

    @Test
    void aLookupIsAListOrNoAnswer() {
        assertEquals(List.of(), new PspAnswer(200, "{\"object\":\"list\",\"data\":[]}").toLookup(JSON));
        assertEquals(List.of(new PspCharge("ch_1", "succeeded", "pay_1", 4200L, "EUR", null)),
                new PspAnswer(200, "{\"data\":[" + chargeJson("succeeded") + "]}").toLookup(JSON));
        for (String body : new String[] { null, "", "{}", "{\"object\":\"list\"}", "{\"data\":null}", "{\"data\":{}}",
                "{\"data\":\"[]\"}", "[]", "not json", "{\"data\":[1]}", "{\"data\":[{\"amount\":\"lots\"}]}" }) {
            assertThrows(IndeterminateProviderFault.class, () -> new PspAnswer(200, body).toLookup(JSON),
                    String.valueOf(body));
        }
        for (int status : new int[] { 302, 400, 402, 404 }) {
            assertThrows(IndeterminateProviderFault.class, () -> new PspAnswer(status, "{\"data\":[]}").toLookup(JSON)
                    .size(), "HTTP " + status);
        }
    }
}
