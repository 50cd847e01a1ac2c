package dev.oncepay.contract;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;

/**
 * The one DynamoDB table's schema: attribute and index names as constants. Production infra
 * ({@code infra/}), the tests and the local run all read these, so there is one list, not three.
 *
 * <p>Items of several kinds share the table, told apart by the prefix of {@link #PK}:
 * idempotency keys ({@code key#}), payments ({@code payment#}), webhook events ({@code event#}),
 * wallets ({@code wallet#}) and wallet operations ({@code wop#}).
 */
public final class Table {
    private Table() {
    }

    /** Partition key of every item (string). */
    public static final String PK = "pk";
    /** What an item is: {@code key}, {@code payment}, {@code event}, {@code wallet} or {@code walletOperation}. */
    public static final String KIND = "kind";
    /** DynamoDB TTL attribute (epoch seconds). Lazily enforced by AWS, so code compares it too. */
    public static final String EXPIRES_AT = "expiresAt";

    /** Sparse GSI over payments that reconcile must look at: present only while unsettled. */
    public static final String SWEEP_INDEX = "sweep";
    /** GSI partition key: one of N shards so the sweep never hammers one partition. */
    public static final String SWEEP_SHARD = "sweepShard";
    /** GSI sort key: epoch millis at which the payment should next be checked. */
    public static final String NEXT_CHECK_AT = "nextCheckAt";

    /**
     * Sparse GSI over payments an operator may need to see: present only while PENDING, UNKNOWN
     * or NEEDS_REVIEW. Sharded like the sweep (a busy fleet's PENDING payments would otherwise
     * share one index partition); listed newest first by merging the shards.
     */
    public static final String ATTENTION_INDEX = "attention";
    /** GSI partition key: {@code <STATUS>#<shard>} (status as {@code PaymentStatus.name()}). */
    public static final String ATTENTION_KEY = "attentionKey";
    /** GSI sort key: the payment's creation, epoch millis (also set on payments that left the index). */
    public static final String CREATED_AT_MS = "createdAtMs";
    /** A payment's history: a list of maps, one per move, appended in the move's own write. */
    public static final String HISTORY = "history";
    /** Keys of one history entry (a map in {@link #HISTORY}). */
    public static final String HISTORY_AT = "at";
    public static final String HISTORY_FROM = "from";
    public static final String HISTORY_TO = "to";
    public static final String HISTORY_ACTOR_KIND = "actorKind";
    public static final String HISTORY_ACTOR_ID = "actorId";
    public static final String HISTORY_REASON = "reason";
    public static final String HISTORY_PROVIDER_PAYMENT_ID = "providerPaymentId";
    public static final String HISTORY_DECLINE_CODE = "declineCode";

    // Idempotency key items.
    public static final String TENANT = "tenant";
    public static final String FINGERPRINT = "fingerprint";
    public static final String PAYMENT_ID = "paymentId";
    /**
     * The resource a key makes (a payment's or a wallet operation's id): stored under the name it
     * had when keys only made payments, so keys stored before wallets read the same.
     */
    public static final String RESOURCE_ID = PAYMENT_ID;
    public static final String LEASE_OWNER = "leaseOwner";
    public static final String LEASE_EPOCH = "leaseEpoch";
    public static final String LEASE_EXPIRES_AT = "leaseExpiresAt";
    public static final String CREATED_AT = "createdAt";

    // Payment items (TENANT, CREATED_AT, LEASE_EPOCH shared with key items).
    public static final String STATUS = "status";
    public static final String AMOUNT = "amount";
    public static final String CURRENCY = "currency";
    public static final String REFERENCE = "reference";
    public static final String DESCRIPTION = "description";
    public static final String PROVIDER_PAYMENT_ID = "providerPaymentId";
    public static final String DECLINE_CODE = "declineCode";
    public static final String STATUS_REASON = "statusReason";
    /**
     * Why a payment is in NEEDS_REVIEW ({@code ReviewReason} code), written with the move there (and
     * with a move to UNKNOWN on the way there); removed when the payment settles.
     */
    public static final String REVIEW_REASON = "reviewReason";
    public static final String UPDATED_AT = "updatedAt";
    public static final String CHECK_ATTEMPTS = "checkAttempts";
    /** Provider id and account that charge the payment; an item without them reads as the default account. */
    public static final String PROVIDER = "provider";
    public static final String PROVIDER_ACCOUNT = "providerAccount";
    /** The payment's instrument: provider tokens, never card data. */
    public static final String PAYMENT_METHOD = "paymentMethod";
    public static final String CUSTOMER = "customer";
    /** A payment waiting for the customer: the provider's client secret and next action (never logged). */
    public static final String CLIENT_SECRET = "clientSecret";
    public static final String NEXT_ACTION = "nextAction";
    /**
     * A FAILED payment whose provider charge stays confirmable until canceled (a Stripe
     * PaymentIntent after a decline): {@code pending} until the provider confirms the cancel
     * (meanwhile the payment stays in the sweep index), then {@code canceled}.
     */
    public static final String PROVIDER_CANCEL = "providerCancel";
    public static final String PROVIDER_CANCEL_PENDING = "pending";
    public static final String PROVIDER_CANCEL_DONE = "canceled";
    // LEASE_EXPIRES_AT (epoch millis, as on key items) on a payment: the lease end of the run holding its fence.
    /**
     * On a payment asked for with {@code Prefer: respond-async} (epoch millis): the charge worker charges
     * it until then, or not at all; absent on a payment charged in its request.
     */
    public static final String QUEUED_UNTIL = "queuedUntil";

