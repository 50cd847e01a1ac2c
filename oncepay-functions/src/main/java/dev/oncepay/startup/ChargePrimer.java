package dev.oncepay.startup;

import dev.oncepay.api.AdminHttp;
import dev.oncepay.api.PaymentsHttp;
import dev.oncepay.contract.DeploymentSettings;
import dev.oncepay.config.OncepayConfig;
import dev.oncepay.provider.policy.FleetProtection;
import dev.oncepay.provider.ProviderAccounts;
import dev.oncepay.provider.spi.ProviderOperation;
import dev.oncepay.provider.ProviderPriming;
import dev.oncepay.api.WalletsHttp;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The charge function's path: a {@code GET /payments/{id}} of a payment that cannot exist (one
 * consistent GetItem), a {@code POST /payments} that validation refuses (before any store access),
 * the operator API refusing a caller without identity, a {@code GET /wallets/{walletId}} of the
 * priming tenant's never-credited wallet (one consistent GetItem), one read of the default account's fleet breaker, and a charge through each
 * adapter at a provider that answers on loopback ({@link ProviderPriming}: nothing leaves the
 * sandbox). No Answers metric and no request log line: it calls the handlers below
 * {@code RequestLog}.
 */
@ApplicationScoped
class ChargePrimer implements Primer {
    /** Well formed but never issued: a payment id is a version-4 UUID, whose 13th hex digit is 4. */
    static final String NEVER_ISSUED_ID = ProviderPriming.PAYMENT_ID;
    /** A wallet of the priming tenant, which no merchant is: read, never written. */
    private static final String PRIMING_WALLET = "oncepay-priming";

    private final PaymentsHttp http;
    private final RefusedWrites refusedWrites;
    private final AdminHttp admin;
    private final WalletsHttp wallets;
    private final ProviderAccounts accounts;
    private final FleetProtection fleet;
    private final ProviderPriming providerPriming;
    private final String tenantClaim;

    ChargePrimer(PaymentsHttp http, RefusedWrites refusedWrites, AdminHttp admin, WalletsHttp wallets, ProviderAccounts accounts,
            FleetProtection fleet, ProviderPriming providerPriming, OncepayConfig config) {
        this.http = http;
        this.refusedWrites = refusedWrites;
        this.admin = admin;
        this.wallets = wallets;
        this.accounts = accounts;
        this.fleet = fleet;
        this.providerPriming = providerPriming;
        this.tenantClaim = config.tenant().claim();
    }

    @Override
    public String function() {
        return DeploymentSettings.FUNCTION_CHARGE;
    }

    @Override
    public boolean clientsWait() {
        return true;
    }

    @Override
    public Round prime(SyntheticEvents events) {
        List<String> done = new ArrayList<>();
        int found = events.written(http.handle(events.http("GET /payments/{id}", "/payments/" + NEVER_ISSUED_ID,
                Map.of("id", NEVER_ISSUED_ID), tenantClaim, Map.of("accept", "application/json"), null)));
        done.add("GET /payments/{id} " + found);
        int refused = events.written(http.handle(events.http("POST /payments", "/payments", Map.of(), tenantClaim,
                Map.of("content-type", "application/json", "idempotency-key", SyntheticEvents.REQUEST_ID),
                "{\"amount\":0,\"currency\":\"EUR\",\"reference\":\"oncepay-priming\"}")));
        done.add("POST /payments " + refused);
        int operator = events.written(admin.handle(events.http("GET /admin/payments", "/admin/payments", Map.of(), null,
                Map.of(), null)));
        done.add("GET /admin/payments " + operator);
        int wallet = events.written(wallets.handle(events.http("GET /wallets/{walletId}", WalletsHttp.PREFIX + PRIMING_WALLET,
                Map.of("walletId", PRIMING_WALLET), tenantClaim, Map.of("accept", "application/json"), null)));
        done.add("GET /wallets/{walletId} " + wallet);

        if (found >= 500) {
            // The store did not answer (the handler said so, once): no breaker read and no provider
            // call, whose breaker reads would fail open and count it.
            done.add("breaker not read, provider path not primed (store unavailable)");
            return new Round(done, false);
        }
        done.add("provider calls " + providerPriming.chargeEachAdapter());
        done.add("writes refused " + refusedWrites.refuse());
        fleet.refusal(accounts.forTenant(SyntheticEvents.TENANT), ProviderOperation.CHARGE);
        done.add("breaker read");
        return new Round(done, true);
    }
}
