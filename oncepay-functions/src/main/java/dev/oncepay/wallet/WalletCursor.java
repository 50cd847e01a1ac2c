package dev.oncepay.wallet;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.oncepay.validation.InvalidRequestException;
import java.nio.charset.StandardCharsets;
import java.util.Base64;

/**
 * Where a page of a wallet's entries ends, handed out as an opaque {@code nextCursor} (base64url
 * of JSON): the wallet it belongs to (a prefix of its hashed key, never the merchant's id) and the
 * lowest seq shown. Entries are never removed, so a cursor stays valid.
 */
final class WalletCursor {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int WALLET_PREFIX = 16;

    private WalletCursor() {
    }

    static String encode(WalletRef wallet, long lowestShown) {
        String json = JSON.createObjectNode().put("w", walletTag(wallet)).put("below", lowestShown).toString();
        return Base64.getUrlEncoder().withoutPadding().encodeToString(json.getBytes(StandardCharsets.UTF_8));
    }

    /**
     * @return the seq below which the next page starts
     * @throws InvalidRequestException naming {@code cursor}: not one of ours, or of another wallet
     */
    static long decode(String text, WalletRef wallet, long newestSeq) {
        JsonNode root;
        try {
            root = JSON.readTree(Base64.getUrlDecoder().decode(text));
        } catch (Exception notOurs) {
            throw invalid("is not a cursor this API handed out");
        }
        if (root == null || !walletTag(wallet).equals(root.path("w").asText(null))) {
            throw invalid("belongs to another wallet, or is not a cursor this API handed out");
        }
        JsonNode below = root.get("below");
        if (below == null || !below.isIntegralNumber() || below.asLong() < 2 || below.asLong() > newestSeq) {
            throw invalid("is not a cursor this API handed out");
        }
        return below.asLong();
    }

    private static String walletTag(WalletRef wallet) {
        return wallet.storageId().substring("wallet#".length(), "wallet#".length() + WALLET_PREFIX);
    }

    private static InvalidRequestException invalid(String why) {
        return new InvalidRequestException("cursor", why);
    }
}
