package dev.oncepay.startup;

import dev.oncepay.contract.DeploymentSettings;
import dev.oncepay.payment.PaymentRepository;
import dev.oncepay.provider.webhook.WebhookFormat;
import dev.oncepay.provider.webhook.WebhookFormats;
import dev.oncepay.webhook.WebhookConfig;
import dev.oncepay.api.WebhooksHttp;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * The webhook function's path: a delivery to a configured provider whose signature is wrong. It
 * is verified (the provider's format and HMAC) and refused {@code 401} before anything is stored;
 * the handler's WARN line for it carries the request id {@value SyntheticEvents#REQUEST_ID}. Then
 * the store path a good delivery takes: the read of its payment (one that cannot exist) and the
 * journal's and the payment's conditional writes, refused ({@link RefusedWrites}); without them a
 * sandbox's first delivery built the SDK's request path (measured: ~580 ms first invocation).
 */
@ApplicationScoped
class WebhookPrimer implements Primer {
    private final WebhooksHttp webhooks;
    private final WebhookConfig config;
    private final WebhookFormats formats;
    private final Clock clock;
    private final PaymentRepository payments;
    private final RefusedWrites refusedWrites;

    WebhookPrimer(WebhooksHttp webhooks, WebhookConfig config, WebhookFormats formats, Clock clock,
            PaymentRepository payments, RefusedWrites refusedWrites) {
        this.webhooks = webhooks;
        this.payments = payments;
        this.refusedWrites = refusedWrites;
        this.config = config;
        this.formats = formats;
        this.clock = clock;
    }

    @Override
    public String function() {
        return DeploymentSettings.FUNCTION_WEBHOOK;
    }

    /** Providers wait on its answers, but retry late ones; and each round would log its refused delivery. */
    @Override
    public boolean clientsWait() {
        return false;
    }

    @Override
    public Round prime(SyntheticEvents events) {
        String provider = new TreeSet<>(config.secrets().keySet()).stream()
                .filter(p -> formats.forProvider(p).isPresent()).findFirst().orElse("sim");
        String header = formats.forProvider(provider).map(WebhookFormat::signatureHeader).orElse("Payment-Signature");
        String body = "{\"id\":\"evt_oncepay_priming\",\"type\":\"charge.succeeded\",\"data\":{\"chargeId\":\"ch_oncepay_priming\","
                + "\"reference\":\"" + ChargePrimer.NEVER_ISSUED_ID + "\",\"status\":\"succeeded\",\"amount\":1,\"currency\":\"EUR\"}}";
        String signature = "t=" + clock.instant().getEpochSecond() + ",v1=" + "0".repeat(64);
        int status = events.written(webhooks.handle(events.http("POST /webhooks/{provider}", "/webhooks/" + provider,
                Map.of("provider", provider), null, Map.of("content-type", "application/json", header.toLowerCase(), signature),
                body)));
        // A store that cannot be reached ends the priming here; Priming says so and the function starts.
        payments.find(ChargePrimer.NEVER_ISSUED_ID);
        return new Round(List.of("POST /webhooks/" + provider + " " + status, "payment read",
                "writes refused " + refusedWrites.refuse()), true);
    }
}
