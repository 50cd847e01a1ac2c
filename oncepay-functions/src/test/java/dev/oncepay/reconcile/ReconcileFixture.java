package dev.oncepay.reconcile;

import dev.oncepay.payment.Actor;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.oncepay.api.PaymentsHttp;
import dev.oncepay.http.HttpApiEvent;
import dev.oncepay.http.HttpApiResponse;
import dev.oncepay.payment.Payment;
import dev.oncepay.payment.PaymentRepository;
import dev.oncepay.payment.PaymentRepository.SweepState;
import dev.oncepay.payment.PaymentStatus;
import dev.oncepay.payment.ProviderAccount;
import dev.oncepay.provider.policy.FleetBreakers;
import dev.oncepay.provider.ProviderAccounts;
import dev.oncepay.payment.Transition;
import dev.oncepay.sim.Faults;
import dev.oncepay.sim.LedgerEntry;
import dev.oncepay.sim.PspSimulator;
import dev.oncepay.contract.Attr;
import dev.oncepay.contract.Table;
import dev.oncepay.testkit.HttpApiEvents;
import dev.oncepay.testing.DirectSweep;
import dev.oncepay.testing.LambdaClient;
import dev.oncepay.testing.PhaseHooks;
import dev.oncepay.testing.StoredItems;
import dev.oncepay.testing.TestClock;
import dev.oncepay.testing.TestEnvironment;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.UUID;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/** Builds the situations reconcile meets and drives the sweep through its Lambda entry point. */
@ApplicationScoped
public class ReconcileFixture {
    static final String TENANT = "merchant-r";
    /** The default provider account, which charges {@link #TENANT}. */
    static final ProviderAccount ACCOUNT = new ProviderAccount("sim", "default");
    /** A real EventBridge "Scheduled Event" as a rule with {@code rate(1 minute)} delivers it. */
    static final String SCHEDULED_EVENT = DirectSweep.SCHEDULED_EVENT;
    /** The charge run's lease (oncepay.idempotency.lease). */
    static final Duration LEASE = Duration.ofSeconds(35);
    /**
     * The DynamoDB queries of a sweep's backlog gauges when no payment waits in UNKNOWN or PENDING:
     * per shard (4), one for the oldest UNKNOWN, one for the oldest stuck PENDING, one NEEDS_REVIEW
     * count, one cancel-pending (FAILED) count.
     */
    static final long BACKLOG_QUERIES_WHEN_NONE_WAIT = 4 * 4;
    /** The queries of the refunds' part of a sweep: one per shard of the refund sweep index. */
    static final long REFUND_SHARD_QUERIES = 4;
    private static final HttpClient HTTP = HttpClient.newHttpClient();

    @Inject
    PaymentsHttp paymentsHttp;
    @Inject
    PaymentRepository payments;
    @Inject
    ObjectMapper json;
    @Inject
    TestClock clock;
    @Inject
    PhaseHooks chargeHooks;
    @Inject
    SweepHooks sweepHooks;
    @Inject
    FleetBreakers breakers;
    @Inject
    ProviderAccounts accounts;
    @Inject
    DirectSweep sweeps;

    /** A clean slate: real time, a healthy provider, closed breakers, no hooks, empty sweep and attention indexes. */
    public void reset() {
        clock.reset();
        sim().reset();
        breakers.resetAll();
        chargeHooks.reset();
        sweepHooks.reset();
        sweeps.leaveInSweepIndexOnly(Set.of());
        emptyAttentionIndex();
    }

    PspSimulator sim() {
        return TestEnvironment.simulator();
    }

    // --- the function under test ----------------------------------------------------------------

