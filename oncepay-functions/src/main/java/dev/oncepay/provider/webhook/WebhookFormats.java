package dev.oncepay.provider.webhook;

import io.quarkus.arc.All;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** Every provider's {@link WebhookFormat}, by provider id. */
@ApplicationScoped
public class WebhookFormats {
    private final Map<String, WebhookFormat> byProvider = new HashMap<>();

    public WebhookFormats(@All List<WebhookFormat> formats) {
        for (WebhookFormat format : formats) {
            if (byProvider.put(format.providerId(), format) != null) {
                throw new IllegalStateException("two webhook formats for provider " + format.providerId());
            }
        }
    }

    public Optional<WebhookFormat> forProvider(String providerId) {
        return Optional.ofNullable(byProvider.get(providerId));
    }
}
