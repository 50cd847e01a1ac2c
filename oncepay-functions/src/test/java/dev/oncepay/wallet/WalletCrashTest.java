package dev.oncepay.wallet;

import static dev.oncepay.testing.Problems.assertProblem;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.oncepay.contract.Table;
import dev.oncepay.testing.LambdaClient.ApiResponse;
import dev.oncepay.testkit.StoreFault;
import dev.oncepay.testkit.StoreFaultProxy;
import dev.oncepay.testing.TestEnvironment;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The process dies between steps, or the store loses an answer, or a frozen run wakes after its
 * marker was pruned: the retry applies the operation exactly once, entry and balance together.
 */
@QuarkusTest
@WithTestResource(value = TestEnvironment.class, scope = TestResourceScope.GLOBAL)
class WalletCrashTest extends WalletTestSupport {

    @ParameterizedTest
    @EnumSource(WalletPhase.class)
    void aRetryAfterACrashAfterAnyStepAppliesTheDebitExactlyOnce(WalletPhase crashAfter) {
        credit(newKey(), 100);
        String key = newKey();
        hooks.crashOnceAfter(crashAfter);

        assertEquals(-1, debit(key, 30).status(), "the invocation failed like a crashed process");
        ApiResponse early = debit(key, 30);
        if (crashAfter == WalletPhase.RECORDED) {
            assertEquals(201, early.status(), "the key was done: a replay");
        } else {
            assertEquals(409, early.status(), "while the dead run's lease lasts, the key is in flight");
            assertEquals(crashAfter == WalletPhase.MARKED ? 70 : 100, assertConsistent(),
                    "a marked debit is in the balance and, from its marker, in the entries");
        }

        clock.advance(lease.plusSeconds(1));
        ApiResponse recovered = debit(key, 30);

        assertEquals(201, recovered.status(), recovered::body);
        assertEquals(70, recovered.json().get("balance").asLong());
        assertEquals(70, assertConsistent());
        assertEquals(2, allEntries(50).size(), "applied once");
        ApiResponse replay = debit(key, 30);
        assertEquals(recovered.body(), replay.body());
        assertEquals("true", replay.header("Idempotent-Replayed"));
    }

    @Test
    void aRefusalMarkedBeforeACrashStaysTheAnswerAfterTheBalanceGrew() {
        credit(newKey(), 100);
        String key = newKey();
        hooks.crashOnceAfter(WalletPhase.MARKED);
        assertEquals(-1, debit(key, 500).status());
        credit(newKey(), 1000);

        clock.advance(lease.plusSeconds(1));
        ApiResponse recovered = debit(key, 500);

        assertEquals(100, assertProblem(recovered, 402, "insufficient-funds").get("balance").asLong());
        assertEquals(1100, assertConsistent());
    }

    @Test
    void aLostAnswerOnTheMarkIsReadBackNeverAppliedTwice() {
        credit(newKey(), 100);
        StoreFaultProxy store = TestEnvironment.storeProxy();
        // Every attempt (the SDK's retries too) commits or meets its own marker, and loses its answer.
        store.failNext("UpdateItem", "wallet#", StoreFault.LOST_ANSWER, 20);

        ApiResponse debited = debit(newKey(), 40);
        long lost = store.injected(StoreFault.LOST_ANSWER);
        store.reset();

        assertTrue(lost >= 1, "the mark's answer was lost");

        assertEquals(201, debited.status(), debited::body);
        assertEquals(60, debited.json().get("balance").asLong());
        assertEquals(60, assertConsistent());
        assertEquals(2, allEntries(50).size());
    }

    @Test
    void aFrozenRunThatWakesAfterItsMarkerWasPrunedCannotApplyAgain() throws Exception {
        credit(newKey(), 1000);
        String key = newKey();
        hooks.parkOnceAfter(WalletPhase.KEY_CLAIMED);
        CompletableFuture<ApiResponse> frozen = CompletableFuture.supplyAsync(() -> direct.call(debitEvent(key, 7)));
        assertTrue(hooks.awaitParked(), "the first run holds the key, not yet marked");

        clock.advance(lease.plusSeconds(1));
        ApiResponse takenOver = direct.call(debitEvent(key, 7));
        assertEquals(201, takenOver.status(), takenOver::body);
        String operationId = takenOver.json().at("/entry/id").asText();
        for (int i = 0; i < WalletUseCase.MARKERS_PRUNED_AT; i++) {
            assertEquals(201, direct.call(creditEvent(newKey(), 1)).status());
        }
        assertFalse(storedItems(Table.KIND_WALLET).get(0).containsKey(Table.MARKER + operationId),
                "the takeover's marker was pruned");

        hooks.release();
        ApiResponse woke = frozen.get(30, TimeUnit.SECONDS);

        assertEquals(201, woke.status(), woke::body);
        assertEquals(operationId, woke.json().at("/entry/id").asText(), "the operation the takeover applied");
        assertEquals(1000 - 7 + WalletUseCase.MARKERS_PRUNED_AT, assertConsistent(), "debited once");
    }
}
