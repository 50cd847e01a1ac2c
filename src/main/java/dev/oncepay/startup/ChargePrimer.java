package dev.oncepay.startup;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.oncepay.admin.AdminHttp;
import dev.oncepay.charge.PaymentsHttp;
import dev.oncepay.config.DeploymentSettings;
import dev.oncepay.config.OncepayConfig;
import dev.oncepay.payment.ProviderAccount;
import dev.oncepay.provider.FleetBreaker;
import dev.oncepay.provider.ProviderAccounts;
import dev.oncepay.provider.ProviderClients;
import dev.oncepay.provider.ProviderOperation;
import dev.oncepay.provider.sim.PspAdapter;
import dev.oncepay.provider.sim.PspChargeRequest;
import jakarta.enterprise.context.ApplicationScoped;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The charge function's path: a {@code GET /payments/{id}} of a payment that cannot exist (one
 * consistent GetItem), a {@code POST /payments} that validation refuses (before any store access),
 * the operator API refusing a caller without identity, the REST clients of the configured provider
 * accounts built and a charge body serialised (nothing sent), and one read of the default
 * account's fleet breaker. No Answers metric and no request log line: it calls the handlers below
 * {@code RequestLog}.
 */
@ApplicationScoped
class ChargePrimer implements Primer {
    /** Well formed but never issued: a payment id is a version-4 UUID, whose 13th hex digit is 4. */
    static final String NEVER_ISSUED_ID = "pay_" + "0".repeat(32);

    private final PaymentsHttp payments;
    private final AdminHttp admin;
    private final ProviderAccounts accounts;
    private final FleetBreaker breaker;
    private final ObjectMapper json;
    private final String tenantClaim;

    ChargePrimer(PaymentsHttp payments, AdminHttp admin, ProviderAccounts accounts, FleetBreaker breaker,
            ObjectMapper json, OncepayConfig config) {
        this.payments = payments;
        this.admin = admin;
        this.accounts = accounts;
        this.breaker = breaker;
        this.json = json;
        this.tenantClaim = config.tenant().claim();
    }

    @Override
    public String function() {
        return DeploymentSettings.FUNCTION_CHARGE;
    }

    @Override
    public List<String> prime(SyntheticEvents events) {
        List<String> done = new ArrayList<>();
        int found = events.written(payments.handle(events.http("GET /payments/{id}", "/payments/" + NEVER_ISSUED_ID,
                Map.of("id", NEVER_ISSUED_ID), tenantClaim, Map.of("accept", "application/json"), null)));
        done.add("GET /payments/{id} " + found);
        int refused = events.written(payments.handle(events.http("POST /payments", "/payments", Map.of(), tenantClaim,
                Map.of("content-type", "application/json", "idempotency-key", SyntheticEvents.REQUEST_ID),
                "{\"amount\":0,\"currency\":\"EUR\",\"reference\":\"oncepay-priming\"}")));
        done.add("POST /payments " + refused);
        int operator = events.written(admin.handle(events.http("GET /admin/payments", "/admin/payments", Map.of(), null,
                Map.of(), null)));
        done.add("GET /admin/payments " + operator);

        Map<ProviderAccount, URI> urls = accounts.urls();
        done.add("provider clients " + ProviderClients.buildAll(urls.values()));
        for (ProviderAccount account : urls.keySet()) {
            if (account.provider().equals(PspAdapter.ID)) {
                done.add("charge body " + serialised(new PspChargeRequest(1, "EUR", NEVER_ISSUED_ID, "oncepay-priming",
                        null, null)) + " bytes");
                break;
            }
        }
        if (found >= 500) {
            // The store did not answer (the handler said so, once): no breaker read, which would fail open and count it.
            done.add("breaker not read (store unavailable)");
        } else {
            breaker.refusal(accounts.forTenant(SyntheticEvents.TENANT), ProviderOperation.CHARGE);
            done.add("breaker read");
        }
        return done;
    }

    /** The body as the REST client's Jackson provider writes it (the application's mapper), not sent. */
    private int serialised(Object body) {
        try {
            return json.writeValueAsBytes(body).length;
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }
}
