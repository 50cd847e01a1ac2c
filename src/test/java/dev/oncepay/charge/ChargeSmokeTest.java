package dev.oncepay.charge;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.oncepay.testing.HttpApiEvents;
import dev.oncepay.testing.LambdaClient;
import dev.oncepay.testing.LambdaClient.ApiResponse;
import dev.oncepay.testing.TestEnvironment;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import java.util.UUID;
import org.junit.jupiter.api.Test;

@QuarkusTest
@WithTestResource(value = TestEnvironment.class, scope = TestResourceScope.GLOBAL)
class ChargeSmokeTest {
    @Test
    void chargesAndReplays() {
        String key = UUID.randomUUID().toString();
        String body = "{\"amount\":4200,\"currency\":\"EUR\",\"reference\":\"order_1\"}";
        System.out.println("API=" + TestEnvironment.lambdaEndpoint());
        ApiResponse first = LambdaClient.call(HttpApiEvents.postPayment("merchant-a", key, body));
        System.out.println(first);
        assertEquals(201, first.status());
        ApiResponse second = LambdaClient.call(HttpApiEvents.postPayment("merchant-a", key, body));
        System.out.println(second);
        assertEquals(201, second.status());
        assertEquals(first.body(), second.body());
    }
}
