package dev.oncepay.admin;

import dev.oncepay.config.OncepayConfig;
import dev.oncepay.contract.Attr;
import dev.oncepay.contract.Table;
import dev.oncepay.delivery.DeliveryKey;
import dev.oncepay.delivery.DeliveryRecord;
import dev.oncepay.delivery.DeliveryRepository;
import dev.oncepay.events.MerchantEndpoint;
import dev.oncepay.events.MerchantEndpoints;
import dev.oncepay.events.MerchantEvent;
import dev.oncepay.events.MerchantEvents;
import dev.oncepay.idempotency.ClaimAttempt;
import dev.oncepay.idempotency.FingerprintMismatchException;
import dev.oncepay.idempotency.IdempotencyKey;
import dev.oncepay.idempotency.IdempotencyStore;
import dev.oncepay.idempotency.KeyRecord;
import dev.oncepay.idempotency.RequestFingerprint;
import dev.oncepay.idempotency.RequestInFlightException;
import dev.oncepay.payment.PaymentRepository;
import dev.oncepay.payment.RefundRepository;
import dev.oncepay.queue.EventDeliveryJob;
import dev.oncepay.queue.EventQueue;
import dev.oncepay.store.TableItems;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.function.Supplier;
import org.jboss.logging.Logger;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * What operators see and do about merchant events: where each event of a payment stands at each
 * endpoint, one endpoint's deliveries, and redeliveries, each under an Idempotency-Key.
 */
@ApplicationScoped
public class EventDeliveries {
    private static final Logger LOG = Logger.getLogger(EventDeliveries.class);
    /** Deliveries one redelivery since a time queues at most; the answer says where to go on. */
    public static final int REDELIVERY_CAP = 500;

    private final DynamoDbClient dynamo;
    private final String table;
    private final MerchantEndpoints endpoints;
    private final MerchantEvents events;
    private final DeliveryRepository deliveries;
    private final EventQueue queue;
    private final IdempotencyStore keys;
    private final OncepayConfig config;
    private final Clock clock;

    public EventDeliveries(DynamoDbClient dynamo, OncepayConfig config, MerchantEndpoints endpoints,
            MerchantEvents events, DeliveryRepository deliveries, EventQueue queue, IdempotencyStore keys, Clock clock) {
        this.dynamo = dynamo;
        this.table = config.table();
        this.config = config;
        this.endpoints = endpoints;
        this.events = events;
        this.deliveries = deliveries;
        this.queue = queue;
        this.keys = keys;
        this.clock = clock;
    }

    /**
     * One event at one endpoint: its delivery record, or none yet (queued, not attempted).
     */
    public record DeliveryLine(MerchantEvent event, String endpoint, Optional<DeliveryRecord> record) {
    }

    /** What a redelivery queued; {@code nextSince} where a capped one since a time goes on. */
    public record Redelivery(int queued, Optional<Instant> nextSince, boolean replayed) {
    }

    /** The events of a payment and of its refunds, each at every endpoint that wants it; empty if no such payment. */
    public Optional<List<DeliveryLine>> ofPayment(String paymentId) {
        Optional<Map<String, AttributeValue>> payment = TableItems.readConsistently(dynamo, table,
                PaymentRepository.pk(paymentId));
        if (payment.isEmpty()) {
            return Optional.empty();
        }
        List<MerchantEvent> all = new ArrayList<>(events.all(payment.get()));
        AttributeValue refundIds = payment.get().get(Table.REFUND_IDS);
        if (refundIds != null && refundIds.hasSs()) {
            for (String refundId : refundIds.ss().stream().sorted().toList()) {
                TableItems.readConsistently(dynamo, table, RefundRepository.pk(refundId))
                        .ifPresent(refund -> all.addAll(events.all(refund)));
            }
        }
        List<DeliveryKey> wanted = new ArrayList<>();
        List<DeliveryLine> lines = new ArrayList<>();
        for (MerchantEvent event : all) {
            for (MerchantEndpoint endpoint : endpoints.wanting(event.tenant(), event.type())) {
                wanted.add(new DeliveryKey(event.tenant(), endpoint.id(), event.id()));
                lines.add(new DeliveryLine(event, endpoint.id(), Optional.empty()));
            }
        }
        Map<DeliveryKey, DeliveryRecord> records = new HashMap<>();
        deliveries.findAll(wanted).forEach(r -> records.put(r.key(), r));
        return Optional.of(lines.stream().map(line -> new DeliveryLine(line.event(), line.endpoint(),
                Optional.ofNullable(records.get(new DeliveryKey(line.event().tenant(), line.endpoint(), line.event().id())))))
                .toList());
    }

