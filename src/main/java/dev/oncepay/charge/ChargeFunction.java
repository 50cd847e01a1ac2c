package dev.oncepay.charge;

import dev.oncepay.http.HttpApiEvent;
import dev.oncepay.http.HttpApiResponse;
import dev.oncepay.http.RequestLog;
import io.quarkus.funqy.Funq;
import jakarta.inject.Inject;

/** The {@code charge} Lambda: API Gateway HTTP API events for {@code /payments}. */
public class ChargeFunction {
    @Inject
    PaymentsHttp payments;
    @Inject
    RequestLog requests;

    @Funq("charge")
    public HttpApiResponse charge(HttpApiEvent event) {
        return requests.answer("charge", event, payments::handle);
    }
}
