package dev.oncepay.wallet;

import static dev.oncepay.testing.Problems.assertProblem;
import static dev.oncepay.testing.Problems.errorFields;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.oncepay.contract.Table;
import dev.oncepay.testkit.HttpApiEvents;
import dev.oncepay.testing.LambdaClient;
import dev.oncepay.testing.LambdaClient.ApiResponse;
import dev.oncepay.testing.StoredItems;
import dev.oncepay.testing.TestEnvironment;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** The wallet HTTP contract, through the charge function with real API Gateway events against dynalite. */
@QuarkusTest
@WithTestResource(value = TestEnvironment.class, scope = TestResourceScope.GLOBAL)
class WalletApiTest extends WalletTestSupport {

    @Test
    void aCreditAndADebitAnswerTheEntryAndTheBalanceAfterIt() {
        ApiResponse credited = credit(newKey(), 500);
        assertEquals(201, credited.status(), credited::body);
        assertEquals("/wallets/" + walletId, credited.header("Location"));
        assertNull(credited.header("Idempotent-Replayed"));
        JsonNode c = credited.json();
        assertEquals(walletId, c.get("walletId").asText());
        assertEquals(500, c.get("balance").asLong());
        assertEquals("EUR", c.get("currency").asText());
        assertEquals("credit", c.at("/entry/kind").asText());
        assertEquals(1, c.at("/entry/seq").asLong());
        assertEquals(500, c.at("/entry/balanceAfter").asLong());

        ApiResponse debited = debit(newKey(), 200);
        assertEquals(201, debited.status(), debited::body);
        assertEquals(300, debited.json().get("balance").asLong());
        assertEquals("debit", debited.json().at("/entry/kind").asText());
        assertEquals(2, debited.json().at("/entry/seq").asLong());
        assertEquals(300, assertConsistent());
    }

    @Test
    void aReplayIsTheSameBytesMarkedReplayedAndAppliesNothing() {
        credit(newKey(), 500);
        String key = newKey();
        ApiResponse first = debit(key, 120);
        ApiResponse again = debit(key, 120);

        assertEquals(201, again.status());
        assertEquals(first.body(), again.body());
        assertEquals("true", again.header("Idempotent-Replayed"));
        assertEquals("/wallets/" + walletId, again.header("Location"));
        assertEquals(380, assertConsistent());
        assertEquals(2, allEntries(50).size());
    }

    @Test
    void theSameKeyWithAnotherBodyOrAPaymentsKeyIs422() {
        credit(newKey(), 500);
        String key = newKey();
        debit(key, 100);
        assertProblem(debit(key, 101), 422, "idempotency-key-reused");
        // Another path is another request: a debit's key on a credit, or a payment's key.
        assertProblem(LambdaClient.call(HttpApiEvents.postWallet(tenant, walletId, "credits", key,
                body(100, "EUR", "order_" + key))), 422, "idempotency-key-reused");
        assertProblem(LambdaClient.call(HttpApiEvents.postPayment(tenant, key, body(100, "EUR", "order_" + key))),
                422, "idempotency-key-reused");
        String paymentKey = newKey();
        assertEquals(201, LambdaClient.call(HttpApiEvents.postPayment(tenant, paymentKey,
                body(100, "EUR", "order_pay"))).status());
        assertProblem(debit(paymentKey, 100), 422, "idempotency-key-reused");
        assertEquals(400, assertConsistent());
    }

    @Test
    void aKeyInFlightIs409WithRetryAfter() throws Exception {
        credit(newKey(), 500);
        String key = newKey();
        hooks.parkOnceAfter(WalletPhase.KEY_CLAIMED);
        CompletableFuture<ApiResponse> parked = CompletableFuture.supplyAsync(() -> direct.call(debitEvent(key, 50)));
        assertTrue(hooks.awaitParked());

        ApiResponse concurrent = direct.call(debitEvent(key, 50));
        assertProblem(concurrent, 409, "request-in-flight");
        assertTrue(Integer.parseInt(concurrent.header("Retry-After")) >= 1);

        hooks.release();
        assertEquals(201, parked.get(30, TimeUnit.SECONDS).status());
        assertEquals(450, assertConsistent());
    }