    /** One endpoint's delivery records of events since {@code since}; empty if the tenant has no such endpoint. */
    public Optional<List<DeliveryRecord>> ofEndpoint(String tenant, String endpoint, Instant since, int limit) {
        return endpoints.find(tenant, endpoint).map(found -> deliveries.since(tenant, endpoint, since, limit));
    }

    /**
     * Queues {@code eventId} again for every endpoint of its tenant that wants it, or for {@code endpoint}
     * alone; empty if there is no such event (or endpoint).
     */
    public Optional<Redelivery> redeliverEvent(String operator, String idempotencyKey, String eventId,
            Optional<String> endpoint) {
        Optional<MerchantEvents.EventAddress> address = MerchantEvents.address(eventId);
        if (address.isEmpty()) {
            return Optional.empty();
        }
        Optional<MerchantEvent> event = TableItems.readConsistently(dynamo, table, address.get().pk())
                .flatMap(item -> events.at(item, address.get().sequence()));
        if (event.isEmpty()) {
            return Optional.empty();
        }
        List<MerchantEndpoint> targets = endpoints.wanting(event.get().tenant(), event.get().type()).stream()
                .filter(e -> endpoint.isEmpty() || e.id().equals(endpoint.get())).toList();
        if (endpoint.isPresent() && targets.isEmpty()) {
            return Optional.empty();
        }
        String path = "/admin/events/" + eventId + "/redeliver";
        return Optional.of(once(operator, idempotencyKey, path, endpoint.orElse(""), () -> {
            queue.sendAll(targets.stream().map(target -> job(event.get(), target.id())).toList());
            LOG.infof("operator redelivery eventId=%s endpoints=%d operator=%s", eventId, targets.size(), operator);
            return new Redelivery(targets.size(), Optional.empty(), false);
        }));
    }

    /**
     * Queues again every delivery of one endpoint whose event happened at or after {@code since}, at
     * most {@value #REDELIVERY_CAP}; empty if the tenant has no such endpoint.
     */
    public Optional<Redelivery> redeliverSince(String operator, String idempotencyKey, String tenant, String endpoint,
            Instant since) {
        if (endpoints.find(tenant, endpoint).isEmpty()) {
            return Optional.empty();
        }
        String path = "/admin/endpoints/" + tenant + "/" + endpoint + "/redeliver";
        return Optional.of(once(operator, idempotencyKey, path, since.toString(), () -> {
            List<DeliveryRecord> records = deliveries.since(tenant, endpoint, since, REDELIVERY_CAP + 1);
            boolean capped = records.size() > REDELIVERY_CAP;
            List<DeliveryRecord> taken = capped ? records.subList(0, REDELIVERY_CAP) : records;
            Map<String, Optional<Map<String, AttributeValue>>> items = new HashMap<>();
            List<EventDeliveryJob> jobs = new ArrayList<>();
            for (DeliveryRecord record : taken) {
                MerchantEvents.address(record.eventId()).flatMap(address -> items
                        .computeIfAbsent(address.pk(), pk -> TableItems.readConsistently(dynamo, table, pk))
                        .flatMap(item -> events.at(item, address.sequence())))
                        .ifPresent(event -> jobs.add(job(event, endpoint)));
            }
            queue.sendAll(jobs);
            LOG.infof("operator redelivery tenant=%s endpoint=%s since=%s queued=%d capped=%s operator=%s", tenant,
                    endpoint, since, jobs.size(), capped, operator);
            return new Redelivery(jobs.size(), capped ? Optional.of(records.get(REDELIVERY_CAP).eventAt()) : Optional.empty(),
                    false);
        }));
    }

