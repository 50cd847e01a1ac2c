package dev.oncepay.charge;

import dev.oncepay.admin.AdminHttp;
import dev.oncepay.http.HttpApiEvent;
import dev.oncepay.http.HttpApiResponse;
import dev.oncepay.http.RequestLog;
import io.quarkus.funqy.Funq;
import jakarta.inject.Inject;

/**
 * The {@code charge} Lambda: API Gateway HTTP API events for {@code /payments}, and for the
 * operator API under {@code /admin/} (it needs exactly charge's permissions: the table and the
 * provider API keys to ask the provider; infra puts IAM authorization on those routes).
 */
public class ChargeFunction {
    @Inject
    PaymentsHttp payments;
    @Inject
    RequestLog requests;
    @Inject
    AdminHttp admin;

    @Funq("charge")
    public HttpApiResponse charge(HttpApiEvent event) {
        return requests.answer("charge", event, e -> e.path() != null && e.path().startsWith(AdminHttp.PREFIX)
                ? admin.handle(e) : payments.handle(e));
    }
}
