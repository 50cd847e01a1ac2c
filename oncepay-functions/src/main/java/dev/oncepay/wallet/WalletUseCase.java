package dev.oncepay.wallet;

import dev.oncepay.config.OncepayConfig;
import dev.oncepay.idempotency.ClaimAttempt;
import dev.oncepay.idempotency.ClaimAttempt.ExistingKey;
import dev.oncepay.idempotency.ClaimAttempt.KeyClaim;
import dev.oncepay.idempotency.FingerprintMismatchException;
import dev.oncepay.idempotency.IdempotencyStore;
import dev.oncepay.idempotency.KeyRecord;
import dev.oncepay.idempotency.RequestInFlightException;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Event;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.jboss.logging.Logger;
import software.amazon.awssdk.core.exception.SdkException;

/**
 * Credits and debits a wallet exactly once per idempotency key, never below zero, with
 * single-item conditional writes only: claim the key (the operation id fixed in it), mark the
 * operation on the wallet item in the same write that moves the balance (or records the refusal),
 * write the operation's own item from the marker. A retry resumes from whatever the last write
 * left; the proof is in docs/wallets.md.
 */
@ApplicationScoped
public class WalletUseCase {
    private static final Logger LOG = Logger.getLogger(WalletUseCase.class);
    /** Markers a wallet keeps after a prune: the newest, which a page of entries shows without the index. */
    static final int MARKERS_KEPT = 16;
    /** Markers at which the designated run prunes ({@link #pruneDue}): the bound of the marker set, plus concurrent writers. */
    static final int MARKERS_PRUNED_AT = 32;
    /** Rounds of mark, read back, decide, before a run leaves the operation to the client's retry. */
    private static final int MARK_ROUNDS = 5;

    private final IdempotencyStore keys;
    private final WalletStore wallets;
    private final Event<WalletPhaseReached> phases;
    private final Clock clock;
    private final OncepayConfig config;

    public WalletUseCase(IdempotencyStore keys, WalletStore wallets, Event<WalletPhaseReached> phases, Clock clock,
            OncepayConfig config) {
        this.keys = keys;
        this.wallets = wallets;
        this.phases = phases;
        this.clock = clock;
        this.config = config;
    }

    /**
     * @throws InsufficientFundsException a debit above the balance (also its replay)
     * @throws CurrencyMismatchException the wallet holds another currency; nothing stored, the key released
     */
    public WalletAnswer operate(WalletCommand command) {
        // What this run knows before its claim: no run of this key's operation can mark it before
        // the claim, so anything marked after this version is someone else's (docs/wallets.md).
        long known = wallets.read(command.wallet()).version();
        Instant now = clock.instant();
        KeyRecord proposed = new KeyRecord(command.key().storageId(), command.key().tenant(), command.fingerprint(),
                WalletOperation.newId(), UUID.randomUUID().toString(), 1, now.plus(config.idempotency().lease()),
                now.plus(config.idempotency().retention()), now);
        ClaimAttempt attempt = keys.claim(proposed, now);
        if (attempt instanceof KeyClaim claim) {
            return run(claim, command, known);
        }
        return existing(((ExistingKey) attempt).record(), command);
    }

    /**
     * The wallet of {@code wallet.tenant()} with a page of its entries, newest first, below
     * {@code cursor} (or from the newest); empty for a wallet no credit reached, or another
     * tenant's, which is another wallet.
     */
    public Optional<WalletPage> page(WalletRef wallet, int limit, String cursor) {
        WalletState state = wallets.read(wallet);
        if (!state.credited()) {
            return Optional.empty();
        }
        long top = cursor == null ? state.seq() : WalletCursor.decode(cursor, wallet, state.seq()) - 1;
        long low = Math.max(1, top - limit + 1);
        Map<Long, WalletOperation> bySeq = state.markers().values().stream().map(WalletState.Marker::operation)
                .filter(op -> op.applied() && op.seq() >= low && op.seq() <= top)
                .collect(Collectors.toMap(WalletOperation::seq, Function.identity(), (a, b) -> a, HashMap::new));
        if (bySeq.size() < top - low + 1) {
            // Older than the markers: from the index, which must hold each (their items were
            // written before their markers were dropped), unless it lags.
            long missingHigh = top;
            while (bySeq.containsKey(missingHigh)) {
                missingHigh--;
            }
            wallets.entries(wallet, low, missingHigh).forEach(op -> bySeq.putIfAbsent(op.seq(), op));
            if (bySeq.size() < top - low + 1) {
                throw new EntriesNotListedException();
            }
        }
        List<WalletOperation> entries = new ArrayList<>(bySeq.values());
        entries.sort(Comparator.comparingLong(WalletOperation::seq).reversed());
        String next = low > 1 ? WalletCursor.encode(wallet, low) : null;
        return Optional.of(new WalletPage(wallet.walletId(), state.balance(), state.currency(), entries, next));
    }