    // Wallet items: pk wallet#<sha256(tenant, walletId)>, TENANT, CURRENCY (fixed by the first credit).
    public static final String WALLET_ID = "walletId";
    public static final String BALANCE = "balance";
    /** Entries applied so far: the seq of the newest entry. */
    public static final String SEQ = "seq";
    /** Operation markers written so far (applied and refused): the clock of the prune horizon. */
    public static final String VERSION = "version";
    /** The highest marker version pruned: a write that knows the wallet only up to a lower version is refused. */
    public static final String HORIZON = "horizon";
    /**
     * Prefixes of a wallet's per-operation markers, each followed by the operation id: the
     * operation itself (a map), the wallet version it was marked at, its entry seq (applied
     * only), the balance after it (applied) or when it was refused.
     */
    public static final String MARKER = "m#";
    public static final String MARKER_VERSION = "mv#";
    public static final String MARKER_SEQ = "mq#";
    public static final String MARKER_BALANCE = "mb#";

    // Wallet operation items: pk wop#<operation id>, TENANT, WALLET_ID, AMOUNT, CURRENCY, REFERENCE,
    // CREATED_AT, BALANCE (after it, or when refused); applied ones also in the WALLET_INDEX.
    public static final String ENTRY_KIND = "entryKind";
    public static final String OUTCOME = "outcome";
    /**
     * Sparse GSI over applied wallet operations: a wallet's entries by seq, for the pages of
     * {@code GET /wallets/{id}} older than the markers the wallet item still holds.
     */
    public static final String WALLET_INDEX = "walletEntries";
    /** GSI partition key: the wallet item's pk. */
    public static final String WALLET = "wallet";
    /** GSI sort key: the entry's seq. */
    public static final String WALLET_SEQ = "walletSeq";

    public static final String KIND_KEY = "key";
    public static final String KIND_PAYMENT = "payment";
    public static final String KIND_EVENT = "event";
    public static final String KIND_WALLET = "wallet";
    public static final String KIND_WALLET_OPERATION = "walletOperation";
    public static final String KIND_ORDER = "order";
    public static final String KIND_REFUND = "refund";

    // Refund items: one per refund, pk refund#<refundId>, with PAYMENT_ID, TENANT, STATUS, AMOUNT,
    // CURRENCY, the lease and sweep attributes of a payment, and HISTORY. The payment item keeps
    // the reservations: REFUND_IDS, REFUND_HOLDS and REFUND_HELD.
    /** A payment item's string set of every refund ever reserved on it (listing order: the refunds' creation). */
    public static final String REFUND_IDS = "refundIds";
    /** A payment item's string set of the refunds whose amount is reserved (not FAILED). */
    public static final String REFUND_HOLDS = "refundHolds";
    /** A payment item's sum of reserved refund amounts: never above its AMOUNT. */
    public static final String REFUND_HELD = "refundHeld";
    public static final String REFUND_REASON = "refundReason";
    public static final String METADATA = "metadata";
    public static final String PROVIDER_REFUND_ID = "providerRefundId";
    public static final String FAILURE_CODE = "failureCode";

    // Order items: one per (tenant, order reference), pk order#<tenant>#<sha256(reference)>, the
    // payment bound to the order (PAYMENT_ID, absent while none is), its AMOUNT and CURRENCY,
    // TENANT, BOUND_AT and ORDER_PAYMENTS.
    /** When the order's payment was bound to it (ISO-8601). */
    public static final String BOUND_AT = "boundAt";
    /** An order item's string set of every payment ever bound to it and not unbound unsent. */
    public static final String ORDER_PAYMENTS = "paymentIds";

    // Webhook event journal: one item per (provider, event id), pk event#<provider>#<eventId>,
    // TTL'd by EXPIRES_AT; PAYMENT_ID holds the event's data.reference.
    public static final String EVENT_PROVIDER = "provider";
    public static final String EVENT_ID = "eventId";
    public static final String EVENT_TYPE = "eventType";
    /** {@code RECEIVED} (journaled, maybe not yet applied) or {@code PROCESSED}. */
    public static final String EVENT_STATE = "eventState";
    /** What processing did: {@code applied}, {@code conflict}, {@code unknown_payment}, ... */
    public static final String EVENT_OUTCOME = "outcome";
    public static final String EVENT_OUTCOME_DETAIL = "outcomeDetail";
    /** The raw event JSON as received and verified, kept for audit. */
    public static final String EVENT_BODY = "body";
    public static final String RECEIVED_AT = "receivedAt";
    public static final String PROCESSED_AT = "processedAt";

