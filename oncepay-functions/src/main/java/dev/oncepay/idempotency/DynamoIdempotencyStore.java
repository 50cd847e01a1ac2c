package dev.oncepay.idempotency;

import dev.oncepay.config.OncepayConfig;
import dev.oncepay.contract.Attr;
import dev.oncepay.contract.Table;
import dev.oncepay.store.TableItems;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;

/** {@link IdempotencyStore} over the oncepay DynamoDB table. */
@ApplicationScoped
public class DynamoIdempotencyStore implements IdempotencyStore {
    private final DynamoDbClient dynamo;
    private final String table;

    public DynamoIdempotencyStore(DynamoDbClient dynamo, OncepayConfig config) {
        this.dynamo = dynamo;
        this.table = config.table();
    }

    @Override
    public ClaimAttempt claim(KeyRecord proposed, Instant now) {
        return TableItems.claim(dynamo, table, toItem(proposed), now)
                .map(DynamoIdempotencyStore::fromItem)
                // An SDK retry of our own successful put also fails its condition: still ours.
                .<ClaimAttempt>map(existing -> existing.leaseOwner().equals(proposed.leaseOwner())
                        && existing.leaseEpoch() == proposed.leaseEpoch()
                                ? new ClaimAttempt.KeyClaim(existing, false)
                                : new ClaimAttempt.ExistingKey(existing))
                .orElseGet(() -> new ClaimAttempt.KeyClaim(proposed, false));
    }

    @Override
    public Optional<ClaimAttempt.KeyClaim> takeOver(KeyRecord observed, String newOwner, Instant now,
            Instant leaseExpiresAt) {
        return takeOver(observed, newOwner, leaseExpiresAt, "#epoch = :observed AND #lease < :now",
                Map.of(":now", Attr.n(now.toEpochMilli())));
    }

    @Override
    public Optional<ClaimAttempt.KeyClaim> takeOverQueued(KeyRecord observed, String newOwner, Instant leaseExpiresAt) {
        return takeOver(observed, newOwner, leaseExpiresAt, "#epoch = :observed", Map.of());
    }

    private Optional<ClaimAttempt.KeyClaim> takeOver(KeyRecord observed, String newOwner, Instant leaseExpiresAt,
            String condition, Map<String, AttributeValue> conditionValues) {
        long nextEpoch = observed.leaseEpoch() + 1;
        Map<String, AttributeValue> values = new HashMap<>(conditionValues);
        values.put(":owner", Attr.s(newOwner));
        values.put(":next", Attr.n(nextEpoch));
        values.put(":lease", Attr.n(leaseExpiresAt.toEpochMilli()));
        values.put(":observed", Attr.n(observed.leaseEpoch()));
        Map<String, String> names = new HashMap<>(Map.of("#owner", Table.LEASE_OWNER, "#epoch", Table.LEASE_EPOCH));
        names.put("#lease", Table.LEASE_EXPIRES_AT);
        try {
            dynamo.updateItem(b -> b.tableName(table).key(Attr.key(observed.storageId()))
                    .updateExpression("SET #owner = :owner, #epoch = :next, #lease = :lease")
                    .conditionExpression(condition)
                    .expressionAttributeNames(names)
                    .expressionAttributeValues(values));
        } catch (ConditionalCheckFailedException anotherRetryWon) {
            // Unless the SDK retried our own successful update: then the record names us.
            return TableItems.readConsistently(dynamo, table, observed.storageId()).map(DynamoIdempotencyStore::fromItem)
                    .filter(r -> newOwner.equals(r.leaseOwner()) && r.leaseEpoch() == nextEpoch)
                    .map(r -> new ClaimAttempt.KeyClaim(r, true));
        }
        KeyRecord mine = new KeyRecord(observed.storageId(), observed.tenant(), observed.fingerprint(),
                observed.resourceId(), newOwner, nextEpoch, leaseExpiresAt, observed.expiresAt(), observed.createdAt());
        return Optional.of(new ClaimAttempt.KeyClaim(mine, true));
    }

    @Override
    public Optional<KeyRecord> find(String storageId, Instant now) {
        return TableItems.readConsistently(dynamo, table, storageId).map(DynamoIdempotencyStore::fromItem)
                .filter(r -> r.liveAt(now));
    }

    @Override
    public boolean release(KeyRecord held) {
        try {
            // The owner, not only the epoch: epochs restart at 1 with every fresh claim, so an SDK
            // retry of our committed delete would otherwise delete the next request's claim.
            dynamo.deleteItem(b -> b.tableName(table).key(Attr.key(held.storageId()))
                    .conditionExpression("#owner = :owner AND #epoch = :epoch")
                    .expressionAttributeNames(Map.of("#owner", Table.LEASE_OWNER, "#epoch", Table.LEASE_EPOCH))
                    .expressionAttributeValues(Map.of(":owner", Attr.s(held.leaseOwner()),
                            ":epoch", Attr.n(held.leaseEpoch()))));
            return true;
        } catch (ConditionalCheckFailedException takenOverOrGone) {
            return false;
        }
    }

    private static Map<String, AttributeValue> toItem(KeyRecord r) {
        Map<String, AttributeValue> item = new HashMap<>();
        item.put(Table.PK, Attr.s(r.storageId()));
        item.put(Table.KIND, Attr.s(Table.KIND_KEY));
        item.put(Table.TENANT, Attr.s(r.tenant()));
        item.put(Table.FINGERPRINT, Attr.s(r.fingerprint().value()));
        item.put(Table.RESOURCE_ID, Attr.s(r.resourceId()));
        item.put(Table.LEASE_OWNER, Attr.s(r.leaseOwner()));
        item.put(Table.LEASE_EPOCH, Attr.n(r.leaseEpoch()));
        item.put(Table.LEASE_EXPIRES_AT, Attr.n(r.leaseExpiresAt().toEpochMilli()));
        item.put(Table.EXPIRES_AT, Attr.n(r.expiresAt().getEpochSecond()));
        item.put(Table.CREATED_AT, Attr.s(r.createdAt().toString()));
        return item;
    }

    private static KeyRecord fromItem(Map<String, AttributeValue> item) {
        return new KeyRecord(
                Attr.string(item, Table.PK),
                Attr.string(item, Table.TENANT),
                new RequestFingerprint(Attr.string(item, Table.FINGERPRINT)),
                Attr.string(item, Table.RESOURCE_ID),
                Attr.string(item, Table.LEASE_OWNER),
                Attr.number(item, Table.LEASE_EPOCH, 0),
                Instant.ofEpochMilli(Attr.number(item, Table.LEASE_EXPIRES_AT, 0)),
                Instant.ofEpochSecond(Attr.number(item, Table.EXPIRES_AT, 0)),
                Instant.parse(Attr.string(item, Table.CREATED_AT)));
    }
}
