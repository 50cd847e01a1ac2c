package dev.oncepay.drill;

import com.fasterxml.jackson.databind.JsonNode;
import dev.oncepay.contract.Attr;
import dev.oncepay.contract.Table;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * The wallet verdict: every wallet the drill used, read through the API (every page of
 * {@code GET /wallets/{walletId}}) and from the table (a scan through dynalite), against each other
 * and against every final answer the clients got. Each key's body carries its own reference, so an
 * entry names its key through the API alone.
 */
final class WalletAudit {

    /**
     * @param unbalanced wallets whose balance is not the sum of their entries (credits less debits),
     *        in the API or in the table, or whose API and table disagree
     * @param appliedTwice operations applied more than once: a key (its reference) with more than one
     *        entry, or two different entries named by 201s to one key
     * @param negative wallets whose balance, or any entry's balance after it, is below zero
     * @param answeredWithoutEntry keys a client got 201 for whose entry does not exist
     * @param refusedButApplied keys a client got 402 for that nonetheless have an entry
     * @param replaysDiffering keys whose final answers were not byte-identical (a replay must repeat the first)
     * @param unexpected answers no good client should get (400, 404, 422 for a valid body): listed, not counted
     */
    record Verdict(int wallets, int entries, int unbalanced, int appliedTwice, int negative, int answeredWithoutEntry,
            int refusedButApplied, int replaysDiffering, int unexpected, Map<String, Integer> answers,
            List<String> details) {
        int mismatches() {
            return unbalanced + appliedTwice + negative + answeredWithoutEntry + refusedButApplied + replaysDiffering;
        }

        String line() {
            return "wallet mismatches: " + mismatches();
        }

        String breakdown() {
            return String.format("  wallets %d, entries %d: unbalanced %d, applied twice %d, below zero %d, 201 without"
                    + " entry %d, 402 with entry %d, replays differing %d; unexpected answers %d", wallets, entries,
                    unbalanced, appliedTwice, negative, answeredWithoutEntry, refusedButApplied, replaysDiffering,
                    unexpected);
        }
    }

    /** An applied operation in the table: what it did to the balance, and the reference it carried. */
    record StoredEntry(long signedAmount, String reference) {
    }

    /** A wallet in the table: its balance, and its applied operations by operation id. */
    record StoredWallet(long balance, Map<String, StoredEntry> entries) {
        long sum() {
            return entries.values().stream().mapToLong(StoredEntry::signedAmount).sum();
        }
    }

    // The wallet items (the wallet package's WalletStore): the wallet item holds the balance and a
    // marker per recent operation (a map under MARKER + operation id); each operation's own item,
    // written after its marker, outlives the marker's pruning. An applied operation is an entry as either.
    /** How the pk of an operation's own item starts, before the operation id. */
    static final String OPERATION_PREFIX = "wop#";
    /** An operation's outcome as stored, for one that made an entry. */
    static final String APPLIED = "applied";

    private WalletAudit() {
    }

    /** A wallet's or a wallet operation's item (the scan hands these here; key items stay the Oracle's). */
    static boolean isWalletItem(Map<String, AttributeValue> item) {
        String kind = Attr.string(item, Table.KIND);
        return Table.KIND_WALLET.equals(kind) || Table.KIND_WALLET_OPERATION.equals(kind);
    }

