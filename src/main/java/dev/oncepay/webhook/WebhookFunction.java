package dev.oncepay.webhook;

import dev.oncepay.http.HttpApiEvent;
import dev.oncepay.http.HttpApiResponse;
import io.quarkus.funqy.Funq;
import jakarta.inject.Inject;

/** The {@code webhook} Lambda: API Gateway HTTP API events for {@code POST /webhooks/{provider}}. */
public class WebhookFunction {
    @Inject
    WebhooksHttp webhooks;

    @Funq("webhook")
    public HttpApiResponse webhook(HttpApiEvent event) {
        return webhooks.handle(event);
    }
}
