package dev.oncepay.provider.psp;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.oncepay.provider.spi.ProviderOutcome;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** Every wire status, and every word that is none: only an explicit final word is an outcome. */
class PspChargeStatusTest {

    /** The whole table, written out: a new enum value without a row here fails the test. */
    private static final Map<PspChargeStatus, Row> TABLE = new EnumMap<>(Map.of(
            PspChargeStatus.SUCCEEDED, new Row("succeeded", ProviderOutcome.SUCCEEDED),
            PspChargeStatus.DECLINED, new Row("declined", ProviderOutcome.FAILED),
            PspChargeStatus.FAILED, new Row("failed", ProviderOutcome.FAILED),
            PspChargeStatus.PROCESSING, new Row("processing", ProviderOutcome.UNKNOWN),
            PspChargeStatus.PENDING, new Row("pending", ProviderOutcome.UNKNOWN),
            PspChargeStatus.REQUIRES_ACTION, new Row("requires_action", ProviderOutcome.UNKNOWN),
            PspChargeStatus.UNRECOGNISED, new Row(null, ProviderOutcome.UNKNOWN)));

    private record Row(String wire, ProviderOutcome outcome) {
    }

    @Test
    void everyValueHasItsWordAndItsOutcome() {
        assertEquals(Set.of(PspChargeStatus.values()), TABLE.keySet());
        for (PspChargeStatus status : PspChargeStatus.values()) {
            Row row = TABLE.get(status);
            assertEquals(row.outcome(), status.outcome(), status::name);
            assertEquals(status, PspChargeStatus.fromWire(row.wire()), status::name);
            PspCharge charge = new PspCharge("ch_1", row.wire(), "pay_1", 100L, "EUR", null);
            assertEquals(row.outcome(), charge.chargeStatus().outcome(), status::name);
        }
    }

    @Test
    void onlyTheExactKnownWordsAreFinal() {
        for (String word : new String[] { "", " ", "Succeeded", "SUCCEEDED", "succeeded ", "success", "paid", "captured",
                "canceled", "refunded", "decline", "DECLINED", "requires_payment_method", "null", "0" }) {
            assertEquals(PspChargeStatus.UNRECOGNISED, PspChargeStatus.fromWire(word), word);
            assertEquals(ProviderOutcome.UNKNOWN, PspChargeStatus.fromWire(word).outcome(), word);
        }
    }

    @Test
    void noStatusMeansNotSent() {
        // NOT_SENT is for requests that provably never left; a charge with any status did.
        Set<ProviderOutcome> reachable = Arrays.stream(PspChargeStatus.values()).map(PspChargeStatus::outcome)
                .collect(Collectors.toSet());
        assertEquals(Set.of(ProviderOutcome.SUCCEEDED, ProviderOutcome.FAILED, ProviderOutcome.UNKNOWN), reachable);
    }
}
