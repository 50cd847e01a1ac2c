package dev.oncepay.contract;

import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeDefinition;
import software.amazon.awssdk.services.dynamodb.model.BillingMode;
import software.amazon.awssdk.services.dynamodb.model.CreateTableRequest;
import software.amazon.awssdk.services.dynamodb.model.GlobalSecondaryIndex;
import software.amazon.awssdk.services.dynamodb.model.KeySchemaElement;
import software.amazon.awssdk.services.dynamodb.model.KeyType;
import software.amazon.awssdk.services.dynamodb.model.Projection;
import software.amazon.awssdk.services.dynamodb.model.ProjectionType;
import software.amazon.awssdk.services.dynamodb.model.ResourceInUseException;
import software.amazon.awssdk.services.dynamodb.model.ScalarAttributeType;

/**
 * Creates the table for tests and the local run. Production creates it with CDK from the same
 * {@link Table} constants; {@code infra/} tests check the two agree.
 */
public final class TableSchema {
    private TableSchema() {
    }

    public static CreateTableRequest createTableRequest(String tableName) {
        return CreateTableRequest.builder()
                .tableName(tableName)
                .billingMode(BillingMode.PAY_PER_REQUEST)
                .attributeDefinitions(
                        attribute(Table.PK, ScalarAttributeType.S),
                        attribute(Table.SWEEP_SHARD, ScalarAttributeType.S),
                        attribute(Table.NEXT_CHECK_AT, ScalarAttributeType.N),
                        attribute(Table.ATTENTION_KEY, ScalarAttributeType.S),
                        attribute(Table.CREATED_AT_MS, ScalarAttributeType.N),
                        attribute(Table.WALLET, ScalarAttributeType.S),
                        attribute(Table.WALLET_SEQ, ScalarAttributeType.N),
                        attribute(Table.OUTBOX_SHARD, ScalarAttributeType.S),
                        attribute(Table.OUTBOX_AT, ScalarAttributeType.N),
                        attribute(Table.DELIVERY_ENDPOINT, ScalarAttributeType.S),
                        attribute(Table.EVENT_AT_MS, ScalarAttributeType.N))
                .keySchema(KeySchemaElement.builder().attributeName(Table.PK).keyType(KeyType.HASH).build())
                .globalSecondaryIndexes(GlobalSecondaryIndex.builder()
                        .indexName(Table.SWEEP_INDEX)
                        .keySchema(
                                KeySchemaElement.builder().attributeName(Table.SWEEP_SHARD).keyType(KeyType.HASH).build(),
                                KeySchemaElement.builder().attributeName(Table.NEXT_CHECK_AT).keyType(KeyType.RANGE).build())
                        // The sweep re-reads every item consistently before acting, so keys are enough.
                        .projection(Projection.builder().projectionType(ProjectionType.KEYS_ONLY).build())
                        .build(),
                        GlobalSecondaryIndex.builder()
                        .indexName(Table.ATTENTION_INDEX)
                        .keySchema(
                                KeySchemaElement.builder().attributeName(Table.ATTENTION_KEY).keyType(KeyType.HASH).build(),
                                KeySchemaElement.builder().attributeName(Table.CREATED_AT_MS).keyType(KeyType.RANGE).build())
                        .projection(Projection.builder().projectionType(ProjectionType.INCLUDE)
                                .nonKeyAttributes(Table.ATTENTION_PROJECTION).build())
                        .build(),
                        GlobalSecondaryIndex.builder()
                        .indexName(Table.WALLET_INDEX)
                        .keySchema(
                                KeySchemaElement.builder().attributeName(Table.WALLET).keyType(KeyType.HASH).build(),
                                KeySchemaElement.builder().attributeName(Table.WALLET_SEQ).keyType(KeyType.RANGE).build())
                        // A page shows whole entries: small items, all of them projected.
                        .projection(Projection.builder().projectionType(ProjectionType.ALL).build())
                        .build(),
                        GlobalSecondaryIndex.builder()
                        .indexName(Table.OUTBOX_INDEX)
                        .keySchema(
                                KeySchemaElement.builder().attributeName(Table.OUTBOX_SHARD).keyType(KeyType.HASH).build(),
                                KeySchemaElement.builder().attributeName(Table.OUTBOX_AT).keyType(KeyType.RANGE).build())
                        // The relay re-reads the item consistently, so keys are enough.
                        .projection(Projection.builder().projectionType(ProjectionType.KEYS_ONLY).build())
                        .build(),
                        GlobalSecondaryIndex.builder()
                        .indexName(Table.DELIVERY_INDEX)
                        .keySchema(
                                KeySchemaElement.builder().attributeName(Table.DELIVERY_ENDPOINT).keyType(KeyType.HASH).build(),
                                KeySchemaElement.builder().attributeName(Table.EVENT_AT_MS).keyType(KeyType.RANGE).build())
                        // A listing shows whole delivery records: small items, all projected.
                        .projection(Projection.builder().projectionType(ProjectionType.ALL).build())
                        .build())
                .build();
    }

    /** Creates the table if it does not exist and waits until it is active. */
    public static void createIfMissing(DynamoDbClient dynamo, String tableName) {
        try {
            dynamo.createTable(createTableRequest(tableName));
        } catch (ResourceInUseException alreadyThere) {
            // Created by an earlier run or another process: fine.
        }
        dynamo.waiter().waitUntilTableExists(b -> b.tableName(tableName));
    }

    private static AttributeDefinition attribute(String name, ScalarAttributeType type) {
        return AttributeDefinition.builder().attributeName(name).attributeType(type).build();
    }
}
