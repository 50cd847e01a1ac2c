package dev.oncepay.store;

import dev.oncepay.contract.Attr;
import dev.oncepay.contract.Table;
import dev.oncepay.contract.TableSchema;

import dev.oncepay.events.EventRelay;
import dev.oncepay.events.MerchantEndpoints;
import dev.oncepay.events.MerchantEvents;
import dev.oncepay.queue.EventQueue;
import dev.oncepay.payment.Actor;
import dev.oncepay.payment.HistoryEntry;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.oncepay.config.EmbeddedMetrics;
import dev.oncepay.config.OncepayConfig;
import dev.oncepay.idempotency.ClaimAttempt;
import dev.oncepay.idempotency.ClaimAttempt.ExistingKey;
import dev.oncepay.idempotency.ClaimAttempt.KeyClaim;
import dev.oncepay.idempotency.DynamoIdempotencyStore;
import dev.oncepay.idempotency.IdempotencyKey;
import dev.oncepay.idempotency.KeyRecord;
import dev.oncepay.idempotency.RequestFingerprint;
import dev.oncepay.payment.Payment;
import dev.oncepay.payment.PaymentRepository;
import dev.oncepay.payment.PaymentStatus;
import dev.oncepay.payment.ReviewReason;
import dev.oncepay.payment.ProviderAccount;
import dev.oncepay.payment.Transition;
import io.smallrye.config.SmallRyeConfigBuilder;
import io.quarkus.runtime.configuration.DurationConverter;
import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.SdkRequest;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.GetItemRequest;
import software.amazon.awssdk.services.dynamodb.model.GetItemResponse;
import software.amazon.awssdk.services.dynamodb.model.PutItemRequest;