    private static EventDeliveryJob job(MerchantEvent event, String endpoint) {
        return EventDeliveryJob.first(event.tenant(), endpoint, event.id(), event.type().wireName(), event.objectId(),
                event.paymentId(), event.sequence(), event.at().toEpochMilli(), event.body());
    }

    /**
     * Runs {@code work} once per key: the first request claims the key, queues, and records what it
     * queued; a repeat answers that record. A first request that died before its record is redone by
     * the first repeat after its lease (a redelivery more is harmless: merchants drop seen ids).
     */
    private Redelivery once(String operator, String idempotencyKey, String path, String asked, Supplier<Redelivery> work) {
        Instant now = clock.instant();
        RequestFingerprint fingerprint = RequestFingerprint.of("POST", path, asked + "\n" + operator);
        String scope = IdempotencyKey.OPERATOR_SCOPE;
        KeyRecord proposed = new KeyRecord(new IdempotencyKey(scope, idempotencyKey).storageId(), scope, fingerprint,
                "rdl_" + UUID.randomUUID().toString().replace("-", ""), UUID.randomUUID().toString(), 1,
                now.plus(config.idempotency().lease()), now.plus(config.idempotency().retention()), now);
        ClaimAttempt attempt = keys.claim(proposed, now);
        KeyRecord held;
        if (attempt instanceof ClaimAttempt.KeyClaim claim) {
            held = claim.record();
        } else {
            KeyRecord stored = ((ClaimAttempt.ExistingKey) attempt).record();
            if (!stored.fingerprint().equals(fingerprint)) {
                throw new FingerprintMismatchException();
            }
            Optional<Redelivery> done = recorded(stored.resourceId());
            if (done.isPresent()) {
                return done.get();
            }
            if (!stored.leaseExpiredAt(now)) {
                throw new RequestInFlightException(config.charge().inFlightRetryAfter());
            }
            held = keys.takeOver(stored, UUID.randomUUID().toString(), now, now.plus(config.idempotency().lease()))
                    .orElseThrow(() -> new RequestInFlightException(config.charge().inFlightRetryAfter())).record();
        }
        Redelivery done = work.get();
        record(held, done);
        return done;
    }

    private Optional<Redelivery> recorded(String redeliveryId) {
        return TableItems.readConsistently(dynamo, table, redeliveryPk(redeliveryId))
                .map(item -> new Redelivery((int) Attr.number(item, Table.QUEUED, 0),
                        Optional.ofNullable(item.get(Table.NEXT_SINCE)).map(v -> Instant.ofEpochMilli(Long.parseLong(v.n()))),
                        true));
    }

    private void record(KeyRecord held, Redelivery done) {
        Map<String, AttributeValue> item = new HashMap<>();
        item.put(Table.PK, Attr.s(redeliveryPk(held.resourceId())));
        item.put(Table.KIND, Attr.s(Table.KIND_REDELIVERY));
        item.put(Table.QUEUED, Attr.n(done.queued()));
        done.nextSince().ifPresent(at -> item.put(Table.NEXT_SINCE, Attr.n(at.toEpochMilli())));
        item.put(Table.CREATED_AT, Attr.s(clock.instant().toString()));
        item.put(Table.EXPIRES_AT, Attr.n(held.expiresAt().getEpochSecond()));
        TableItems.putIfAbsent(dynamo, table, item);
    }

    private static String redeliveryPk(String redeliveryId) {
        return "redelivery#" + redeliveryId;
    }
}
