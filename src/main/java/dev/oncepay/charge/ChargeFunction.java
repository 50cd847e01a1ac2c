package dev.oncepay.charge;

import dev.oncepay.http.HttpApiEvent;
import dev.oncepay.http.HttpApiResponse;
import io.quarkus.funqy.Funq;
import jakarta.inject.Inject;

/** The {@code charge} Lambda: API Gateway HTTP API events for {@code /payments}. */
public class ChargeFunction {
    @Inject
    PaymentsHttp payments;

    @Funq("charge")
    public HttpApiResponse charge(HttpApiEvent event) {
        return payments.handle(event);
    }
}