    private WalletAnswer existing(KeyRecord stored, WalletCommand command) {
        if (!stored.fingerprint().equals(command.fingerprint())) {
            throw new FingerprintMismatchException();
        }
        Optional<WalletOperation> done = wallets.operation(stored.resourceId());
        if (done.isPresent()) {
            return answer(done.get(), true);
        }
        Instant now = clock.instant();
        if (!stored.leaseExpiredAt(now)) {
            throw inFlight();
        }
        KeyClaim claim = keys.takeOver(stored, UUID.randomUUID().toString(), now,
                now.plus(config.idempotency().lease())).orElseThrow(this::inFlight);
        LOG.infof("took over wallet operation %s at epoch=%d", stored.resourceId(), claim.record().leaseEpoch());
        // The wallet first, then the operation's item: a marker dropped before the first read had
        // its item written before, so the second read finds it (docs/wallets.md).
        WalletState state = wallets.read(command.wallet());
        Optional<WalletOperation> marked = state.marker(stored.resourceId());
        if (marked.isPresent()) {
            return finish(claim, command, marked.get(), state);
        }
        done = wallets.operation(stored.resourceId());
        if (done.isPresent()) {
            return answer(done.get(), false);
        }
        return run(claim, command, state.version());
    }

    private WalletAnswer run(KeyClaim claim, WalletCommand command, long known) {
        KeyRecord key = claim.record();
        reached(key, WalletPhase.KEY_CLAIMED);
        WalletOperand op = new WalletOperand(key.resourceId(), command.wallet(), command.kind(), command.request(),
                clock.instant());
        long knowledge = known;
        for (int round = 0; round < MARK_ROUNDS; round++) {
            Optional<WalletState> marked;
            try {
                marked = command.kind() == EntryKind.CREDIT ? wallets.credit(op, knowledge)
                        : wallets.debit(op, knowledge);
            } catch (SdkException unanswered) {
                // It may have committed (a lost answer): only reading it back can tell.
                WalletState state = wallets.read(command.wallet());
                if (state.marker(op.operationId()).isPresent()) {
                    return finish(claim, command, state.marker(op.operationId()).get(), state);
                }
                throw unanswered; // and it may still land: the key stays held, its retry resumes
            }
            if (marked.isPresent()) {
                return finish(claim, command, marked.get().marker(op.operationId()).orElseThrow(), marked.get());
            }
            WalletState state = wallets.read(command.wallet());
            Optional<WalletOperation> ours = state.marker(op.operationId());
            if (ours.isPresent()) {
                return finish(claim, command, ours.get(), state); // our write committed, its answer was lost
            }
            if (state.horizon() > knowledge) {
                // Markers newer than what we knew were dropped: ours among them? Its item says.
                Optional<WalletOperation> done = wallets.operation(op.operationId());
                if (done.isPresent()) {
                    return answer(done.get(), false);
                }
                knowledge = state.version();
                continue;
            }
            if (state.currency() != null && !state.currency().equals(command.request().currency())) {
                keys.release(key); // it can never apply: the currency of a wallet never changes
                throw new CurrencyMismatchException(command.wallet().walletId(), state.currency());
            }
            if (command.kind() == EntryKind.DEBIT && state.balance() < command.request().amount()) {
                Optional<WalletState> refused = wallets.refuse(op, knowledge, state.currency());
                if (refused.isPresent()) {
                    return finish(claim, command, refused.get().marker(op.operationId()).orElseThrow(), refused.get());
                }
            }
            // The wallet moved between our write and our read: decide again.
        }
        throw inFlight();
    }

    /** The operation is marked: write its item (the key is done then), prune if due, answer. */
    private WalletAnswer finish(KeyClaim claim, WalletCommand command, WalletOperation op, WalletState state) {
        reached(claim.record(), WalletPhase.MARKED);
        try {
            wallets.record(command.wallet(), op);
            reached(claim.record(), WalletPhase.RECORDED);
            if (pruneDue(state, op)) {
                wallets.prune(command.wallet(), state, MARKERS_KEPT);
            }
        } catch (SdkException storeFailed) {
            // The marker holds it all: a GET shows the entry from it, and the key's retry (after its
            // lease) or a prune writes the item.
            LOG.warnf("store failed recording wallet operation %s: %s", op.id(), storeFailed.getMessage());
        }
        return answer(op, false);
    }

    /**
     * Whether this run prunes: on a hot wallet many runs see the full marker set at once, so only
     * the run whose marker took a version divisible by {@link #MARKERS_KEPT} does (one prune per so
     * many operations); if that run dies before pruning, any run prunes at twice the bound.
     */
    static boolean pruneDue(WalletState state, WalletOperation op) {
        int markers = state.markers().size();
        WalletState.Marker ours = state.markers().get(op.id());
        boolean designated = ours != null && ours.version() % MARKERS_KEPT == 0;
        return markers >= 2 * MARKERS_PRUNED_AT || markers >= MARKERS_PRUNED_AT && designated;
    }

    private static WalletAnswer answer(WalletOperation op, boolean replayed) {
        if (!op.applied()) {
            throw new InsufficientFundsException(op, replayed);
        }
        return new WalletAnswer(op, replayed);
    }

    private void reached(KeyRecord key, WalletPhase phase) {
        phases.fire(new WalletPhaseReached(key.resourceId(), phase, key.leaseEpoch()));
    }

    private RequestInFlightException inFlight() {
        return new RequestInFlightException(config.charge().inFlightRetryAfter());
    }
}
