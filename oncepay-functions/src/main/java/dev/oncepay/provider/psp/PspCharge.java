package dev.oncepay.provider.psp;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import dev.oncepay.provider.spi.FoundCharge;

/** A charge as the PSP reports it (wire record); {@code status} as sent, read through {@link #chargeStatus()}. */
@JsonIgnoreProperties(ignoreUnknown = true)
public record PspCharge(String id, String status, String reference, Long amount, String currency, String declineCode) {

    public PspChargeStatus chargeStatus() {
        return PspChargeStatus.fromWire(status);
    }

    /** The decline code the provider gave, else its status word. */
    public String declineCodeOrStatus() {
        return declineCode != null ? declineCode : status;
    }

    /** What reconcile sees of it. */
    FoundCharge found() {
        return new FoundCharge(id, chargeStatus().outcome(), status, reference, amount, currency, declineCode, null);
    }
}