/**
 * The contract oncepay needs from its DynamoDB-compatible store, exercised on the real
 * {@link DynamoIdempotencyStore} and {@link PaymentRepository} (no Quarkus): every decision is one
 * conditional write on one item, and racing writers get exactly one winner. Subclasses supply the
 * store: dynalite always, LocalStack where Docker exists.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
public abstract class StoreContract {
    private static final Instant LATER = Instant.now().plusSeconds(70);

    /** Where the store listens and how to sign requests to it. */
    protected record StoreEndpoint(URI uri, String region, String accessKey, String secretKey) {
    }

    /** Starts the store (once per class). */
    protected abstract StoreEndpoint startStore();

    protected abstract void stopStore();

    /**
     * Whether a failed conditional write returns the old item when asked
     * ({@code ReturnValuesOnConditionCheckFailure=ALL_OLD}); real DynamoDB and LocalStack do,
     * dynalite ignores the parameter.
     */
    protected abstract boolean returnsOldItemOnConditionFailure();

    protected final RequestLog requests = new RequestLog();
    protected DynamoDbClient dynamo;
    protected String table;
    protected DynamoIdempotencyStore keys;
    protected PaymentRepository payments;

    /** Timestamps at the precision the store keeps: lease millis, expiry seconds. */
    protected Instant now;

    @BeforeAll
    void connect() {
        StoreEndpoint endpoint = startStore();
        dynamo = DynamoDbClient.builder()
                .endpointOverride(endpoint.uri())
                .region(Region.of(endpoint.region()))
                .credentialsProvider(StaticCredentialsProvider.create(
                        AwsBasicCredentials.create(endpoint.accessKey(), endpoint.secretKey())))
                .httpClient(UrlConnectionHttpClient.create())
                .overrideConfiguration(c -> c.addExecutionInterceptor(requests))
                .build();
        table = "contract-" + UUID.randomUUID().toString().substring(0, 8);
        TableSchema.createIfMissing(dynamo, table);
        OncepayConfig config = new SmallRyeConfigBuilder()
                .withMapping(OncepayConfig.class)
                // Quarkus' own converter, so "35S"-style defaults read as they do in the application.
                .withConverter(Duration.class, 100, new DurationConverter())
                .withDefaultValue("oncepay.table", table)
                .withDefaultValue("oncepay.provider.api-key", "unused-by-the-store")
                .build()
                .getConfigMapping(OncepayConfig.class);
        keys = new DynamoIdempotencyStore(dynamo, config);
        // A deployment without endpoints: no write marks an outbox.
        EventRelay noEndpoints = new EventRelay(new MerchantEndpoints(config), new MerchantEvents(new ObjectMapper()),
                new EventQueue(null, config, new ObjectMapper()), dynamo, config);
        payments = new PaymentRepository(dynamo, config,
                new EmbeddedMetrics(new ObjectMapper(), Clock.systemUTC()), noEndpoints);
    }

    @AfterAll
    void disconnect() {
        if (dynamo != null) {
            dynamo.close();
        }
        stopStore();
    }

    @BeforeEach
    void freshClock() {
        now = Instant.now().truncatedTo(ChronoUnit.SECONDS);
        requests.clear();
    }

    // --- idempotency keys -----------------------------------------------------------------------

    @Test
    void claimOfAnAbsentKeyWins() {
        KeyRecord proposed = keyRecord(newKey(), now.plusSeconds(35), now.plusSeconds(86_400));

        ClaimAttempt attempt = keys.claim(proposed, now);

        KeyClaim claim = assertInstanceOf(KeyClaim.class, attempt);
        assertEquals(proposed, claim.record());
        assertFalse(claim.takenOver());
        Map<String, AttributeValue> item = item(proposed.storageId()).orElseThrow();
        assertEquals(Table.KIND_KEY, item.get(Table.KIND).s());
        assertEquals(proposed.resourceId(), item.get(Table.PAYMENT_ID).s());
        assertEquals(Long.toString(proposed.expiresAt().getEpochSecond()), item.get(Table.EXPIRES_AT).n(),
                "the TTL attribute is epoch seconds");
    }

    @Test
    void secondClaimReturnsTheStoredRecord() {
        String storageId = newKey();
        KeyRecord first = keyRecord(storageId, now.plusSeconds(35), now.plusSeconds(86_400));
        assertInstanceOf(KeyClaim.class, keys.claim(first, now));
        KeyRecord second = keyRecord(storageId, now.plusSeconds(40), now.plusSeconds(90_000));

        ClaimAttempt attempt = keys.claim(second, now.plusSeconds(1));

        ExistingKey existing = assertInstanceOf(ExistingKey.class, attempt);
        assertEquals(first, existing.record(), "the record stored by the first claim, unchanged");
        assertEquals(first.resourceId(), item(storageId).orElseThrow().get(Table.PAYMENT_ID).s());
    }

    @Test
    void failedClaimReadsTheOldItemAtMostOnceAndConsistently() {
        String storageId = newKey();
        KeyRecord first = keyRecord(storageId, now.plusSeconds(35), now.plusSeconds(86_400));
        keys.claim(first, now);
        requests.clear();

        ExistingKey existing = assertInstanceOf(ExistingKey.class,
                keys.claim(keyRecord(storageId, now.plusSeconds(35), now.plusSeconds(86_400)), now));

        assertEquals(first, existing.record());
        assertEquals(1, requests.count(PutItemRequest.class), "one conditional put");
        PutItemRequest put = requests.of(PutItemRequest.class).get(0);
        assertEquals("ALL_OLD", put.returnValuesOnConditionCheckFailureAsString(), "the put asks for the old item");
        List<GetItemRequest> reads = requests.of(GetItemRequest.class);
        if (returnsOldItemOnConditionFailure()) {
            assertEquals(0, reads.size(), "the failed put carried the old item: no second read");
        } else {
            assertEquals(1, reads.size(), "the fallback read when the store returns no item");
            assertTrue(reads.get(0).consistentRead(), "the fallback read is strongly consistent");
        }
    }

    @Test
    void storeReturnsTheOldItemOnConditionFailureIfAndOnlyIfDeclared() {
        // The raw behaviour the claim relies on (or falls back from): measured, not assumed.
        String pk = newKey();
        dynamo.putItem(b -> b.tableName(table).item(Map.of(Table.PK, Attr.s(pk), Table.KIND, Attr.s("probe"))));
        Map<String, AttributeValue> old = Map.of();
        try {
            dynamo.putItem(b -> b.tableName(table).item(Map.of(Table.PK, Attr.s(pk)))
                    .conditionExpression("attribute_not_exists(#pk)")
                    .expressionAttributeNames(Map.of("#pk", Table.PK))
                    .returnValuesOnConditionCheckFailure("ALL_OLD"));
        } catch (software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException e) {
            old = e.hasItem() ? e.item() : Map.of();
        }
        Map<String, AttributeValue> returned = old;
        assertEquals(returnsOldItemOnConditionFailure(), !returned.isEmpty(), () -> "returned " + returned);
    }

    @Test
    void repeatedClaimOfTheSameProposalIsStillOurs() {
        // What an SDK retry of a put that succeeded (but whose answer was lost) looks like.
        KeyRecord proposed = keyRecord(newKey(), now.plusSeconds(35), now.plusSeconds(86_400));
        assertInstanceOf(KeyClaim.class, keys.claim(proposed, now));

        KeyClaim again = assertInstanceOf(KeyClaim.class, keys.claim(proposed, now));

        assertEquals(proposed, again.record());
        assertFalse(again.takenOver());
    }

    @Test
    void findSeesOnlyALiveRecord() {
        String live = newKey();
        KeyRecord record = keyRecord(live, now.plusSeconds(35), now.plusSeconds(86_400));
        keys.claim(record, now);
        assertEquals(Optional.of(record), keys.find(live, now));
        assertTrue(keys.find(newKey(), now).isEmpty(), "absent");

        String expiring = newKey();
        KeyRecord edge = keyRecord(expiring, now.minusSeconds(100), now);
        keys.claim(edge, now.minusSeconds(200));
        assertEquals(Optional.of(edge), keys.find(expiring, now.plusMillis(999)), "live through its last second");
        assertTrue(keys.find(expiring, now.plusSeconds(1)).isEmpty(), "expired though still stored");
        assertTrue(item(expiring).isPresent());
    }

    @Test
    void expiredKeyCanBeClaimedAgain() {
        String storageId = newKey();
        KeyRecord old = keyRecord(storageId, now.minusSeconds(100), now.minusSeconds(1));
        assertInstanceOf(KeyClaim.class, keys.claim(old, now.minusSeconds(200)));
        KeyRecord fresh = keyRecord(storageId, now.plusSeconds(35), now.plusSeconds(86_400));

        ClaimAttempt attempt = keys.claim(fresh, now);

        KeyClaim claim = assertInstanceOf(KeyClaim.class, attempt, "a key past expiresAt counts as absent");
        assertEquals(fresh, claim.record());
        assertEquals(fresh.resourceId(), item(storageId).orElseThrow().get(Table.PAYMENT_ID).s(),
                "the stale item is replaced");
    }

    @Test
    void keyExpiringThisVerySecondIsStillLive() {
        String storageId = newKey();
        KeyRecord old = keyRecord(storageId, now.minusSeconds(100), now);
        keys.claim(old, now.minusSeconds(200));

        ClaimAttempt attempt = keys.claim(keyRecord(storageId, now.plusSeconds(35), now.plusSeconds(86_400)), now);

        assertEquals(old, assertInstanceOf(ExistingKey.class, attempt).record(), "expired means expiresAt < now");
    }

    @Test
    void racingClaimsOfOneKeyHaveExactlyOneWinner() throws Exception {
        String storageId = newKey();
        int racers = 8;
        List<KeyRecord> proposals = new ArrayList<>();
        for (int i = 0; i < racers; i++) {
            proposals.add(keyRecord(storageId, now.plusSeconds(35), now.plusSeconds(86_400)));
        }

        List<ClaimAttempt> attempts = race(proposals.stream()
                .<Callable<ClaimAttempt>>map(p -> () -> keys.claim(p, now)).toList());

        List<KeyRecord> winners = attempts.stream().filter(KeyClaim.class::isInstance)
                .map(a -> ((KeyClaim) a).record()).toList();
        assertEquals(1, winners.size(), () -> "winners: " + winners);
        for (ClaimAttempt a : attempts) {
            if (a instanceof ExistingKey existing) {
                assertEquals(winners.get(0), existing.record(), "every loser sees the winner's record");
            }
        }
        assertEquals(winners.get(0).resourceId(), item(storageId).orElseThrow().get(Table.PAYMENT_ID).s());
    }

    @Test
    void takeOverOnlyAfterTheLeaseExpired() {
        String storageId = newKey();
        Instant leaseEnd = now.plusSeconds(35);
        KeyRecord held = keyRecord(storageId, leaseEnd, now.plusSeconds(86_400));
        keys.claim(held, now);

        assertTrue(keys.takeOver(held, "early", now.plusSeconds(10), now.plusSeconds(45)).isEmpty(),
                "a live lease is not taken over");
        assertTrue(keys.takeOver(held, "at-the-edge", leaseEnd, leaseEnd.plusSeconds(35)).isEmpty(),
                "expired means leaseExpiresAt < now");

        Instant later = leaseEnd.plusMillis(1);
        KeyClaim claim = keys.takeOver(held, "retry", later, later.plusSeconds(35)).orElseThrow();

        assertTrue(claim.takenOver());
        assertEquals(2, claim.record().leaseEpoch());
        assertEquals("retry", claim.record().leaseOwner());
        assertEquals(held.resourceId(), claim.record().resourceId(), "the same payment is resumed");
        Map<String, AttributeValue> item = item(storageId).orElseThrow();
        assertEquals("retry", item.get(Table.LEASE_OWNER).s());
        assertEquals("2", item.get(Table.LEASE_EPOCH).n());
        // The same stale observation cannot win twice.
        assertTrue(keys.takeOver(held, "second", later.plusSeconds(100), later.plusSeconds(135)).isEmpty());
    }

    @Test
    void repeatedTakeOverByTheSameOwnerIsStillOurs() {
        String storageId = newKey();
        KeyRecord held = keyRecord(storageId, now.minusSeconds(1), now.plusSeconds(86_400));
        keys.claim(held, now.minusSeconds(40));
        KeyClaim first = keys.takeOver(held, "retry", now, now.plusSeconds(35)).orElseThrow();

        // An SDK retry of the update that succeeded: the condition fails, but the record names us.
        KeyClaim again = keys.takeOver(held, "retry", now, now.plusSeconds(35)).orElseThrow();

        assertEquals(first.record(), again.record());
        assertTrue(again.takenOver());
        assertTrue(keys.takeOver(held, "someone-else", now, now.plusSeconds(35)).isEmpty());
    }

    @Test
    void racingTakeOversOfOneObservationHaveExactlyOneWinner() throws Exception {
        for (int round = 0; round < 10; round++) {
            String storageId = newKey();
            KeyRecord held = keyRecord(storageId, now.minusSeconds(1), now.plusSeconds(86_400));
            keys.claim(held, now.minusSeconds(40));

            List<Optional<KeyClaim>> results = race(List.of(
                    () -> keys.takeOver(held, "thread-1", now, now.plusSeconds(35)),
                    () -> keys.takeOver(held, "thread-2", now, now.plusSeconds(35))));

            List<KeyClaim> winners = results.stream().flatMap(Optional::stream).toList();
            assertEquals(1, winners.size(), "round " + round + ": " + results);
            KeyClaim winner = winners.get(0);
            Map<String, AttributeValue> item = item(storageId).orElseThrow();
            assertEquals(winner.record().leaseOwner(), item.get(Table.LEASE_OWNER).s());
            assertEquals("2", item.get(Table.LEASE_EPOCH).n());
        }
    }

    @Test
    void releaseOnlyByTheHolderEpoch() {
        String storageId = newKey();
        KeyRecord first = keyRecord(storageId, now.minusSeconds(1), now.plusSeconds(86_400));
        keys.claim(first, now.minusSeconds(40));
        KeyClaim current = keys.takeOver(first, "retry", now, now.plusSeconds(35)).orElseThrow();

        assertFalse(keys.release(first), "the taken-over run (epoch 1) cannot release");
        assertTrue(item(storageId).isPresent());

        assertTrue(keys.release(current.record()), "the holder (epoch 2) can");
        assertTrue(item(storageId).isEmpty());
        assertFalse(keys.release(current.record()), "nothing left to release");
        assertInstanceOf(KeyClaim.class,
                keys.claim(keyRecord(storageId, now.plusSeconds(35), now.plusSeconds(86_400)), now),
                "a released key is free again");
    }

    @Test
    void aRepeatedReleaseNeverDeletesTheNextClaimAtTheSameEpoch() {
        String storageId = newKey();
        KeyRecord released = keyRecord(storageId, now.plusSeconds(35), now.plusSeconds(86_400));
        keys.claim(released, now);
        assertTrue(keys.release(released));
        // A fresh claim starts at epoch 1 again, like the one just released.
        KeyRecord next = keyRecord(storageId, now.plusSeconds(35), now.plusSeconds(86_400));
        assertInstanceOf(KeyClaim.class, keys.claim(next, now));
        assertEquals(released.leaseEpoch(), next.leaseEpoch());

        // The SDK retrying the first release (its answer was lost): not ours any more.
        assertFalse(keys.release(released));

        assertEquals(next.leaseOwner(), item(storageId).orElseThrow().get(Table.LEASE_OWNER).s());
    }

    @Test
    void aKeyPastItsRetentionIsNotClaimedWhileItsLeaseLives() {
        String storageId = newKey();
        // Taken over just before its retention ended: the takeover's lease outlives the retention.
        KeyRecord stale = keyRecord(storageId, now.minusSeconds(100), now.plusSeconds(5));
        keys.claim(stale, now.minusSeconds(200));
        KeyClaim takeover = keys.takeOver(stale, "late-retry", now, now.plusSeconds(35)).orElseThrow();
        Instant pastRetention = now.plusSeconds(10);

        ClaimAttempt during = keys.claim(keyRecord(storageId, pastRetention.plusSeconds(35),
                pastRetention.plusSeconds(86_400)), pastRetention);

        assertEquals(takeover.record(), assertInstanceOf(ExistingKey.class, during).record(),
                "the takeover still works on it");
        assertEquals(Optional.of(takeover.record()), keys.find(storageId, pastRetention), "and a read sees it");
        Instant leaseOver = now.plusSeconds(36);
        assertEquals(Optional.empty(), keys.find(storageId, leaseOver), "a read agrees once the lease is over");
        KeyRecord fresh = keyRecord(storageId, leaseOver.plusSeconds(35), leaseOver.plusSeconds(86_400));
        assertEquals(fresh, assertInstanceOf(KeyClaim.class, keys.claim(fresh, leaseOver)).record(),
                "once the lease is over too, the key is absent");
    }

    // --- payments -------------------------------------------------------------------------------

    @Test
    void createPendingOnlyOnce() {
        Payment payment = pending(newPaymentId(), 1);
        assertTrue(payments.createPending(payment, now.plusSeconds(70)));

        Payment again = new Payment(payment.id(), "other-tenant", PaymentStatus.PENDING, 1, "USD", "other", null,
                null, null, null, now, now, 7, 0, new ProviderAccount("other", "acct_other"), now, null, null);
        assertFalse(payments.createPending(again, now.plusSeconds(70)));

        Payment stored = payments.find(payment.id()).orElseThrow();
        assertEquals(payment, stored, "the first write stands, field for field");
    }

    @Test
    void findOfAMissingPaymentIsEmpty() {
        assertTrue(payments.find(newPaymentId()).isEmpty());
    }

    @Test
    void fenceNeverLowersTheEpochOfAPendingPayment() {
        String id = newPaymentId();
        payments.createPending(pending(id, 1), now.plusSeconds(70));

        assertFalse(payments.fence(id, 0, LATER, LATER), "a lower epoch is fenced off");
        assertTrue(payments.fence(id, 1, LATER, LATER),
                "re-fencing at our own epoch (an SDK retry, a resumed run) is a no-op");
        assertEquals(1, payments.find(id).orElseThrow().leaseEpoch());
        Instant newLeaseEnd = now.plusSeconds(40);
        assertTrue(payments.fence(id, 2, newLeaseEnd, LATER), "a newer run fences");
        assertEquals(2, payments.find(id).orElseThrow().leaseEpoch());
        assertEquals(newLeaseEnd, payments.find(id).orElseThrow().leaseExpiresAt(), "with its lease's end");
        assertFalse(payments.fence(id, 1, LATER, LATER), "the older run can no longer");
        assertTrue(payments.fence(id, 5, LATER, LATER), "epochs may skip");
        assertFalse(payments.fence(id, 3, LATER, LATER), "never lowered");
        assertEquals(5, payments.find(id).orElseThrow().leaseEpoch());

        assertTrue(payments.apply(id, "contract-tenant", succeeded(5), Actor.chargeRun(1), now));
        assertFalse(payments.fence(id, 5, LATER, LATER), "a settled payment cannot be fenced, not even at its epoch");
        assertFalse(payments.fence(id, 6, LATER, LATER), "nor at a higher one");
        assertFalse(payments.fence(newPaymentId(), 1, LATER, LATER), "nor a missing one");
    }

    @Test
    void applyIsFencedByEpoch() {
        String id = newPaymentId();
        payments.createPending(pending(id, 1), now.plusSeconds(70));
        assertTrue(payments.fence(id, 2, LATER, LATER));

        assertFalse(payments.apply(id, "contract-tenant", succeeded(1), Actor.chargeRun(1), now), "the zombie at epoch 1 is fenced off");
        assertEquals(PaymentStatus.PENDING, payments.find(id).orElseThrow().status());

        Instant settledAt = now.plusSeconds(3);
        assertTrue(payments.apply(id, "contract-tenant", succeeded(2), Actor.chargeRun(1), settledAt));
        Payment settled = payments.find(id).orElseThrow();
        assertEquals(PaymentStatus.SUCCEEDED, settled.status());
        assertEquals("ch_contract", settled.providerPaymentId());
        assertEquals(settledAt, settled.updatedAt());

        assertFalse(payments.apply(id, "contract-tenant", succeeded(2), Actor.chargeRun(1), now.plusSeconds(4)), "not PENDING any more");
        Transition failed = new Transition(PaymentStatus.PENDING, PaymentStatus.FAILED, "ch_x", "card_declined",
                "declined", null, OptionalLong.of(2));
        assertFalse(payments.apply(id, "contract-tenant", failed, Actor.chargeRun(1), now.plusSeconds(5)), "no state regresses or flips");
        assertEquals(PaymentStatus.SUCCEEDED, payments.find(id).orElseThrow().status());
    }

    @Test
    void applyOfAMissingPaymentFails() {
        assertFalse(payments.apply(newPaymentId(), "contract-tenant", succeeded(1), Actor.chargeRun(1), now));
    }

    @Test
    void settledPaymentLeavesTheSweepIndex() {
        String id = newPaymentId();
        Instant firstCheck = now.plusSeconds(70);
        payments.createPending(pending(id, 1), firstCheck);
        Map<String, AttributeValue> pendingItem = item(PaymentRepository.pk(id)).orElseThrow();
        String shard = pendingItem.get(Table.SWEEP_SHARD).s();
        assertNotNull(shard, "a PENDING payment is listed from the start");
        assertEquals(Long.toString(firstCheck.toEpochMilli()), pendingItem.get(Table.NEXT_CHECK_AT).n());
        assertTrue(sweepIndexLists(shard, id));

        // UNKNOWN stays listed, with the new check time.
        Instant recheck = now.plusSeconds(30);
        Transition unknown = new Transition(PaymentStatus.PENDING, PaymentStatus.UNKNOWN, null, null, "timeout",
                recheck, OptionalLong.of(1));
        assertTrue(payments.apply(id, "contract-tenant", unknown, Actor.chargeRun(1), now));
        Map<String, AttributeValue> unknownItem = item(PaymentRepository.pk(id)).orElseThrow();
        assertEquals(shard, unknownItem.get(Table.SWEEP_SHARD).s());
        assertEquals(Long.toString(recheck.toEpochMilli()), unknownItem.get(Table.NEXT_CHECK_AT).n());
        assertTrue(sweepIndexLists(shard, id));

        Transition settled = new Transition(PaymentStatus.UNKNOWN, PaymentStatus.SUCCEEDED, "ch_late", null, null,
                null, OptionalLong.empty());
        assertTrue(payments.apply(id, "contract-tenant", settled, Actor.chargeRun(1), now.plusSeconds(40)));

        Map<String, AttributeValue> settledItem = item(PaymentRepository.pk(id)).orElseThrow();
        assertNull(settledItem.get(Table.SWEEP_SHARD), "sweep shard removed");
        assertNull(settledItem.get(Table.NEXT_CHECK_AT), "next check removed");
        assertFalse(sweepIndexLists(shard, id), "the sparse index no longer lists it");
    }

    @Test
    void everyMoveAppendsItsHistoryEntryInItsOwnWriteAndALostWriteAppendsNothing() {
        String id = newPaymentId();
        payments.createPending(pending(id, 1), now.plusSeconds(70));
        Transition unknown = new Transition(PaymentStatus.PENDING, PaymentStatus.UNKNOWN, null, null, "timeout",
                now.plusSeconds(30), OptionalLong.of(1));
        assertTrue(payments.apply(id, "contract-tenant", unknown, Actor.chargeRun(1), now.plusSeconds(1)));
        Transition review = Transition.toReview(PaymentStatus.UNKNOWN, "ch_a", "conflicting facts",
                ReviewReason.CONFLICTING_FACTS);
        assertTrue(payments.apply(id, "contract-tenant", review, Actor.SWEEP, now.plusSeconds(2)));
        assertEquals(ReviewReason.CONFLICTING_FACTS, payments.find(id).orElseThrow().reviewReason());
        assertFalse(payments.apply(id, "contract-tenant", review, Actor.SWEEP, now.plusSeconds(3)), "already in review");
        Transition resolved = new Transition(PaymentStatus.NEEDS_REVIEW, PaymentStatus.SUCCEEDED, "ch_a", null,
                "provider dashboard shows ch_a captured", null, OptionalLong.empty());
        assertTrue(payments.apply(id, "contract-tenant", resolved, Actor.operator("alice"), now.plusSeconds(4)));
        assertNull(payments.find(id).orElseThrow().reviewReason(), "settled: no longer in review");

        List<HistoryEntry> history = payments.findWithHistory(id).orElseThrow().history();

        assertEquals(List.of(
                new HistoryEntry(now, null, PaymentStatus.PENDING, Actor.chargeRun(1), "charge request accepted", null,
                        null),
                new HistoryEntry(now.plusSeconds(1), PaymentStatus.PENDING, PaymentStatus.UNKNOWN, Actor.chargeRun(1),
                        "timeout", null, null),
                new HistoryEntry(now.plusSeconds(2), PaymentStatus.UNKNOWN, PaymentStatus.NEEDS_REVIEW, Actor.SWEEP,
                        "conflicting facts", "ch_a", null),
                new HistoryEntry(now.plusSeconds(4), PaymentStatus.NEEDS_REVIEW, PaymentStatus.SUCCEEDED,
                        Actor.operator("alice"), "provider dashboard shows ch_a captured", "ch_a", null)), history);
    }

    @Test
    void theAttentionIndexListsAPaymentUnderItsStatusWhileItNeedsAttention() {
        String id = newPaymentId();
        payments.createPending(pending(id, 1), now.plusSeconds(70));
        assertTrue(attentionIndexLists(payments.attentionKey(PaymentStatus.PENDING, id), id));
        assertEquals(Long.toString(now.toEpochMilli()), item(PaymentRepository.pk(id)).orElseThrow()
                .get(Table.CREATED_AT_MS).n());

        assertTrue(payments.apply(id, "contract-tenant", new Transition(PaymentStatus.PENDING, PaymentStatus.UNKNOWN, null, null,
                "timeout", now.plusSeconds(30), OptionalLong.of(1)), Actor.chargeRun(1), now));
        assertFalse(attentionIndexLists(payments.attentionKey(PaymentStatus.PENDING, id), id));
        assertTrue(attentionIndexLists(payments.attentionKey(PaymentStatus.UNKNOWN, id), id));

        assertTrue(payments.apply(id, "contract-tenant", Transition.toReview(PaymentStatus.UNKNOWN, null, "gave up",
                ReviewReason.RECONCILE_GAVE_UP), Actor.SWEEP, now));
        assertTrue(attentionIndexLists(payments.attentionKey(PaymentStatus.NEEDS_REVIEW, id), id));

        assertTrue(payments.apply(id, "contract-tenant", new Transition(PaymentStatus.NEEDS_REVIEW, PaymentStatus.FAILED, null, null,
                "nothing charged", null, OptionalLong.empty()), Actor.operator("alice"), now));
        assertNull(item(PaymentRepository.pk(id)).orElseThrow().get(Table.ATTENTION_KEY), "settled: unlisted");
        assertFalse(attentionIndexLists(payments.attentionKey(PaymentStatus.NEEDS_REVIEW, id), id));
    }

    @Test
    void deleteUnsentIsFencedAndOnlyForPending() {
        String id = newPaymentId();
        payments.createPending(pending(id, 1), now.plusSeconds(70));
        assertTrue(payments.fence(id, 2, LATER, LATER));

        assertFalse(payments.deleteUnsent(id, 1), "a fenced-off run cannot delete");
        assertTrue(payments.find(id).isPresent());
        assertTrue(payments.deleteUnsent(id, 2));
        assertTrue(payments.find(id).isEmpty());

        String settled = newPaymentId();
        payments.createPending(pending(settled, 1), now.plusSeconds(70));
        payments.apply(settled, "contract-tenant", succeeded(1), Actor.chargeRun(1), now);
        assertFalse(payments.deleteUnsent(settled, 1), "a settled payment is never deleted");
        assertTrue(payments.find(settled).isPresent());
    }

    // --- helpers --------------------------------------------------------------------------------

    private String newKey() {
        return new IdempotencyKey("contract-tenant", UUID.randomUUID().toString()).storageId();
    }

    private static String newPaymentId() {
        return "pay_" + UUID.randomUUID().toString().replace("-", "");
    }

    private KeyRecord keyRecord(String storageId, Instant leaseExpiresAt, Instant expiresAt) {
        return new KeyRecord(storageId, "contract-tenant", RequestFingerprint.of("POST", "/payments", "{}"),
                newPaymentId(), UUID.randomUUID().toString(), 1, leaseExpiresAt.truncatedTo(ChronoUnit.MILLIS),
                expiresAt.truncatedTo(ChronoUnit.SECONDS), now);
    }

    private Payment pending(String id, long epoch) {
        return new Payment(id, "contract-tenant", PaymentStatus.PENDING, 4200, "EUR", "order_9182", "two coffees",
                null, null, null, now, now, epoch, 0, new ProviderAccount("sim", "acct_contract"), now.plusSeconds(35),
                null, null);
    }

    private static Transition succeeded(long epoch) {
        return new Transition(PaymentStatus.PENDING, PaymentStatus.SUCCEEDED, "ch_contract", null, null, null,
                OptionalLong.of(epoch));
    }

    private Optional<Map<String, AttributeValue>> item(String pk) {
        GetItemResponse response = dynamo.getItem(b -> b.tableName(table).key(Attr.key(pk)).consistentRead(true));
        return response.hasItem() && !response.item().isEmpty() ? Optional.of(response.item()) : Optional.empty();
    }

    private boolean sweepIndexLists(String shard, String paymentId) {
        return dynamo.queryPaginator(b -> b.tableName(table).indexName(Table.SWEEP_INDEX)
                .keyConditionExpression("#shard = :shard")
                .expressionAttributeNames(Map.of("#shard", Table.SWEEP_SHARD))
                .expressionAttributeValues(Map.of(":shard", Attr.s(shard))))
                .items().stream()
                .anyMatch(i -> PaymentRepository.pk(paymentId).equals(i.get(Table.PK).s()));
    }

    private boolean attentionIndexLists(String attentionKey, String paymentId) {
        return dynamo.queryPaginator(b -> b.tableName(table).indexName(Table.ATTENTION_INDEX)
                .keyConditionExpression("#key = :key")
                .expressionAttributeNames(Map.of("#key", Table.ATTENTION_KEY))
                .expressionAttributeValues(Map.of(":key", Attr.s(attentionKey))))
                .items().stream()
                .anyMatch(i -> PaymentRepository.pk(paymentId).equals(i.get(Table.PK).s()));
    }

    /** Runs all tasks released at the same instant; their results in order. */
    private static <T> List<T> race(List<Callable<T>> tasks) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(tasks.size());
        try {
            CountDownLatch ready = new CountDownLatch(tasks.size());
            CountDownLatch go = new CountDownLatch(1);
            List<Future<T>> futures = new ArrayList<>();
            for (Callable<T> task : tasks) {
                futures.add(pool.submit(() -> {
                    ready.countDown();
                    go.await();
                    return task.call();
                }));
            }
            assertTrue(ready.await(10, TimeUnit.SECONDS));
            go.countDown();
            List<T> results = new ArrayList<>();
            for (Future<T> f : futures) {
                results.add(f.get(30, TimeUnit.SECONDS));
            }
            return results;
        } finally {
            pool.shutdownNow();
        }
    }

    /** Every DynamoDB request the stores made, in order. */
    protected static final class RequestLog implements ExecutionInterceptor {
        private final List<SdkRequest> requests = new CopyOnWriteArrayList<>();

        @Override
        public void beforeExecution(Context.BeforeExecution context, ExecutionAttributes attributes) {
            requests.add(context.request());
        }

        void clear() {
            requests.clear();
        }

        <R extends SdkRequest> List<R> of(Class<R> type) {
            return requests.stream().filter(type::isInstance).map(type::cast).toList();
        }

        int count(Class<? extends SdkRequest> type) {
            return of(type).size();
        }
    }
}
