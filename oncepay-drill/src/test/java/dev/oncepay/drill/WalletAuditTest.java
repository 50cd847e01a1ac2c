package dev.oncepay.drill;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import dev.oncepay.contract.Table;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.http.HttpClient;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * The wallet verdict on made-up evidence: a stand-in API over real HTTP serves a wallet in two pages
 * (as {@code GET /wallets/{walletId}} pages with {@code nextCursor}), the table's view is given, and
 * each rule of {@code wallet mismatches} is shown to count. (The drill shows it on a real run.)
 */
class WalletAuditTest {
    private static final String TENANT = "merchant-a";
    private static final String WALLET = "wal_audit";

    private HttpServer api;
    /** The entries the stand-in API lists, newest first, and the balance it shows. */
    private final List<String> entries = new ArrayList<>();
    private long balance;
    /** The table's view of the wallet: its balance and its applied operations. */
    private long storedBalance;
    private final Map<String, WalletAudit.StoredEntry> stored = new HashMap<>();
    private final List<WalletRecord> records = new ArrayList<>();

    @BeforeEach
    void start() throws Exception {
        api = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        api.createContext("/wallets/", exchange -> {
            boolean second = String.valueOf(exchange.getRequestURI().getQuery()).contains("cursor=page2");
            boolean ours = exchange.getRequestURI().getPath().equals("/wallets/" + WALLET)
                    && TENANT.equals(exchange.getRequestHeaders().getFirst("X-Tenant-Id"));
            int half = (entries.size() + 1) / 2;
            List<String> page = second ? entries.subList(half, entries.size()) : entries.subList(0, half);
            String body = !ours ? "{}" : "{\"walletId\":\"" + WALLET + "\",\"balance\":" + balance
                    + ",\"currency\":\"EUR\",\"entries\":[" + String.join(",", page) + "],\"nextCursor\":"
                    + (second ? "null" : "\"page2\"") + "}";
            byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
            exchange.sendResponseHeaders(ours ? 200 : 404, bytes.length);
            exchange.getResponseBody().write(bytes);
            exchange.close();
        });
        api.start();
    }

    @AfterEach
    void stop() {
        api.stop(0);
    }

    private static String entry(String id, String kind, long amount, String reference, long balanceAfter) {
        return "{\"id\":\"" + id + "\",\"kind\":\"" + kind + "\",\"amount\":" + amount + ",\"currency\":\"EUR\","
                + "\"reference\":\"" + reference + "\",\"balanceAfter\":" + balanceAfter + "}";
    }

    /** Operation {@code index} (its key {@code drill-wallet-t-<index>}, reference {@code wop_t_<index>}). */
    private WalletRecord operation(int index, WalletWorkload.Kind kind, long amount) {
        WalletRecord r = new WalletRecord(new WalletWorkload.Plan(index, TENANT, WALLET, kind, amount,
                "drill-wallet-t-" + index, "wop_t_" + index, Workload.Behaviour.NORMAL, 0, false, index == 0));
        records.add(r);
        return r;
    }

    private static void answered(WalletRecord r, int status, String entryId) {
        r.answered(0, new WalletRecord.Answer(r.key(0), status, entryId, false,
                status == 201 ? "{\"entry\":{\"id\":\"" + entryId + "\"}}" : "{\"status\":402}"));
    }

    /** An operation applied as it should be: its entry listed first by the API and held by the table, both balances moved. */
    private void applied(String id, String kind, long amount, String reference) {
        long signed = kind.equals("debit") ? -amount : amount;
        balance += signed;
        storedBalance += signed;
        entries.add(0, entry(id, kind, amount, reference, balance));
        stored.put(id, new WalletAudit.StoredEntry(signed, reference));
    }

    /** A credit of 1000 (op 0), a debit of 300 (op 1), a refused debit (op 2): consistent everywhere. */
    private void consistentWallet() {
        answered(operation(0, WalletWorkload.Kind.CREDIT, 1000), 201, "wop_a");
        answered(operation(1, WalletWorkload.Kind.DEBIT, 300), 201, "wop_b");
        answered(operation(2, WalletWorkload.Kind.DEBIT, 5000), 402, null);
        applied("wop_a", "credit", 1000, "wop_t_0");
        applied("wop_b", "debit", 300, "wop_t_1");
    }
    private WalletAudit.Verdict judge() throws Exception {
        WalletClient client = new WalletClient(HttpClient.newHttpClient(), "http://127.0.0.1:" + api.getAddress().getPort());
        return WalletAudit.judge(records, client,
                Map.of(TENANT + "/" + WALLET, new WalletAudit.StoredWallet(storedBalance, stored)), Map.of());
    }

    @Test
    void aConsistentWalletHasNoMismatchAcrossPages() throws Exception {
        consistentWallet();
        WalletAudit.Verdict v = judge();
        assertEquals(0, v.mismatches(), v.details().toString());
        assertEquals(2, v.entries(), "both pages read");
        assertEquals("wallet mismatches: 0", v.line());
    }

    @Test
    void aBalanceThatIsNotTheSumOfItsEntriesCounts() throws Exception {
        consistentWallet();
        balance = 400; // the API's balance moved without an entry
        WalletAudit.Verdict v = judge();
        assertTrue(v.unbalanced() >= 1, v.details().toString());
        assertEquals(v.unbalanced(), v.mismatches());
    }