    @Test
    void aDebitAboveTheBalanceIs402WithTheBalanceChangesNothingAndReplaysEvenAfterTheBalanceGrew() {
        credit(newKey(), 100);
        String key = newKey();
        ApiResponse refused = debit(key, 150);

        JsonNode problem = assertProblem(refused, 402, "insufficient-funds");
        assertEquals(100, problem.get("balance").asLong());
        assertEquals("EUR", problem.get("currency").asText());
        assertEquals(walletId, problem.get("walletId").asText());
        assertEquals(100, assertConsistent());
        assertEquals(1, allEntries(50).size(), "a refusal is no entry");

        credit(newKey(), 100);
        ApiResponse replayed = debit(key, 150);
        assertEquals(402, replayed.status());
        assertEquals(refused.body(), replayed.body(), "the recorded answer, not a debit now");
        assertEquals("true", replayed.header("Idempotent-Replayed"));
        assertEquals(200, assertConsistent());
    }

    @Test
    void aDebitOfAWalletThatDoesNotExistIs402WithBalanceZeroAndTheWalletStaysUnknown() {
        JsonNode problem = assertProblem(debit(newKey(), 10), 402, "insufficient-funds");
        assertEquals(0, problem.get("balance").asLong());
        assertTrue(problem.get("currency").isNull());
        assertProblem(get(""), 404, "not-found");

        assertEquals(201, credit(newKey(), 30).status(), "the first credit still fixes the currency");
        assertEquals(30, assertConsistent());
    }

    @Test
    void anotherCurrencyIs400AndStoresNothingSoTheCorrectedRetryWorks() {
        credit(newKey(), 100);
        long items = StoredItems.ofTenant(tenant).size();
        String key = newKey();
        for (String operation : List.of("credits", "debits")) {
            ApiResponse mismatch = LambdaClient.call(HttpApiEvents.postWallet(tenant, walletId, operation, key,
                    body(10, "USD", "order_usd")));
            JsonNode problem = assertProblem(mismatch, 400, "currency-mismatch");
            assertEquals("EUR", problem.get("currency").asText());
            assertEquals(items, StoredItems.ofTenant(tenant).size(), "nothing stored, the key released");
        }
        assertEquals(201, LambdaClient.call(HttpApiEvents.postWallet(tenant, walletId, "debits", key,
                body(10, "EUR", "order_usd"))).status());
        assertEquals(90, assertConsistent());
    }

    @Test
    void anotherTenantsWalletIs404AndTheSameIdUnderTwoTenantsIsTwoWallets() {
        credit(newKey(), 100);
        String other = tenant + "-other";
        ApiResponse foreign = LambdaClient.call(HttpApiEvents.getWallet(other, walletId, ""));
        assertProblem(foreign, 404, "not-found");
        assertTrue(!foreign.body().contains("100"), "no data of the other tenant's wallet");

        ApiResponse theirs = LambdaClient.call(HttpApiEvents.postWallet(other, walletId, "debits", newKey(),
                body(50, "EUR", "order_other")));
        assertEquals(0, assertProblem(theirs, 402, "insufficient-funds").get("balance").asLong());
        assertEquals(201, LambdaClient.call(HttpApiEvents.postWallet(other, walletId, "credits", newKey(),
                body(7, "USD", "order_other"))).status(), "their wallet, their currency");
        assertEquals(7, LambdaClient.call(HttpApiEvents.getWallet(other, walletId, "")).json().get("balance").asLong());
        assertEquals(100, assertConsistent());
    }

    @Test
    void entriesArePagedNewestFirstWithAnOpaqueCursorPastTheMarkersTheWalletKeeps() {
        int operations = WalletUseCase.MARKERS_PRUNED_AT + 8; // some pruned: older pages come from the index
        for (int i = 0; i < operations; i++) {
            assertEquals(201, (i % 3 == 2 ? debit(newKey(), 1) : credit(newKey(), 5)).status());
        }
        ApiResponse first = get("limit=3");
        assertEquals(200, first.status());
        List<Long> seqs = Stream.of(0, 1, 2).map(i -> first.json().at("/entries/" + i + "/seq").asLong()).toList();
        assertEquals(List.of((long) operations, operations - 1L, operations - 2L), seqs);
        assertTrue(first.json().get("nextCursor").isTextual());

        List<JsonNode> all = allEntries(7);
        assertEquals(operations, all.size());
        assertConsistent();
        assertTrue(storedItems(Table.KIND_WALLET).get(0).keySet().stream().filter(a -> a.startsWith(Table.MARKER))
                .count() < WalletUseCase.MARKERS_PRUNED_AT, "the marker set was pruned");
        assertEquals(operations, storedItems(Table.KIND_WALLET_OPERATION).size(), "each operation has its item");

        assertProblem(get("cursor=bm90LW91cnM"), 400, "invalid-request");
        String cursor = first.json().get("nextCursor").asText();
        ApiResponse foreign = LambdaClient.call(HttpApiEvents.getWallet(tenant, walletId + "x", ""));
        assertProblem(foreign, 404, "not-found");
        credit(newKey(), 1);
        assertEquals(200, get("cursor=" + cursor).status(), "a cursor stays valid as the wallet grows");
        assertProblem(get("limit=0"), 400, "invalid-request");
        assertProblem(get("limit=201"), 400, "invalid-request");
        assertProblem(get("sort=asc"), 400, "invalid-request");
    }

