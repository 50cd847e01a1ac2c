package dev.oncepay.delivery;

import dev.oncepay.config.OncepayConfig;
import dev.oncepay.contract.Attr;
import dev.oncepay.contract.Table;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.jboss.logging.Logger;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;

/**
 * Each endpoint's health, shared by every sandbox through its item ({@link Table#endpointItemId}):
 * a failed attempt makes the endpoint rest {@code min(cap, base·2^(failures-1))}, during which
 * deliveries to it wait without calling it; when the rest ends one delivery claims the probe (a
 * conditional write) and calls, the others wait for its answer. So a dark endpoint costs about one
 * timed-out call per rest period and holds no worker while it rests, whatever its backlog.
 *
 * <p>Health only spares a failing endpoint and the workers: a store failure here is logged, and
 * the endpoint is called as if healthy. Each sandbox reads an item at most once a second; its own
 * writes refresh that copy.
 */
@ApplicationScoped
public class EndpointHealth {
    private static final Logger LOG = Logger.getLogger(EndpointHealth.class);
    static final Duration CACHE_FOR = Duration.ofSeconds(1);
    /** A failure needs no longer to take than the store's fastest answer: the call itself waited enough. */
    private static final Duration STORE_TIMEOUT = Duration.ofMillis(500);

    private record Cached(EndpointState state, Instant readAt) {
    }

    private final DynamoDbClient dynamo;
    private final String table;
    private final Clock clock;
    private final Duration base;
    private final Duration cap;
    private final Duration probeFor;
    private final Map<String, Cached> cache = new ConcurrentHashMap<>();

    public EndpointHealth(DynamoDbClient dynamo, OncepayConfig config, Clock clock) {
        this.dynamo = dynamo;
        this.table = config.table();
        this.clock = clock;
        this.base = config.events().retryDelayBase();
        this.cap = config.events().retryDelayCap();
        // A probe's call ends within the call timeout; its answer is written right after.
        this.probeFor = config.events().callTimeout().multipliedBy(2);
    }

    /** The endpoint's health, as this sandbox last read or wrote it (an eventually consistent read once a second). */
    public EndpointState state(String tenant, String endpoint) {
        String pk = Table.endpointItemId(tenant, endpoint);
        Instant now = clock.instant();
        Cached cached = cache.get(pk);
        if (cached != null && !now.isBefore(cached.readAt()) && now.isBefore(cached.readAt().plus(CACHE_FOR))) {
            return cached.state();
        }
        EndpointState state;
        try {
            state = stateOf(dynamo.getItem(b -> b.tableName(table).key(Attr.key(pk))
                    .overrideConfiguration(o -> o.apiCallTimeout(STORE_TIMEOUT))).item());
        } catch (SdkException storeFailed) {
            LOG.warnf("endpoint %s of tenant %s: its health could not be read (%s); called as healthy", endpoint, tenant,
                    storeFailed.getClass().getSimpleName());
            state = EndpointState.HEALTHY;
        }
        cache.put(pk, new Cached(state, now));
        return state;
    }

    /**
     * After a rest, one delivery calls the endpoint: the one whose conditional write moves the rest
     * on by a probe's length. {@code false}: another took it, and the state now says until when it probes.
     */
    public boolean claimProbe(String tenant, String endpoint, EndpointState seen) {
        String pk = Table.endpointItemId(tenant, endpoint);
        Instant now = clock.instant();
        Instant until = now.plus(probeFor);
        try {
            dynamo.updateItem(b -> b.tableName(table).key(Attr.key(pk))
                    .updateExpression("SET #rest = :until")
                    .conditionExpression("#rest = :seen")
                    .expressionAttributeNames(Map.of("#rest", Table.REST_UNTIL))
                    .expressionAttributeValues(Map.of(":until", Attr.n(until.toEpochMilli()),
                            ":seen", Attr.n(seen.restUntil().toEpochMilli())))
                    .overrideConfiguration(o -> o.apiCallTimeout(STORE_TIMEOUT)));
            cache.put(pk, new Cached(new EndpointState(seen.consecutiveFailures(), until), now));
            return true;
        } catch (ConditionalCheckFailedException taken) {
            // Another delivery probes (or has answered): wait one probe's length, then read again.
            cache.put(pk, new Cached(new EndpointState(seen.consecutiveFailures(), until), now));
            return false;
        } catch (SdkException storeFailed) {
            LOG.warnf("endpoint %s of tenant %s: no probe claimed (%s); called anyway", endpoint, tenant,
                    storeFailed.getClass().getSimpleName());
            return true;
        }
    }

