package dev.oncepay.api;

import dev.oncepay.config.OncepayConfig;
import dev.oncepay.http.HttpApiEvent;
import dev.oncepay.http.HttpApiResponse;
import dev.oncepay.validation.InvalidRequestException;
import dev.oncepay.idempotency.IdempotencyKey;
import dev.oncepay.idempotency.RequestFingerprint;
import dev.oncepay.wallet.EntryKind;
import dev.oncepay.wallet.WalletAnswer;
import dev.oncepay.wallet.WalletCommand;
import dev.oncepay.wallet.WalletRef;
import dev.oncepay.wallet.WalletRequest;
import dev.oncepay.wallet.WalletUseCase;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * {@code POST /wallets/{walletId}/credits|debits} and {@code GET /wallets/{walletId}}: API Gateway
 * events in, responses out.
 */
@ApplicationScoped
public class WalletsHttp {
    public static final String PREFIX = "/wallets/";
    static final int DEFAULT_LIMIT = 50;
    static final int MAX_LIMIT = 200;
    private static final Set<String> PAGE_PARAMETERS = Set.of("limit", "cursor");
    private static final Map<String, EntryKind> OPERATIONS = Map.of("credits", EntryKind.CREDIT,
            "debits", EntryKind.DEBIT);

    private final WalletUseCase wallets;
    private final TenantResolver tenants;
    private final HttpResponses responses;
    private final ProblemMapping problems;
    private final OncepayConfig config;

    public WalletsHttp(WalletUseCase wallets, TenantResolver tenants, HttpResponses responses, ProblemMapping problems,
            OncepayConfig config) {
        this.wallets = wallets;
        this.tenants = tenants;
        this.responses = responses;
        this.problems = problems;
        this.config = config;
    }

    public HttpApiResponse handle(HttpApiEvent event) {
        try {
            String[] segments = event.path().substring(PREFIX.length()).split("/", -1);
            if (segments.length == 1) {
                return "GET".equals(event.method()) ? show(event, segments[0]) : responses.methodNotAllowed("GET");
            }
            EntryKind kind = segments.length == 2 ? OPERATIONS.get(segments[1]) : null;
            if (kind == null) {
                return responses.problem(ProblemType.NOT_FOUND, "no such route");
            }
            return "POST".equals(event.method()) ? operate(event, segments[0], kind)
                    : responses.methodNotAllowed("POST");
        } catch (RuntimeException e) {
            return problems.problemFor(e, ProblemMapping.Api.WALLETS);
        }
    }

    private HttpApiResponse operate(HttpApiEvent event, String walletId, EntryKind kind) {
        String tenant = tenants.tenantOf(event);
        String key = IdempotencyKeyHeader.of(event);
        if (!WalletRef.isWellFormedId(walletId)) {
            throw invalidWalletId();
        }
        WalletRequest request = WalletRequest.parse(event.jsonBody());
        RequestFingerprint fingerprint = RequestFingerprint.of("POST", event.path(), request.canonicalJson());
        WalletAnswer answer = wallets.operate(new WalletCommand(new IdempotencyKey(tenant, key), fingerprint,
                new WalletRef(tenant, walletId), kind, request));
        Map<String, String> headers = new LinkedHashMap<>();
        headers.put("Location", PREFIX + walletId);
        if (answer.replayed()) {
            headers.put("Idempotent-Replayed", "true");
        }
        return responses.json(201, WalletViews.operation(answer.operation()), headers);
    }

    private HttpApiResponse show(HttpApiEvent event, String walletId) {
        String tenant = tenants.tenantOf(event);
        if (!WalletRef.isWellFormedId(walletId)) {
            throw invalidWalletId();
        }
        Map<String, String> query = event.query(PAGE_PARAMETERS);
        int limit = HttpApiEvent.limit(query, DEFAULT_LIMIT, MAX_LIMIT);
        String cursor = query.get("cursor");
        if (cursor != null && cursor.isEmpty()) {
            throw new InvalidRequestException("cursor", "must not be empty");
        }
        return wallets.page(new WalletRef(tenant, walletId), limit, cursor)
                .map(page -> responses.json(200, WalletViews.page(page), Map.of()))
                .orElseGet(() -> responses.problem(ProblemType.NOT_FOUND, "no such wallet"));
    }

    private static InvalidRequestException invalidWalletId() {
        return new InvalidRequestException("walletId", "must be 1 to 64 letters, digits, '_' or '-'");
    }
}
