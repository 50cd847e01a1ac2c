package dev.oncepay.function;

import dev.oncepay.api.WebhooksHttp;
import dev.oncepay.http.HttpApiEvent;
import dev.oncepay.http.HttpApiResponse;
import dev.oncepay.api.RequestLog;
import io.quarkus.funqy.Funq;
import jakarta.inject.Inject;

/** The {@code webhook} Lambda: API Gateway HTTP API events for {@code POST /webhooks/{provider}}. */
public class WebhookFunction {
    @Inject
    WebhooksHttp webhooks;
    @Inject
    RequestLog requests;

    @Funq("webhook")
    public HttpApiResponse webhook(HttpApiEvent event) {
        return requests.answer("webhook", event, webhooks::handle);
    }
}