    // Merchant events. A payment's or refund's event is its history entry that carries HISTORY_EVENT
    // (the event type), written in the same conditional write as the move; the entry's 1-based
    // position in HISTORY is the event's sequence number and part of its id (evt_<objectId>_<seq>).
    /** A history entry's merchant event type, present when the move is one a merchant hears of. */
    public static final String HISTORY_EVENT = "event";
    /**
     * The outbox marker: set in the write that records an event some endpoint wants, removed by the
     * relay once every entry up to {@link #RELAYED_SEQ} is on the event queue. Sparse key of the
     * {@link #OUTBOX_INDEX}: {@code outbox#<shard>}.
     */
    public static final String OUTBOX_SHARD = "outboxShard";
    /** When the marked write happened (epoch ms): the outbox index's sort key. */
    public static final String OUTBOX_AT = "outboxAt";
    /** The index the sweep reads for events left unrelayed by a crash or a failed queue send (keys only). */
    public static final String OUTBOX_INDEX = "outbox";
    /** How many history entries have been relayed (the last relayed sequence number). */
    public static final String RELAYED_SEQ = "relayedSeq";

    // Delivery records: one per (tenant, endpoint, event), pk delivery#<tenant>#<endpoint>#<eventId>,
    // written by event delivery on each attempt; also TENANT, EVENT_ID, EVENT_TYPE, PAYMENT_ID, STATUS.
    public static final String KIND_DELIVERY = "delivery";
    public static final String ENDPOINT_ID = "endpointId";
    /** The id of the payment or refund the event is about. */
    public static final String OBJECT_ID = "objectId";
    public static final String EVENT_SEQ = "eventSeq";
    /** {@code DELIVERED}, {@code RETRYING} or {@code DEAD}. */
    public static final String DELIVERY_STATUS = STATUS;
    public static final String ATTEMPTS = "attempts";
    public static final String LAST_ATTEMPT_AT = "lastAttemptAt";
    /** What the endpoint answered last: {@code 200}, {@code 500}, {@code timeout}, {@code redirect 302}, ... */
    public static final String LAST_ANSWER = "lastAnswer";
    public static final String NEXT_ATTEMPT_AT = "nextAttemptAt";
    public static final String DELIVERED_AT = "deliveredAt";
    /** The delivery index's partition: {@code <tenant>#<endpoint>#<shard>}, sharded so one busy endpoint is no hot key. */
    public static final String DELIVERY_ENDPOINT = "deliveryEndpoint";
    /** When the event happened (epoch ms): the delivery index's sort key, so "since a time" is one range per shard. */
    public static final String EVENT_AT_MS = "eventAtMs";
    public static final String DELIVERY_INDEX = "deliveries";

    // Endpoint health: one item per (tenant, endpoint), pk endpoint#<tenant>#<endpoint>. A failing
    // endpoint rests: deliveries to it wait instead of calling it, so it holds no worker.
    public static final String KIND_ENDPOINT = "endpoint";
    /** Failed deliveries in a row. */
    public static final String CONSECUTIVE_FAILURES = "consecutiveFailures";
    /** Until when (epoch ms) deliveries to the endpoint wait without calling it. */
    public static final String REST_UNTIL = "restUntil";

    // Redeliveries an operator asked for: one per Idempotency-Key, pk redelivery#<id>, with what was
    // queued, so a repeated request answers the first answer; TTL'd by EXPIRES_AT like the key.
    public static final String KIND_REDELIVERY = "redelivery";
    /** How many deliveries a redelivery queued. */
    public static final String QUEUED = "queued";
    /** A redelivery since a time that stopped at its cap: the event time to go on from. */
    public static final String NEXT_SINCE = "nextSince";

    public static String deliveryItemId(String tenant, String endpoint, String eventId) {
        return "delivery#" + tenant + "#" + endpoint + "#" + eventId;
    }

    public static String endpointItemId(String tenant, String endpoint) {
        return "endpoint#" + tenant + "#" + endpoint;
    }

    /** Attributes the {@link #ATTENTION_INDEX} projects besides its keys: what a listing shows (not the history). */
    public static final List<String> ATTENTION_PROJECTION = List.of(TENANT, STATUS, AMOUNT, CURRENCY, REFERENCE,
            CREATED_AT, UPDATED_AT, STATUS_REASON, PROVIDER, PROVIDER_ACCOUNT, PROVIDER_PAYMENT_ID, DECLINE_CODE,
            CHECK_ATTEMPTS);

    /** An idempotency key item's partition key: tenant and key hashed together, so tenants never collide. */
    public static String keyItemId(String tenant, String key) {
        return "key#" + sha256Hex(tenant + '\u0000' + key);
    }

    /**
     * The order item of a merchant's order reference: the reference only as a hash, as it may
     * carry what a merchant put in it (an e-mail address, a name).
     */
    public static String orderItemId(String tenant, String reference) {
        return "order#" + tenant + "#" + sha256Hex(reference);
    }

    public static String sha256Hex(String text) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(digest);
        } catch (NoSuchAlgorithmException impossible) {
            throw new IllegalStateException("SHA-256 is part of every JRE", impossible);
        }
    }
}