    @Test
    void anOperationWithTwoEntriesIsAppliedTwice() throws Exception {
        consistentWallet();
        applied("wop_c", "debit", 300, "wop_t_1"); // op 1's reference: its key applied again
        WalletAudit.Verdict v = judge();
        assertEquals(1, v.appliedTwice(), v.details().toString());
        assertEquals(1, v.mismatches(), v.details().toString());
    }

    @Test
    void a201WithoutItsEntryAndA402WithOneCount() throws Exception {
        consistentWallet();
        answered(operation(3, WalletWorkload.Kind.CREDIT, 50), 201, "wop_lost");
        answered(operation(4, WalletWorkload.Kind.DEBIT, 100), 402, null);
        applied("wop_d", "debit", 100, "wop_t_4");
        WalletAudit.Verdict v = judge();
        assertEquals(1, v.answeredWithoutEntry(), v.details().toString());
        assertEquals(1, v.refusedButApplied(), v.details().toString());
        assertEquals(2, v.mismatches(), v.details().toString());
    }

    @Test
    void aNegativeBalanceAndATableThatDisagreesCount() throws Exception {
        consistentWallet();
        answered(operation(5, WalletWorkload.Kind.DEBIT, 900), 201, "wop_e");
        applied("wop_e", "debit", 900, "wop_t_5");
        storedBalance = 700; // the table did not move
        stored.remove("wop_e");
        WalletAudit.Verdict v = judge();
        assertEquals(2, v.negative(), "the balance and the entry's balance after it: " + v.details());
        assertEquals(1, v.unbalanced(), "the table still shows 700: " + v.details());
    }

    /**
     * The table as the wallet store writes it: an operation's own item, its marker on the wallet
     * item (the same entry, counted once), a marker alone (a run died before the item), a refused
     * debit's marker and item (no entry), and a wallet item refused debits alone left (no balance).
     */
    @Test
    void theTableViewCountsEachAppliedOperationOnceFromItsItemOrItsMarker() {
        Map<String, AttributeValue> wallet = new HashMap<>();
        wallet.put(Table.PK, AttributeValue.fromS("wallet#abc"));
        wallet.put(Table.KIND, AttributeValue.fromS(Table.KIND_WALLET));
        wallet.put(Table.TENANT, AttributeValue.fromS(TENANT));
        wallet.put(Table.WALLET_ID, AttributeValue.fromS(WALLET));
        wallet.put(Table.BALANCE, AttributeValue.fromN("700"));
        wallet.put(Table.MARKER + "wop_a", marker("credit", "applied", 1000, "wop_t_0"));
        wallet.put(Table.MARKER + "wop_b", marker("debit", "applied", 300, "wop_t_1"));
        wallet.put(Table.MARKER + "wop_r", marker("debit", "refused", 5000, "wop_t_2"));
        Map<String, AttributeValue> lonely = new HashMap<>(Map.of(Table.PK, AttributeValue.fromS("wallet#def"),
                Table.KIND, AttributeValue.fromS(Table.KIND_WALLET), Table.TENANT, AttributeValue.fromS("merchant-b"),
                Table.WALLET_ID, AttributeValue.fromS(WALLET), Table.MARKER + "wop_x", marker("debit", "refused", 5, "wop_t_9")));

        Map<String, WalletAudit.StoredWallet> fromTable = WalletAudit.stored(List.of(wallet, lonely,
                operation("wop_a", "credit", "applied", 1000, "wop_t_0"),
                operation("wop_r", "debit", "refused", 5000, "wop_t_2")));

        WalletAudit.StoredWallet w = fromTable.get(TENANT + "/" + WALLET);
        assertEquals(700, w.balance());
        assertEquals(Map.of("wop_a", new WalletAudit.StoredEntry(1000, "wop_t_0"),
                "wop_b", new WalletAudit.StoredEntry(-300, "wop_t_1")), w.entries());
        assertEquals(700, w.sum());
        assertEquals(new WalletAudit.StoredWallet(0, Map.of()), fromTable.get("merchant-b/" + WALLET));
    }

    private static AttributeValue marker(String kind, String outcome, long amount, String reference) {
        return AttributeValue.fromM(Map.of("kind", AttributeValue.fromS(kind), Table.OUTCOME, AttributeValue.fromS(outcome),
                "amount", AttributeValue.fromN(Long.toString(amount)), "reference", AttributeValue.fromS(reference)));
    }

    private static Map<String, AttributeValue> operation(String id, String kind, String outcome, long amount,
            String reference) {
        return Map.of(Table.PK, AttributeValue.fromS("wop#" + id), Table.KIND, AttributeValue.fromS(Table.KIND_WALLET_OPERATION),
                Table.TENANT, AttributeValue.fromS(TENANT), Table.WALLET_ID, AttributeValue.fromS(WALLET),
                Table.ENTRY_KIND, AttributeValue.fromS(kind), Table.OUTCOME, AttributeValue.fromS(outcome),
                Table.AMOUNT, AttributeValue.fromN(Long.toString(amount)), Table.REFERENCE, AttributeValue.fromS(reference));
    }

    @Test
    void repliesToOneKeyMustBeIdentical() throws Exception {
        consistentWallet();
        WalletRecord r = records.get(1);
        r.answered(0, new WalletRecord.Answer(r.key(0), 201, "wop_b", true, "{\"entry\":{\"id\":\"wop_b\"},\"x\":1}"));
        WalletAudit.Verdict v = judge();
        assertEquals(1, v.replaysDiffering(), v.details().toString());
        assertEquals(1, v.mismatches());
    }
}
