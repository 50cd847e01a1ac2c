package dev.oncepay.provider.psp;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.oncepay.config.ReconcileConfig;
import dev.oncepay.validation.FieldError;
import dev.oncepay.payment.Payment;
import dev.oncepay.payment.PaymentInstrument;
import dev.oncepay.payment.Refund;
import dev.oncepay.provider.spi.FoundRefund;
import dev.oncepay.provider.spi.RefundResult;
import dev.oncepay.provider.spi.AccountEndpoint;
import dev.oncepay.provider.spi.ChargeResult;
import dev.oncepay.provider.spi.FoundCharge;
import dev.oncepay.provider.spi.ProviderAdapter;
import dev.oncepay.provider.policy.ProviderCalls;
import dev.oncepay.provider.transport.ProviderHttp;
import dev.oncepay.provider.spi.ProviderReply;
import dev.oncepay.provider.spi.ReplyClass;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The generic REST PSP (provider id {@code sim}, design §4): JSON {@code POST /v1/charges},
 * {@code GET /v1/charges?reference=}, {@code POST /v1/refunds} and {@code GET /v1/refunds?reference=}. The instrument is optional here and forwarded when present.
 */
@ApplicationScoped
public class PspAdapter implements ProviderAdapter {
    public static final String ID = "sim";

    private final ObjectMapper json;
    private final ProviderHttp http;
    private final ReconcileConfig reconcile;

    public PspAdapter(ObjectMapper json, ProviderHttp http, ReconcileConfig reconcile) {
        this.json = json;
        this.http = http;
        this.reconcile = reconcile;
    }

    @Override
    public String id() {
        return ID;
    }

    @Override
    public List<FieldError> check(PaymentInstrument instrument) {
        return List.of(); // both tokens optional; their shape is checked with the request
    }

    @Override
    public ProviderReply sendCharge(AccountEndpoint endpoint, Payment payment) {
        PspChargeRequest body = new PspChargeRequest(payment.amount(), payment.currency(), payment.id(),
                payment.reference(), payment.instrument().paymentMethod(), payment.instrument().customer());
        return http.post(ProviderHttp.resolve(endpoint.baseUrl(), "/v1/charges"),
                Map.of("Authorization", bearer(endpoint), "Idempotency-Key", payment.providerIdempotencyKey()),
                "application/json", write(body));
    }

    private String write(Object body) {
        try {
            return json.writeValueAsString(body);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("a request that Jackson cannot write", e);
        }
    }

    @Override
    public ProviderReply sendRefund(AccountEndpoint endpoint, Refund refund, Payment payment) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("charge", payment.providerPaymentId());
        body.put("amount", refund.amount());
        body.put("reference", refund.id());
        if (!refund.metadata().isEmpty()) {
            body.put("metadata", refund.metadata());
        }
        return http.post(ProviderHttp.resolve(endpoint.baseUrl(), "/v1/refunds"),
                Map.of("Authorization", bearer(endpoint), "Idempotency-Key", refund.providerIdempotencyKey()),
                "application/json", write(body));
    }

    @Override
    public RefundResult readRefund(ProviderReply answer, Refund refund) {
        return new PspAnswer(answer.status(), answer.body()).toRefundResult(refund, json);
    }

    @Override
    public ProviderReply sendRefundLookup(AccountEndpoint endpoint, Refund refund, Payment payment) {
        return http.get(ProviderHttp.resolve(endpoint.baseUrl(), "/v1/refunds?reference=" + ProviderHttp.encoded(refund.id())),
                Map.of("Authorization", bearer(endpoint)));
    }

    @Override
    public List<FoundRefund> readRefundLookup(ProviderReply answer, Refund refund) {
        return new PspAnswer(answer.status(), answer.body()).toRefundLookup(json).stream().map(PspRefund::found)
                .toList();
    }

    @Override
    public ProviderReply sendLookup(AccountEndpoint endpoint, Payment payment) {
        return http.get(ProviderHttp.resolve(endpoint.baseUrl(), "/v1/charges?reference=" + ProviderHttp.encoded(payment.id())),
                Map.of("Authorization", bearer(endpoint)));
    }

    /**
     * {@code 5xx}: may have been executed, retried with the same key; {@code 408}/{@code 429}:
     * refused before execution; {@code 409}: the key is still in flight at the provider (an earlier
     * attempt of ours may be running there), asked again with the same key, whose payload never
     * changes; {@code 401}/{@code 403}: our credentials. Anything else is an answer to read.
     */
    @Override
    public ReplyClass classify(ProviderReply reply) {
        int status = reply.status();
        Duration retryAfter = ProviderCalls.retryAfter(reply.header("Retry-After"));
        if (status >= 500) {
            return new ReplyClass.Retry("provider answered HTTP " + status, true, retryAfter);
        }
        if (status == 408 || status == 429) {
            return new ReplyClass.Retry("provider answered HTTP " + status, false, retryAfter);
        }
        if (status == 409) {
            return new ReplyClass.Retry("provider reports the key in flight (HTTP 409)", true, retryAfter);
        }
        if (status == 401 || status == 403) {
            return new ReplyClass.CredentialsRefused("provider refused our credentials (HTTP " + status + ")");
        }
        return new ReplyClass.Answer();
    }

    @Override
    public ChargeResult readCharge(ProviderReply answer, Payment payment) {
        return new PspAnswer(answer.status(), answer.body()).toChargeResult(payment, json);
    }

    @Override
    public List<FoundCharge> readLookup(ProviderReply answer, Payment payment) {
        return new PspAnswer(answer.status(), answer.body()).toLookup(json).stream().map(PspCharge::found).toList();
    }

    /**
     * A generic PSP promises nothing about how soon its lookups list a charge: the visibility lag
     * oncepay assumes of every provider, unless the account declares its own.
     */
    @Override
    public Duration defaultLookupLag() {
        return reconcile.providerVisibilityLag();
    }

    private static String bearer(AccountEndpoint endpoint) {
        return "Bearer " + endpoint.apiKey();
    }
}