    /** One invocation of the {@code reconcile} Lambda with a scheduled event, through the mock event server. */
    SweepSummary sweep() {
        JsonNode output = LambdaClient.invoke(SCHEDULED_EVENT.formatted(UUID.randomUUID(),
                clock.instant().truncatedTo(ChronoUnit.SECONDS)));
        assertTrue(output.has("examined"), () -> "the invocation failed: " + output);
        try {
            return json.treeToValue(output, SweepSummary.class);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    // --- payments made the way the charge function makes them -----------------------------------

    static String body(long amount, String reference) {
        return "{\"amount\":" + amount + ",\"currency\":\"EUR\",\"reference\":\"" + reference + "\"}";
    }

    HttpApiResponse post(String key, String body) {
        return handle(HttpApiEvents.postPayment(TENANT, key, body));
    }

    HttpApiResponse get(String paymentId) {
        return handle(HttpApiEvents.getPayment(TENANT, paymentId));
    }

    private HttpApiResponse handle(HttpApiEvents event) {
        try {
            return paymentsHttp.handle(json.readValue(event.json(), HttpApiEvent.class));
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * A charge whose provider call executed but whose answer never came back (the provider
     * commits, then the client times out): {@code 202}, payment UNKNOWN, one charge in the ledger.
     */
    HttpApiResponse commitThenTimeout(String key, String body, boolean declined) {
        sim().setFaults(Faults.none().withCommitThenTimeoutRate(1.0).withCommitThenTimeoutMs(3000)
                .withDeclineRate(declined ? 1.0 : 0.0));
        HttpApiResponse response = post(key, body);
        sim().setFaults(Faults.none());
        assertEquals(202, response.statusCode(), response::body);
        return response;
    }

    static String paymentId(HttpApiResponse response) {
        String location = response.header("Location");
        return location.substring(location.lastIndexOf('/') + 1);
    }

    // --- payments made directly (fast, and without feeding the charge breaker) --------------------

    /** What the provider holds for a payment made with {@link #unknownPayment}. */
    enum AtProvider { NOTHING, SUCCEEDED, DECLINED, TWO_CHARGES }

    /** An UNKNOWN payment, due now, created like the charge run creates one. */
    Payment unknownPayment(long amount, AtProvider atProvider) {
        Payment pending = pendingPayment(amount, atProvider, Duration.ZERO);
        Instant now = clock.instant();
        assertTrue(payments.apply(pending.id(), pending.tenant(), new Transition(PaymentStatus.PENDING, PaymentStatus.UNKNOWN, null, null,
                "provider call timed out", now, OptionalLong.of(pending.leaseEpoch())), Actor.SWEEP, now));
        return payments.find(pending.id()).orElseThrow();
    }

    /** A PENDING payment of epoch 1 whose run is gone, due {@code dueIn} from now. */
    Payment pendingPayment(long amount, AtProvider atProvider, Duration dueIn) {
        Instant now = clock.instant();
        String id = "pay_" + UUID.randomUUID().toString().replace("-", "");
        Payment payment = new Payment(id, TENANT, PaymentStatus.PENDING, amount, "EUR", "order-" + id.substring(4, 12),
                null, null, null, null, now, now, 1, 0, accounts.forTenant(TENANT), now.plus(LEASE), null, null);
        assertTrue(payments.createPending(payment, now.plus(dueIn)));
        switch (atProvider) {
            case NOTHING -> {
            }
            case SUCCEEDED -> chargeAtProvider(payment, payment.providerIdempotencyKey(), false);
            case DECLINED -> chargeAtProvider(payment, payment.providerIdempotencyKey(), true);
            case TWO_CHARGES -> {
                chargeAtProvider(payment, payment.providerIdempotencyKey(), false);
                chargeAtProvider(payment, "some-other-key-" + id, false);
            }
        }
        return payment;
    }

    /** Executes a charge at the provider exactly as oncepay's PSP client would send it. */
    void chargeAtProvider(Payment payment, String providerKey, boolean declined) {
        Faults before = sim().faults();
        sim().setFaults(Faults.none().withDeclineRate(declined ? 1.0 : 0.0));
        try {
            String body = json.writeValueAsString(Map.of("amount", payment.amount(), "currency", payment.currency(),
                    "reference", payment.id(), "description", payment.reference()));
            HttpResponse<String> response = HTTP.send(HttpRequest.newBuilder(URI.create(sim().baseUrl() + "/v1/charges"))
                    .header("Content-Type", "application/json").header("Idempotency-Key", providerKey)
                    .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
            assertEquals(200, response.statusCode(), response.body());
        } catch (IOException e) {
            throw new IllegalStateException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        } finally {
            sim().setFaults(before);
        }
    }

    /** Rewrites the provider account a payment records, as if another deployment had charged it. */
    void rebind(String paymentId, String provider, String account) {
        TestEnvironment.dynamo().updateItem(b -> b.tableName(TestEnvironment.TABLE)
                .key(Attr.key(PaymentRepository.pk(paymentId)))
                .updateExpression("SET #p = :p, #a = :a")
                .expressionAttributeNames(Map.of("#p", Table.PROVIDER, "#a", Table.PROVIDER_ACCOUNT))
                .expressionAttributeValues(Map.of(":p", Attr.s(provider), ":a", Attr.s(account))));
    }

    // --- reading back ---------------------------------------------------------------------------

    /** The payment id the key of this fixture's tenant holds (also when its run died before answering). */
    String onlyPaymentOf(String key) {
        return Attr.string(StoredItems.keyItem(TENANT, key).orElseThrow(), Table.PAYMENT_ID);
    }

    SweepState state(String paymentId) {
        return payments.findForSweep(paymentId).orElseThrow();
    }

    List<LedgerEntry> ledgerOf(String paymentId) {
        return sim().ledger().stream().filter(e -> e.reference().equals(paymentId)).toList();
    }

    /** Whether the payment is still listed in the sweep index (read from the table itself). */
    boolean listed(String paymentId) {
        Map<String, AttributeValue> item = TestEnvironment.dynamo().getItem(b -> b.tableName(TestEnvironment.TABLE)
                .key(Attr.key(PaymentRepository.pk(paymentId))).consistentRead(true)).item();
        return item.containsKey(Table.SWEEP_SHARD) || item.containsKey(Table.NEXT_CHECK_AT);
    }

    /**
     * Removes every payment other tests left in the attention index (those in review, and FAILED ones
     * with a cancel pending), so gauges count only a test's own.
     */
    private void emptyAttentionIndex() {
        DynamoDbClient dynamo = TestEnvironment.dynamo();
        for (PaymentStatus status : PaymentStatus.values()) {
            for (int shard = 0; shard < payments.sweepShards(); shard++) {
                String partition = status.name() + "#" + shard;
                dynamo.queryPaginator(b -> b.tableName(TestEnvironment.TABLE).indexName(Table.ATTENTION_INDEX)
                        .keyConditionExpression("#key = :key")
                        .expressionAttributeNames(Map.of("#key", Table.ATTENTION_KEY))
                        .expressionAttributeValues(Map.of(":key", Attr.s(partition))))
                        .items()
                        .forEach(item -> dynamo.deleteItem(d -> d.tableName(TestEnvironment.TABLE)
                                .key(Map.of(Table.PK, item.get(Table.PK)))));
            }
        }
    }
}