    /**
     * The table's wallets by {@code <tenant>/<walletId>}: balances, and the applied operations
     * from their own items and from the markers still on the wallet item (a run that died after
     * its marker and before the operation's item, whose key nobody asked again, leaves only the
     * marker: an entry all the same, as the API shows it).
     */
    static Map<String, StoredWallet> stored(List<Map<String, AttributeValue>> items) {
        Map<String, Long> balances = new HashMap<>();
        Map<String, Map<String, StoredEntry>> entries = new HashMap<>();
        for (Map<String, AttributeValue> item : items) {
            String wallet = Attr.string(item, Table.TENANT) + "/" + Attr.string(item, Table.WALLET_ID);
            Map<String, StoredEntry> of = entries.computeIfAbsent(wallet, k -> new HashMap<>());
            if (Table.KIND_WALLET.equals(Attr.string(item, Table.KIND))) {
                // A debit refused on a wallet never credited leaves an item without a balance.
                balances.put(wallet, item.containsKey(Table.BALANCE) ? Long.parseLong(item.get(Table.BALANCE).n()) : 0);
                item.forEach((name, value) -> {
                    Map<String, AttributeValue> m = value.m();
                    if (name.startsWith(Table.MARKER) && APPLIED.equals(Attr.string(m, "outcome"))) {
                        of.putIfAbsent(name.substring(Table.MARKER.length()), entry(Attr.string(m, "kind"),
                                Long.parseLong(m.get("amount").n()), Attr.string(m, "reference")));
                    }
                });
            } else if (APPLIED.equals(Attr.string(item, Table.OUTCOME))) {
                of.put(Attr.string(item, Table.PK).substring(OPERATION_PREFIX.length()), entry(
                        Attr.string(item, Table.ENTRY_KIND), Long.parseLong(item.get(Table.AMOUNT).n()),
                        Attr.string(item, Table.REFERENCE)));
            }
        }
        Map<String, StoredWallet> result = new HashMap<>();
        entries.forEach((wallet, e) -> result.put(wallet, new StoredWallet(balances.getOrDefault(wallet, 0L), e)));
        return result;
    }

    private static StoredEntry entry(String kind, long amount, String reference) {
        return new StoredEntry("debit".equals(kind) ? -amount : amount, reference);
    }

