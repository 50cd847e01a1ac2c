package dev.oncepay.webhook;

import dev.oncepay.http.HttpApiEvent;
import dev.oncepay.http.HttpApiResponse;
import dev.oncepay.http.RequestLog;
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
