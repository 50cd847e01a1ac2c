package dev.oncepay.startup;

import dev.oncepay.admin.AdminHttp;
import dev.oncepay.charge.PaymentsHttp;
import dev.oncepay.config.DeploymentSettings;
import dev.oncepay.config.OncepayConfig;
import dev.oncepay.payment.Actor;
import dev.oncepay.payment.PaymentRepository;
import dev.oncepay.payment.PaymentStatus;
import dev.oncepay.payment.Transition;
import dev.oncepay.provider.FleetBreaker;
import dev.oncepay.provider.ProviderAccounts;
import dev.oncepay.provider.ProviderOperation;
import dev.oncepay.provider.ProviderPriming;
import dev.oncepay.store.Table;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;

/**
 * The charge function's path: a {@code GET /payments/{id}} of a payment that cannot exist (one
 * consistent GetItem), a {@code POST /payments} that validation refuses (before any store access),
 * the operator API refusing a caller without identity, one read of the default account's fleet breaker, and a charge through each
 * adapter at a provider that answers on loopback ({@link ProviderPriming}: nothing leaves the
 * sandbox). No Answers metric and no request log line: it calls the handlers below
 * {@code RequestLog}.
 */
@ApplicationScoped
class ChargePrimer implements Primer {
    /** Well formed but never issued: a payment id is a version-4 UUID, whose 13th hex digit is 4. */
    static final String NEVER_ISSUED_ID = ProviderPriming.PAYMENT_ID;

    private final PaymentsHttp http;
    private final PaymentRepository payments;
    private final DynamoDbClient dynamo;
    private final String table;
    private final AdminHttp admin;
    private final ProviderAccounts accounts;
    private final FleetBreaker breaker;
    private final ProviderPriming providerPriming;
    private final String tenantClaim;

    ChargePrimer(PaymentsHttp http, PaymentRepository payments, DynamoDbClient dynamo, AdminHttp admin, ProviderAccounts accounts, FleetBreaker breaker,
            ProviderPriming providerPriming, OncepayConfig config) {
        this.http = http;
        this.payments = payments;
        this.dynamo = dynamo;
        this.table = config.table();
        this.admin = admin;
        this.accounts = accounts;
        this.breaker = breaker;
        this.providerPriming = providerPriming;
        this.tenantClaim = config.tenant().claim();
    }

    /**
     * The write path, refused by its own conditions so that nothing is written: the settle of a
     * payment that does not exist (the repository's conditional {@code UpdateItem}) and a
     * {@code PutItem} that requires its never-existing item to exist. Both end in the
     * conditional-check failure a replay or a lost race meets. (On DynamoDB each costs one write unit.)
     */
    private String refusedWrites() {
        boolean settled = payments.apply(NEVER_ISSUED_ID, new Transition(PaymentStatus.PENDING, PaymentStatus.SUCCEEDED,
                "ch_oncepaypriming", null, "priming", null, OptionalLong.of(1)), Actor.chargeRun(1), Instant.now());
        boolean put;
        try {
            dynamo.putItem(b -> b.tableName(table).item(Map.of(Table.PK, AttributeValue.fromS(NEVER_ISSUED_ID + "#priming")))
                    .conditionExpression("attribute_exists(#pk)").expressionAttributeNames(Map.of("#pk", Table.PK)));
            put = true;
        } catch (ConditionalCheckFailedException refused) {
            put = false;
        }
        if (settled || put) {
            throw new IllegalStateException("a priming write was not refused");
        }
        return "UpdateItem, PutItem";
    }

    @Override
    public String function() {
        return DeploymentSettings.FUNCTION_CHARGE;
    }

    @Override
    public List<String> prime(SyntheticEvents events) {
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

        if (found >= 500) {
            // The store did not answer (the handler said so, once): no breaker read and no provider
            // call, whose breaker reads would fail open and count it.
            done.add("breaker not read, provider path not primed (store unavailable)");
            return done;
        }
        done.add("provider calls " + providerPriming.chargeEachAdapter());
        done.add("writes refused " + refusedWrites());
        breaker.refusal(accounts.forTenant(SyntheticEvents.TENANT), ProviderOperation.CHARGE);
        done.add("breaker read");
        return done;
    }
}
