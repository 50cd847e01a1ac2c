package dev.oncepay.api;

import dev.oncepay.http.HttpApiEvent;
import dev.oncepay.http.HttpApiResponse;
import dev.oncepay.validation.InvalidRequestException;
import dev.oncepay.provider.webhook.InvalidSignatureException;
import dev.oncepay.provider.webhook.MalformedEventException;
import dev.oncepay.webhook.UnknownProviderException;
import dev.oncepay.webhook.WebhookDelivery;
import dev.oncepay.webhook.WebhookReceipt;
import dev.oncepay.webhook.WebhookUseCase;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.LinkedHashMap;
import java.util.Map;
import org.jboss.logging.Logger;
import software.amazon.awssdk.core.exception.SdkException;

/**
 * {@code POST /webhooks/{provider}}: API Gateway events in, responses out.
 *
 * <ul>
 * <li>{@code 200} processed or duplicate, also for unknown payments and ignored types (so the
 * provider does not retry them for days);</li>
 * <li>{@code 401} any signature failure; {@code 400} a verified body that is not an event;</li>
 * <li>{@code 404} a provider id without a webhook format or configured secrets: there is no such endpoint. Not 401,
 * which would tell the operator of a misrouted or unconfigured provider to look at secret
 * rotation instead of the route; the id is not secret (it is in the URL the provider was given).
 * Either way nothing is stored.</li>
 * </ul>
 * {@code 503} when the store fails (nothing is half-applied: a journaled event is resumed by the
 * redelivery). Anything else (a simulated crash) escapes: the invocation fails, API Gateway
 * answers 5xx and the provider redelivers.
 */
@ApplicationScoped
public class WebhooksHttp {
    private static final Logger LOG = Logger.getLogger(WebhooksHttp.class);
    public static final String PREFIX = "/webhooks/";

    private final WebhookUseCase webhooks;
    private final HttpResponses responses;
    private final ProblemMapping problems;

    public WebhooksHttp(WebhookUseCase webhooks, HttpResponses responses, ProblemMapping problems) {
        this.webhooks = webhooks;
        this.responses = responses;
        this.problems = problems;
    }

    public HttpApiResponse handle(HttpApiEvent event) {
        String provider = providerOf(event);
        if (provider == null) {
            return responses.problem(ProblemType.NOT_FOUND, "no such route");
        }
        if (!"POST".equals(event.method())) {
            return responses.problem(ProblemType.METHOD_NOT_ALLOWED, "use POST " + PREFIX + "{provider}", Map.of(),
                    Map.of("Allow", "POST"));
        }
        String requestId = event.requestContext() == null ? null : event.requestContext().requestId();
        try {
            byte[] body;
            try {
                body = event.rawBody();
            } catch (InvalidRequestException notTheSignedBytes) {
                // Bad base64, or text no bytes decode to: whatever was signed, it is not this.
                throw new InvalidSignatureException("body " + notTheSignedBytes.errors().get(0).message()
                        + ", cannot verify it");
            }
            String signature = event.header(webhooks.signatureHeaderOf(provider));
            WebhookReceipt receipt = webhooks.receive(new WebhookDelivery(provider, signature, body));
            Map<String, Object> answer = new LinkedHashMap<>();
            answer.put("received", true);
            answer.put("eventId", receipt.eventId());
            answer.put("outcome", receipt.outcome().apiName());
            answer.put("duplicate", receipt.duplicate());
            return responses.json(200, answer, Map.of());
        } catch (RuntimeException e) {
            logRefusal(provider, requestId, e);
            return problems.problemFor(e, ProblemMapping.Api.WEBHOOKS);
        }
    }

    private static void logRefusal(String provider, String requestId, RuntimeException e) {
        if (e instanceof UnknownProviderException) {
            LOG.warnf("webhook for unconfigured provider=%s requestId=%s", provider, requestId);
        } else if (e instanceof InvalidSignatureException) {
            // The reason only: never the header, the body or a secret.
            LOG.warnf("webhook rejected provider=%s requestId=%s: %s", provider, requestId, e.getMessage());
        } else if (e instanceof MalformedEventException) {
            LOG.warnf("webhook malformed provider=%s requestId=%s: %s", provider, requestId, e.getMessage());
        } else if (e instanceof SdkException) {
            // Journaled at most (RECEIVED): the provider's redelivery resumes it. A 503, not a
            // failed invocation, so the provider sees a clear "try again" and our logs say why.
            LOG.warnf("webhook store unavailable provider=%s requestId=%s: %s: %s", provider, requestId,
                    e.getClass().getSimpleName(), e.getMessage());
        }
    }

    /** {@code {provider}} from the route's path parameter, or from the path for a catch-all route. */
    static String providerOf(HttpApiEvent event) {
        String provider = event.pathParameter("provider");
        if (provider == null) {
            String path = event.path();
            if (path == null || !path.startsWith(PREFIX)) {
                return null;
            }
            provider = path.substring(PREFIX.length());
        }
        if (provider.isEmpty() || provider.length() > 64 || !provider.chars().allMatch(
                c -> (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_')) {
            return null;
        }
        return provider;
    }
}
