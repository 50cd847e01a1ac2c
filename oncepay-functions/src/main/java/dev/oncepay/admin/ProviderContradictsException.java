package dev.oncepay.admin;

import dev.oncepay.provider.spi.FoundCharge;
import java.util.List;

/** What the provider says contradicts the resolution, and it carries no override: 409, nothing written. */
public class ProviderContradictsException extends RuntimeException {
    private final List<FoundCharge> charges;

    ProviderContradictsException(String detail, List<FoundCharge> charges) {
        super(detail);
        this.charges = List.copyOf(charges);
    }

    /** The provider's charges for the payment, as it reported them. */
    public List<FoundCharge> charges() {
        return charges;
    }
}
