package dev.oncepay.provider.psp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.oncepay.payment.PaymentStatus;
import dev.oncepay.provider.webhook.MalformedEventException;
import dev.oncepay.provider.webhook.ProviderEvent;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The generic PSP's event format, read from verified bodies. */
class PspWebhookFormatTest {
    private static ProviderEvent parse(String json) {
        return PspWebhookFormat.parse(json.getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void readsAChargeEventAndIgnoresUnknownFields() {
        ProviderEvent e = parse("{\"id\":\"evt_1\",\"type\":\"charge.failed\",\"created\":1,\"livemode\":false,"
                + "\"data\":{\"chargeId\":\"ch_1\",\"reference\":\"pay_1\",\"status\":\"failed\",\"amount\":4200,"
                + "\"currency\":\"eur\",\"declineCode\":\"card_declined\",\"extra\":[1]}}");
        assertEquals("evt_1", e.id());
        assertEquals("pay_1", e.reference());
        ProviderEvent.ChargeFact fact = e.fact().orElseThrow();
        assertEquals(PaymentStatus.FAILED, fact.outcome());
        assertEquals(4200, fact.amount());
        assertEquals("EUR", fact.currency(), "currency codes compare in upper case");
        assertEquals("card_declined", fact.declineCode());
    }

    @Test
    void keepsOtherTypesForAuditWithoutValidatingThem() {
        ProviderEvent e = parse("{\"id\":\"evt_2\",\"type\":\"charge.refund.updated\",\"data\":{\"reference\":\"pay_9\","
                + "\"amount\":\"weird\"}}");
        assertFalse(e.fact().isPresent());
        assertEquals(ProviderEvent.Kind.IGNORED_TYPE, e.kind());
        assertEquals("pay_9", e.reference());
        assertNull(parse("{\"id\":\"evt_3\",\"type\":\"ping\"}").reference());
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "not json|body",
        "[1,2]|body",
        "\"evt\"|body",
        "{\"id\":\"evt_1\",\"id\":\"evt_2\",\"type\":\"ping\"}|body",
        "{\"type\":\"ping\"}|id",
        "{\"id\":\"\",\"type\":\"ping\"}|id",
        "{\"id\":\"evt 1\",\"type\":\"ping\"}|id",
        "{\"id\":7,\"type\":\"ping\"}|id",
        "{\"id\":\"evt_1\"}|type",
        "{\"id\":\"evt_1\",\"type\":\"charge.succeeded\"}|data",
        "{\"id\":\"evt_1\",\"type\":\"charge.succeeded\",\"data\":{\"amount\":1,\"currency\":\"EUR\"}}|data.reference",
        "{\"id\":\"evt_1\",\"type\":\"charge.succeeded\",\"data\":{\"reference\":\"p\",\"amount\":1.5,\"currency\":\"EUR\"}}|data.amount",
        "{\"id\":\"evt_1\",\"type\":\"charge.succeeded\",\"data\":{\"reference\":\"p\",\"amount\":-1,\"currency\":\"EUR\"}}|data.amount",
        "{\"id\":\"evt_1\",\"type\":\"charge.succeeded\",\"data\":{\"reference\":\"p\",\"amount\":1,\"currency\":\"EURO\"}}|data.currency",
        "{\"id\":\"evt_1\",\"type\":\"charge.succeeded\",\"data\":{\"reference\":\"p\",\"amount\":1,\"currency\":\"EUR\",\"status\":\"failed\"}}|data.status" })
    void rejectsMalformedEvents(String json, String field) {
        MalformedEventException e = assertThrows(MalformedEventException.class, () -> parse(json));
        assertEquals(field, e.field());
    }

    @Test
    void rejectsEmptyAndNonUtf8Bodies() {
        assertEquals("body", assertThrows(MalformedEventException.class, () -> PspWebhookFormat.parse(new byte[0])).field());
        byte[] latin1 = "{\"id\":\"caf\u00e9\"}".getBytes(StandardCharsets.ISO_8859_1);
        assertTrue(assertThrows(MalformedEventException.class, () -> PspWebhookFormat.parse(latin1)).reason()
                .contains("UTF-8"));
    }
}
