package dev.oncepay.events;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.oncepay.contract.DeploymentSettings;
import dev.oncepay.payment.MerchantEventType;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

class MerchantEventTypeTest {
    @Test
    void theTypesTheFunctionsSendAreTheOnesInfraAcceptsInEndpointSettings() {
        assertEquals(DeploymentSettings.EVENT_TYPES,
                Arrays.stream(MerchantEventType.values()).map(MerchantEventType::wireName).toList());
    }
}