    /**
     * @param stored the table's wallets by {@code <tenant>/<walletId>}
     */
    static Verdict judge(List<WalletRecord> records, WalletClient client, Map<String, StoredWallet> stored,
            Map<String, Integer> answers) throws IOException, InterruptedException {
        List<String> details = new ArrayList<>();
        int unbalanced = 0;
        int appliedTwice = 0;
        int negative = 0;
        int entriesSeen = 0;
        Map<String, Map<String, List<JsonNode>>> entriesByReference = new HashMap<>();
        Map<String, Set<String>> entryIds = new HashMap<>();
        Set<String> wallets = new TreeSet<>();
        records.forEach(r -> wallets.add(r.plan.tenant() + "/" + r.plan.walletId()));
        for (String wallet : wallets) {
            String tenant = wallet.substring(0, wallet.indexOf('/'));
            String walletId = wallet.substring(wallet.indexOf('/') + 1);
            WalletClient.Wallet w = client.read(tenant, walletId);
            StoredWallet s = stored.get(wallet);
            if (w == null) {
                // Never credited (404): in the table at most an item refused debits left, nothing applied.
                if (s != null && (s.balance() != 0 || !s.entries().isEmpty())) {
                    unbalanced++;
                    details.add("WALLET " + wallet + ": in the table (balance " + s.balance() + ", " + s.entries().size()
                            + " entries), 404 through the API");
                }
                continue;
            }
            entriesSeen += w.entries().size();
            long sum = 0;
            Map<String, List<JsonNode>> byReference = new LinkedHashMap<>();
            Set<String> ids = new TreeSet<>();
            for (JsonNode e : w.entries()) {
                long amount = e.path("amount").asLong();
                sum += "debit".equals(e.path("kind").asText()) ? -amount : amount;
                byReference.computeIfAbsent(e.path("reference").asText(), k -> new ArrayList<>()).add(e);
                ids.add(e.path("id").asText());
                if (e.path("balanceAfter").asLong() < 0) {
                    negative++;
                    details.add("BELOW ZERO " + wallet + ": entry " + e.path("id").asText() + " left " + e.path("balanceAfter"));
                }
            }
            entriesByReference.put(wallet, byReference);
            entryIds.put(wallet, ids);
            if (w.balance() < 0) {
                negative++;
                details.add("BELOW ZERO " + wallet + ": balance " + w.balance());
            }
            if (w.balance() != sum) {
                unbalanced++;
                details.add("UNBALANCED " + wallet + ": balance " + w.balance() + ", its " + w.entries().size()
                        + " entries sum to " + sum);
            }
            if (s == null) {
                unbalanced++;
                details.add("WALLET " + wallet + ": through the API, not in the table");
                s = new StoredWallet(0, Map.of());
            } else if (s.balance() != s.sum() || s.balance() != w.balance() || !s.entries().keySet().equals(ids)) {
                unbalanced++;
                details.add("UNBALANCED " + wallet + " in the table: balance " + s.balance() + ", " + s.entries().size()
                        + " entries summing to " + s.sum() + "; the API shows " + w.balance() + " and "
                        + w.entries().size() + " entries");
            }
            // One reference is one key: its operations, as the API lists them and as the table holds them.
            Map<String, Set<String>> operationsByReference = new TreeMap<>();
            byReference.forEach((reference, listed) -> listed.forEach(e -> operationsByReference
                    .computeIfAbsent(reference, k -> new TreeSet<>()).add(e.path("id").asText())));
            s.entries().forEach((id, e) -> operationsByReference.computeIfAbsent(e.reference(), k -> new TreeSet<>()).add(id));
            for (Map.Entry<String, Set<String>> e : operationsByReference.entrySet()) {
                if (e.getValue().size() > 1) {
                    appliedTwice += e.getValue().size() - 1;
                    details.add("APPLIED TWICE " + wallet + ": reference " + e.getKey() + " has entries " + e.getValue());
                }
            }
        }

        int withoutEntry = 0;
        int refusedButApplied = 0;
        int differing = 0;
        int unexpected = 0;
        for (WalletRecord r : records) {
            String wallet = r.plan.tenant() + "/" + r.plan.walletId();
            Map<String, List<JsonNode>> byReference = entriesByReference.getOrDefault(wallet, Map.of());
            Set<String> ids = entryIds.getOrDefault(wallet, Set.of());
            for (String key : r.keys) {
                List<WalletRecord.Answer> answered = r.answers.stream().filter(a -> a.key().equals(key)).toList();
                boolean hasEntry = byReference.containsKey(r.referenceOf.get(key));
                Set<String> named = new TreeSet<>();
                Set<String> bodies = new TreeSet<>();
                for (WalletRecord.Answer a : answered) {
                    if (a.status() == 201) {
                        named.add(String.valueOf(a.entryId()));
                        bodies.add(a.body());
                    } else if (a.status() == 402) {
                        bodies.add(a.body());
                    } else {
                        unexpected++;
                        details.add("unexpected " + a.status() + " for key " + key + " (" + wallet + "): " + a.body());
                    }
                }
                boolean created = answered.stream().anyMatch(a -> a.status() == 201);
                boolean refused = answered.stream().anyMatch(a -> a.status() == 402);
                if (named.size() > 1) {
                    appliedTwice++;
                    details.add("APPLIED TWICE key " + key + " (" + wallet + "): its 201s name entries " + named);
                }
                if (created && (!hasEntry || named.stream().anyMatch(id -> !ids.contains(id)))) {
                    withoutEntry++;
                    details.add("201 WITHOUT ENTRY key " + key + " (" + wallet + "): entries " + named
                            + ", none listed for reference " + r.referenceOf.get(key));
                }
                if (refused && hasEntry) {
                    refusedButApplied++;
                    details.add("402 WITH ENTRY key " + key + " (" + wallet + "): " + byReference.get(r.referenceOf.get(key)));
                }
                if (bodies.size() > 1) {
                    differing++;
                    details.add("REPLAY DIFFERS key " + key + " (" + wallet + "): " + bodies);
                }
            }
        }
        return new Verdict(wallets.size(), entriesSeen, unbalanced, appliedTwice, negative, withoutEntry,
                refusedButApplied, differing, unexpected, answers, details);
    }
}
