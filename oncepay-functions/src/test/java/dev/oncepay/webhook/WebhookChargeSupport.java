package dev.oncepay.webhook;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.oncepay.api.PaymentsHttp;
import dev.oncepay.http.HttpApiEvent;
import dev.oncepay.http.HttpApiResponse;
import dev.oncepay.payment.PaymentRepository;
import dev.oncepay.sim.PspSimulator;
import dev.oncepay.testkit.HttpApiEvents;
import dev.oncepay.testing.TestClock;
import dev.oncepay.testing.TestEnvironment;
import jakarta.inject.Inject;
import java.io.IOException;
import org.junit.jupiter.api.BeforeEach;

/**
 * Tests in which a charge meets the provider's webhook. The webhook application exports
 * {@code webhook}, so the charge side is called through its HTTP adapter bean with real API
 * Gateway event JSON; the webhook through the function's entry point.
 */
abstract class WebhookChargeSupport {
    @Inject
    PaymentsHttp paymentsHttp;
    @Inject
    PaymentRepository payments;
    @Inject
    TestClock clock;
    @Inject
    ObjectMapper json;

    final PspSimulator simulator = TestEnvironment.simulator();

    @BeforeEach
    void resetClockAndProvider() {
        clock.reset();
        simulator.reset();
        simulator.clearWebhookTarget();
    }

    /** {@code POST /payments} of {@code tenant} with this key and body, as API Gateway delivers it. */
    HttpApiResponse postPayment(String tenant, String key, String body) {
        return handle(HttpApiEvents.postPayment(tenant, key, body));
    }

    /** Any request of the public API ({@code /payments…}), as API Gateway delivers it. */
    HttpApiResponse handle(HttpApiEvents event) {
        try {
            return paymentsHttp.handle(json.readValue(event.json(), HttpApiEvent.class));
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }
}