    static Stream<Arguments> badRequests() {
        Function<String, String> body = reference -> "{\"amount\":10,\"currency\":\"EUR\",\"reference\":\"" + reference
                + "\"}";
        return Stream.of(
                bad("amount", e -> e.body("{\"amount\":0,\"currency\":\"EUR\",\"reference\":\"r\"}")),
                bad("amount", e -> e.body("{\"amount\":-5,\"currency\":\"EUR\",\"reference\":\"r\"}")),
                bad("amount", e -> e.body("{\"amount\":100000000,\"currency\":\"EUR\",\"reference\":\"r\"}")),
                bad("amount", e -> e.body("{\"amount\":1.5,\"currency\":\"EUR\",\"reference\":\"r\"}")),
                bad("amount", e -> e.body("{\"amount\":\"10\",\"currency\":\"EUR\",\"reference\":\"r\"}")),
                bad("currency", e -> e.body("{\"amount\":10,\"currency\":\"eur\",\"reference\":\"r\"}")),
                bad("currency", e -> e.body("{\"amount\":10,\"currency\":\"XXX\",\"reference\":\"r\"}")),
                bad("reference", e -> e.body("{\"amount\":10,\"currency\":\"EUR\"}")),
                bad("reference", e -> e.body(body.apply("r".repeat(129)))),
                bad("description", e -> e.body("{\"amount\":10,\"currency\":\"EUR\",\"reference\":\"r\",\"description\":\"d\"}")),
                bad("body", e -> e.body("{\"amount\":10,")),
                bad("body", e -> e.body("{\"amount\":10,\"currency\":\"EUR\",\"reference\":\"r\"}" + " ".repeat(5000))),
                bad("Idempotency-Key", e -> e.withoutHeader("idempotency-key")),
                bad("Idempotency-Key", e -> e.header("idempotency-key", "k".repeat(256))),
                bad("Content-Type", e -> e.header("content-type", "text/plain")));
    }

    private static Arguments bad(String field, Function<HttpApiEvents, HttpApiEvents> spoil) {
        return Arguments.of(field, spoil);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("badRequests")
    void everyBadInputIs400NamingTheFieldAndStoresNothing(String field,
            Function<HttpApiEvents, HttpApiEvents> spoil) {
        for (String operation : List.of("credits", "debits")) {
            HttpApiEvents event = spoil.apply(HttpApiEvents.postWallet(tenant, walletId, operation, newKey(),
                    body(10, "EUR", "r")));
            ApiResponse answer = LambdaClient.call(event);
            assertProblem(answer, 400, "invalid-request");
            assertTrue(errorFields(answer).contains(field), () -> answer.body());
        }
        assertEquals(List.of(), StoredItems.ofTenant(tenant), "nothing stored");
    }

    @Test
    void aMalformedWalletIdIs400AndStoresNothing() {
        for (String id : List.of("bad.id", "w".repeat(65), "caf%C3%A9")) {
            ApiResponse answer = LambdaClient.call(HttpApiEvents.postWallet(tenant, id, "credits", newKey(),
                    body(10, "EUR", "r")));
            assertProblem(answer, 400, "invalid-request");
            assertEquals(Set.of("walletId"), errorFields(answer));
            assertEquals(Set.of("walletId"), errorFields(LambdaClient.call(HttpApiEvents.getWallet(tenant, id, ""))));
        }
        assertEquals(List.of(), StoredItems.ofTenant(tenant), "nothing stored");
    }

    @Test
    void otherMethodsAre405NamingTheOnesAllowed() {
        ApiResponse delete = LambdaClient.call(HttpApiEvents.request("DELETE", "/wallets/" + walletId).tenant(tenant));
        assertProblem(delete, 405, "method-not-allowed");
        assertEquals("GET", delete.header("Allow"));
        ApiResponse getDebits = LambdaClient.call(HttpApiEvents.request("GET", "/wallets/" + walletId + "/debits")
                .tenant(tenant));
        assertEquals("POST", getDebits.header("Allow"));
        assertProblem(LambdaClient.call(HttpApiEvents.request("POST", "/wallets/" + walletId + "/refunds")
                .tenant(tenant)), 404, "not-found");
    }
}