    /** How long the endpoint rests after its {@code failures}-th failure in a row. */
    public Duration restAfter(int failures) {
        long baseMillis = Math.max(1, base.toMillis());
        long rest = baseMillis << Math.min(Math.max(0, failures - 1), 20);
        return Duration.ofMillis(Math.min(cap.toMillis(), rest));
    }

    /** A failed attempt, with {@code seen} the state before it: one UpdateItem (failures + 1, the rest). */
    public void failed(String tenant, String endpoint, EndpointState seen) {
        String pk = Table.endpointItemId(tenant, endpoint);
        Instant now = clock.instant();
        int failures = seen.consecutiveFailures() + 1;
        Instant until = now.plus(restAfter(failures));
        try {
            dynamo.updateItem(b -> b.tableName(table).key(Attr.key(pk))
                    .updateExpression("SET #failures = if_not_exists(#failures, :zero) + :one, #rest = :until,"
                            + " #kind = :kind, #tenant = :tenant, #endpoint = :endpoint")
                    .expressionAttributeNames(Map.of("#failures", Table.CONSECUTIVE_FAILURES, "#rest", Table.REST_UNTIL,
                            "#kind", Table.KIND, "#tenant", Table.TENANT, "#endpoint", Table.ENDPOINT_ID))
                    .expressionAttributeValues(Map.<String, AttributeValue>of(":zero", Attr.n(0), ":one", Attr.n(1),
                            ":until", Attr.n(until.toEpochMilli()), ":kind", Attr.s(Table.KIND_ENDPOINT),
                            ":tenant", Attr.s(tenant), ":endpoint", Attr.s(endpoint)))
                    .overrideConfiguration(o -> o.apiCallTimeout(STORE_TIMEOUT)));
            cache.put(pk, new Cached(new EndpointState(failures, until), now));
        } catch (SdkException storeFailed) {
            LOG.warnf("endpoint %s of tenant %s: its failure could not be recorded (%s)", endpoint, tenant,
                    storeFailed.getClass().getSimpleName());
        }
    }

    /** An acknowledged attempt: the endpoint is healthy again (a write only when {@code seen} had failures). */
    public void succeeded(String tenant, String endpoint, EndpointState seen) {
        if (seen.consecutiveFailures() == 0) {
            return;
        }
        String pk = Table.endpointItemId(tenant, endpoint);
        try {
            dynamo.updateItem(b -> b.tableName(table).key(Attr.key(pk))
                    .updateExpression("SET #failures = :zero REMOVE #rest")
                    .expressionAttributeNames(Map.of("#failures", Table.CONSECUTIVE_FAILURES, "#rest", Table.REST_UNTIL))
                    .expressionAttributeValues(Map.of(":zero", Attr.n(0)))
                    .overrideConfiguration(o -> o.apiCallTimeout(STORE_TIMEOUT)));
            cache.put(pk, new Cached(EndpointState.HEALTHY, clock.instant()));
        } catch (SdkException storeFailed) {
            LOG.warnf("endpoint %s of tenant %s: its recovery could not be recorded (%s)", endpoint, tenant,
                    storeFailed.getClass().getSimpleName());
        }
    }

    /** Forgets this sandbox's copies: for tests that rewrite the items. */
    public void forget() {
        cache.clear();
    }

    static EndpointState stateOf(Map<String, AttributeValue> item) {
        if (item == null || item.isEmpty()) {
            return EndpointState.HEALTHY;
        }
        return new EndpointState((int) Attr.number(item, Table.CONSECUTIVE_FAILURES, 0),
                Instant.ofEpochMilli(Attr.number(item, Table.REST_UNTIL, 0)));
    }
}
