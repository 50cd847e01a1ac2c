package dev.oncepay.function;

import dev.oncepay.api.AdminHttp;
import dev.oncepay.api.PaymentsHttp;
import dev.oncepay.http.HttpApiEvent;
import dev.oncepay.http.HttpApiResponse;
import dev.oncepay.api.RequestLog;
import dev.oncepay.api.WalletsHttp;
import io.quarkus.funqy.Funq;
import jakarta.inject.Inject;

/**
 * The {@code charge} Lambda: API Gateway HTTP API events for {@code /payments} and {@code /wallets}, and for the
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
    @Inject
    WalletsHttp wallets;

    @Funq("charge")
    public HttpApiResponse charge(HttpApiEvent event) {
        return requests.answer("charge", event, e -> {
            String path = e.path() == null ? "" : e.path();
            if (path.startsWith(AdminHttp.PREFIX)) {
                return admin.handle(e);
            }
            return path.startsWith(WalletsHttp.PREFIX) ? wallets.handle(e) : payments.handle(e);
        });
    }
}
