package dev.oncepay.wallet;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.oncepay.testing.TestEnvironment;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * DynamoDB requests per wallet operation, counted by the SDK execution interceptor: deterministic,
 * so asserted; the figures are in docs/wallets.md (Requests). dynalite ignores
 * ReturnValuesOnConditionCheckFailure, so a replay's failed claim costs one GetItem more here than
 * on DynamoDB.
 */
@QuarkusTest
@WithTestResource(value = TestEnvironment.class, scope = TestResourceScope.GLOBAL)
class WalletRequestCostTest extends WalletTestSupport {

    @Test
    void aCreditOrADebitCostsOneReadAndThreeWrites() {
        dynamoRequests.reset();
        assertEquals(201, credit(newKey(), 100).status());
        // the wallet read before the claim, the claim, the mark (balance, seq, marker), the entry
        assertEquals(Map.of("GetItem", 1L, "PutItem", 2L, "UpdateItem", 1L), dynamoRequests.snapshot());

        dynamoRequests.reset();
        assertEquals(201, debit(newKey(), 40).status());
        assertEquals(Map.of("GetItem", 1L, "PutItem", 2L, "UpdateItem", 1L), dynamoRequests.snapshot());
    }

    @Test
    void aReplayCostsTheWalletReadTheFailedClaimAndTwoReads() {
        credit(newKey(), 100);
        String key = newKey();
        debit(key, 40);
        dynamoRequests.reset();

        assertEquals(201, debit(key, 40).status());

        // wallet, failed claim, the key (dynalite's fallback), the operation's item
        assertEquals(Map.of("GetItem", 3L, "PutItem", 1L), dynamoRequests.snapshot());
    }

    @Test
    void aRefusedDebitCostsTwoReadsAndFourWrites() {
        credit(newKey(), 100);
        dynamoRequests.reset();

        assertEquals(402, debit(newKey(), 400).status());

        // wallet, claim, the debit's failed condition, the wallet read back, the refusal marker, its item
        assertEquals(Map.of("GetItem", 2L, "PutItem", 2L, "UpdateItem", 2L), dynamoRequests.snapshot());
    }

    @Test
    void aWalletPageCostsOneReadWhileTheMarkersHoldItAndAQueryBeyond() {
        for (int i = 0; i < WalletUseCase.MARKERS_PRUNED_AT + 4; i++) {
            credit(newKey(), 1);
        }
        dynamoRequests.reset();
        assertEquals(200, get("limit=10").status());
        assertEquals(Map.of("GetItem", 1L), dynamoRequests.snapshot());

        dynamoRequests.reset();
        assertEquals(200, get("limit=50").status());
        assertEquals(Map.of("GetItem", 1L, "Query", 1L), dynamoRequests.snapshot());
    }

    @Test
    void aPruneCostsABatchReadAndOneWriteOnceEverySoManyOperations() {
        long prunes = 0;
        for (int i = 0; i < WalletUseCase.MARKERS_PRUNED_AT * 2; i++) {
            dynamoRequests.reset();
            credit(newKey(), 1);
            prunes += dynamoRequests.snapshot().getOrDefault("BatchGetItem", 0L);
            assertEquals(dynamoRequests.snapshot().getOrDefault("BatchGetItem", 0L) + 1,
                    (long) dynamoRequests.snapshot().get("UpdateItem"), "a prune is one BatchGetItem and one write");
        }
        // markers grow from 16 kept to 32: one prune per 16 operations on a wallet
        assertEquals(3, prunes);
        assertConsistent();
    }
}
