package dev.oncepay.refund;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import dev.oncepay.contract.Attr;
import dev.oncepay.contract.Table;
import dev.oncepay.testing.LambdaClient.ApiResponse;
import dev.oncepay.testing.TestEnvironment;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * The refund run dies after each of its phases; no clean-up code runs. Either the client's
 * same-key retry after the lease finishes it, or, without one, the sweep settles it: exactly one
 * refund at the provider when it was sent, none when it was not, and a reservation that matches.
 */
@QuarkusTest
@WithTestResource(value = TestEnvironment.class, scope = TestResourceScope.GLOBAL)
class RefundCrashTest extends RefundTestSupport {
    /** Past a dead run's lease, its first sweep, and the provider's lookup lag. */
    private static final Duration SETTLED_BY_THE_SWEEP = Duration.ofMinutes(10);

    @ParameterizedTest
    @EnumSource(value = RefundPhase.class, names = { "KEY_CLAIMED", "REFUND_RECORDED", "AMOUNT_RESERVED",
            "PROVIDER_ANSWERED" })
    void aRetryAfterTheLeaseFinishesTheCrashedRun(RefundPhase crashAfter) {
        String paymentId = capturedPayment(3_000);
        String key = newKey();
        hooks.crashOnceAfter(crashAfter);

        ApiResponse crashed = refund(paymentId, key, amount(1_200));
        assertEquals(-1, crashed.status(), "the invocation failed like a crashed process");
        assertEquals(409, refund(paymentId, key, amount(1_200)).status(), "in flight while the lease lasts");

        clock.advance(lease.plusSeconds(1));
        ApiResponse recovered = refund(paymentId, key, amount(1_200));

        assertEquals(201, recovered.status(), recovered.body());
        assertEquals(1, providerRefunds(paymentId).size(), "exactly one refund, whatever the dead run did");
        assertEquals(recovered.json().get("id").asText(), providerRefunds(paymentId).get(0).reference());
        assertEquals(1_200, held(paymentId));
        assertEquals(1, storedRefunds().size());
        assertEquals(recovered.body(), refund(paymentId, key, amount(1_200)).body(), "replayed from now on");
    }

    @ParameterizedTest
    @EnumSource(value = RefundPhase.class, names = { "REFUND_RECORDED", "AMOUNT_RESERVED", "PROVIDER_ANSWERED" })
    void withoutARetryTheSweepSettlesItFromTheProvidersWord(RefundPhase crashAfter) {
        String paymentId = capturedPayment(3_000);
        hooks.crashOnceAfter(crashAfter);
        assertEquals(-1, refund(paymentId, newKey(), amount(1_200)).status());
        Map<String, AttributeValue> left = storedRefunds().get(0);
        String refundId = Attr.string(left, Table.PK).substring("refund#".length());

        clock.advance(SETTLED_BY_THE_SWEEP);
        sweepRefunds(Set.of(refundId));

        JsonNode refund = showRefund(paymentId, refundId).json();
        boolean sent = crashAfter == RefundPhase.PROVIDER_ANSWERED;
        assertEquals(sent ? "succeeded" : "failed", refund.get("status").asText(), refund.toString());
        assertEquals(sent ? 1 : 0, providerRefunds(paymentId).size(), "the sweep never sends a dead run's refund");
        assertEquals(sent ? 1_200 : 0, held(paymentId), "a failed refund gives its amount back");
        if (!sent) {
            assertEquals(crashAfter == RefundPhase.REFUND_RECORDED ? "not_sent" : "not_refunded",
                    refund.get("failureCode").asText());
            assertEquals(201, refund(paymentId, newKey(), amount(3_000)).status(), "the whole amount is refundable");
        }
        assertEquals(0, sweeps.sweepOnly(Set.of(), Set.of(refundId)).refunds().examined(), "settled: out of the index");
    }
}
