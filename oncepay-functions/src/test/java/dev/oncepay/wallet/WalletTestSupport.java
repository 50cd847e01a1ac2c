package dev.oncepay.wallet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.oncepay.contract.Table;
import dev.oncepay.testing.FunctionTestSupport;
import dev.oncepay.testkit.HttpApiEvents;
import dev.oncepay.testing.LambdaClient;
import dev.oncepay.testing.LambdaClient.ApiResponse;
import dev.oncepay.testing.StoredItems;
import dev.oncepay.testing.TestEnvironment;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/** Shared set-up of the wallet tests: a tenant and a wallet of the test alone, a clean clock, hooks and store. */
abstract class WalletTestSupport extends FunctionTestSupport {
    String tenant;
    String walletId;

    @BeforeEach
    void cleanSlate() {
        clock.reset();
        hooks.reset();
        TestEnvironment.storeProxy().reset();
        dynamoRequests.reset();
        tenant = "merchant-" + UUID.randomUUID().toString().substring(0, 8);
        walletId = "wallet_" + UUID.randomUUID().toString().substring(0, 8);
    }

    @AfterEach
    void releaseParkedRuns() {
        hooks.reset();
        TestEnvironment.storeProxy().reset();
    }

    static String body(long amount, String currency, String reference) {
        return "{\"amount\":" + amount + ",\"currency\":\"" + currency + "\",\"reference\":\"" + reference + "\"}";
    }

    static String newKey() {
        return UUID.randomUUID().toString();
    }

    HttpApiEvents creditEvent(String key, long amount) {
        return HttpApiEvents.postWallet(tenant, walletId, "credits", key, body(amount, "EUR", "order_" + key));
    }

    HttpApiEvents debitEvent(String key, long amount) {
        return HttpApiEvents.postWallet(tenant, walletId, "debits", key, body(amount, "EUR", "order_" + key));
    }

    ApiResponse credit(String key, long amount) {
        return LambdaClient.call(creditEvent(key, amount));
    }

    ApiResponse debit(String key, long amount) {
        return LambdaClient.call(debitEvent(key, amount));
    }

    ApiResponse get(String query) {
        return LambdaClient.call(HttpApiEvents.getWallet(tenant, walletId, query));
    }

    /** Every entry of the wallet, newest first, read page by page through the API. */
    List<JsonNode> allEntries(int limit) {
        List<JsonNode> entries = new ArrayList<>();
        String query = "limit=" + limit;
        while (true) {
            ApiResponse page = get(query);
            assertEquals(200, page.status(), page::body);
            page.json().get("entries").forEach(entries::add);
            JsonNode next = page.json().get("nextCursor");
            if (next.isNull()) {
                return entries;
            }
            query = "limit=" + limit + "&cursor=" + URLEncoder.encode(next.asText(), StandardCharsets.UTF_8);
        }
    }

    /**
     * The wallet is consistent through the API and in the table: seqs 1..n without a gap, each
     * entry's balance follows from the one before, the balance is the sum of the entries, every
     * operation id at most once; and each entry has its own item (the run or a prune wrote it).
     *
     * @return the balance
     */
    long assertConsistent() {
        ApiResponse wallet = get("");
        assertEquals(200, wallet.status(), wallet::body);
        long balance = wallet.json().get("balance").asLong();
        List<JsonNode> entries = allEntries(7);
        long sum = 0;
        Set<String> ids = new HashSet<>();
        for (int i = entries.size() - 1; i >= 0; i--) {
            JsonNode e = entries.get(i);
            assertEquals(entries.size() - i, e.get("seq").asLong(), "seqs without gaps, newest first");
            long amount = e.get("amount").asLong();
            sum += "credit".equals(e.get("kind").asText()) ? amount : -amount;
            assertEquals(sum, e.get("balanceAfter").asLong(), "balance after entry " + e.get("seq"));
            assertTrue(sum >= 0, "never below zero");
            assertTrue(ids.add(e.get("id").asText()), "each operation once");
        }
        assertEquals(sum, balance, "the balance is the sum of its entries");
        return balance;
    }

    /** This test's items of {@code kind} ({@code Table.KIND_*}), read by the test's own client. */
    List<Map<String, AttributeValue>> storedItems(String kind) {
        return StoredItems.ofTenant(tenant).stream().filter(i -> kind.equals(i.get(Table.KIND).s())).toList();
    }
}
