package dev.oncepay.contract;

import java.util.List;
import java.util.stream.Stream;

/**
 * What a deployment hands the functions: environment variable names, function names, handlers,
 * each function's Lambda settings (runtime, timeout, default memory and reserved concurrency,
 * routes, schedule) and the timing facts the infrastructure must respect. The CDK app
 * ({@code infra/}) deploys with these, and the SAM templates ({@link SamTemplate}) are written
 * from them, so the stack, the templates and the application cannot drift apart;
 * {@code DeploymentSettingsTest} checks each name against the configuration the app reads and
 * each timing fact against the code that defines it.
 */
public final class DeploymentSettings {
    private DeploymentSettings() {
    }

    // The functions (the @Funq names; the value of QUARKUS_FUNQY_EXPORT selects one).
    public static final String FUNCTION_CHARGE = "charge";
    public static final String FUNCTION_WEBHOOK = "webhook";
    public static final String FUNCTION_RECONCILE = "reconcile";
    /**
     * Performs the charges of payments asked for with {@code Prefer: respond-async}: SQS events from
     * the charge queues ({@link #chargeQueueName}), one event-source mapping per provider account.
     */
    public static final String FUNCTION_CHARGE_WORKER = "charge-worker";
    /** Delivers oncepay's signed events to merchants' endpoints, fed by the event queue (SQS event-source mapping). */
    public static final String FUNCTION_EVENT_DELIVERY = "event-delivery";
    /** The four functions, one Lambda function each, all from one function.zip. */
    public static final List<String> FUNCTIONS = List.of(FUNCTION_CHARGE, FUNCTION_WEBHOOK, FUNCTION_RECONCILE,
            FUNCTION_CHARGE_WORKER, FUNCTION_EVENT_DELIVERY);

    // Environment variables. Each maps to a configuration property by MicroProfile's env rules.
    /** {@code quarkus.funqy.export}: which function this Lambda runs. */
    public static final String ENV_FUNQY_EXPORT = "QUARKUS_FUNQY_EXPORT";
    /** {@code oncepay.table}: the DynamoDB table name. */
    public static final String ENV_TABLE = "ONCEPAY_TABLE";
    /** {@code oncepay.provider.url}: base URL of the PSP's REST API. */
    public static final String ENV_PROVIDER_URL = "ONCEPAY_PROVIDER_URL";
    /** {@code oncepay.provider.id}: the provider id in webhook paths ({@code /webhooks/{id}}). */
    public static final String ENV_PROVIDER_ID = "ONCEPAY_PROVIDER_ID";
    /**
     * {@code oncepay.provider.queue-url}: the default account's charge queue (charge sends to it, the
     * charge worker sends its delayed retries to it). Other accounts' queues are {@link
     * #PROVIDER_ACCOUNTS_PREFIX}{@code <name>.}{@link #ACCOUNT_QUEUE_URL} in {@link #ENV_PROVIDER_ROUTING}.
     */
    public static final String ENV_PROVIDER_QUEUE_URL = "ONCEPAY_PROVIDER_QUEUE_URL";
    /**
     * {@code oncepay.queue.endpoint-override}: the SQS endpoint, set only where the queues are not
     * Amazon SQS's (the local run and the tests: ElasticMQ). Unset, the SDK's regional endpoint.
     */
    public static final String ENV_QUEUE_ENDPOINT_OVERRIDE = "ONCEPAY_QUEUE_ENDPOINT_OVERRIDE";
    /** {@code oncepay.tenant.claim}: the JWT claim carrying the tenant id. */
    /**
     * {@code oncepay.events.queue-url}: the merchant event queue. Every function that changes a payment
     * or refund relays its events to it; event-delivery consumes it and sends its own retries to it.
     */
    public static final String ENV_EVENT_QUEUE_URL = "ONCEPAY_EVENT_QUEUE_URL";
    /**
     * Every function: a JSON object of the plain (non-secret) merchant endpoint properties, {@link
     * #EVENT_ENDPOINTS_PREFIX}{@code <tenant>.<endpoint>.}{@link #ENDPOINT_URL} and {@link #ENDPOINT_TYPES},
     * read as {@link #ENV_PROVIDER_ROUTING} is. The signing secrets come from Secrets Manager.
     */
    public static final String ENV_EVENT_ENDPOINTS = "ONCEPAY_EVENT_ENDPOINTS";
    public static final String ENV_TENANT_CLAIM = "ONCEPAY_TENANT_CLAIM";
    /**
     * Comma-separated ARNs of the Secrets Manager secrets this function reads at startup, each a
     * JSON object of secret properties ({@link SecretProperties}), typically one per provider
     * account. Read by {@link SecretsManagerConfigSourceFactory}; the environment never carries a
     * secret. The webhook function gets the signing-secret secrets, charge and reconcile the
     * API-key secrets ({@link SecretScope}), and each refuses to start on a secret it may not hold.
     */
    public static final String ENV_SECRET_ARNS = "ONCEPAY_SECRET_ARNS";
    /**
     * Charge and reconcile only: a JSON object of the plain (non-secret) per-tenant and per-account
     * properties: provider routing, {@link #PROVIDER_TENANTS_PREFIX}{@code <tenant>} and {@link
     * #PROVIDER_ACCOUNTS_PREFIX}{@code <name>.provider/.url}, and for charge the order guard, {@link
     * #ORDERS_ONCE_PER_REFERENCE} and {@link #orderGuardProperty} ({@link ProviderRoutingConfigSourceFactory}).
     * One variable because Lambda's variable names cannot spell tenant and account names (case, dashes,
     * dots) as property names need them.
     */
    public static final String ENV_PROVIDER_ROUTING = "ONCEPAY_PROVIDER_ROUTING";
    /**
     * Set by Lambda in every execution environment (the Runtime API's address), never by a build:
     * secrets are read only where this is set.
     */
    public static final String ENV_LAMBDA_RUNTIME_API = "AWS_LAMBDA_RUNTIME_API";
    /**
     * {@code oncepay.priming.at-init}: the function primes at init too, not only before a SnapStart
     * snapshot (the local run's class-data training; the bench's {@code --primed}).
     */
    public static final String ENV_PRIMING_AT_INIT = "ONCEPAY_PRIMING_AT_INIT";
    /** {@code oncepay.priming.rounds}: how many times priming runs the charge function's path. */
    public static final String ENV_PRIMING_ROUNDS = "ONCEPAY_PRIMING_ROUNDS";
    /** AWS SDK retry mode for DynamoDB (the SDK's own standard env variable). */
    public static final String ENV_AWS_RETRY_MODE = "AWS_RETRY_MODE";
    public static final String AWS_RETRY_MODE = "standard";
    /** AWS SDK attempts for DynamoDB calls (first try included); the same as the client producer's. */
    public static final String ENV_AWS_MAX_ATTEMPTS = "AWS_MAX_ATTEMPTS";
    public static final int AWS_MAX_ATTEMPTS = 3;

    /**
     * Native runtime only: keeps the native image from installing its own signal handlers, which
     * the Lambda sandbox does not allow (Quarkus' generated {@code sam.native.yaml} sets it too).
     */
    public static final String ENV_DISABLE_SIGNAL_HANDLERS = "DISABLE_SIGNAL_HANDLERS";

    /** Default {@code oncepay.provider.account}: the name of the account that tenants without a mapping use. */
    public static final String DEFAULT_ACCOUNT = "default";

    /** Default {@code oncepay.tenant.claim}. */
    public static final String DEFAULT_TENANT_CLAIM = "tenant_id";

    // Runtimes and handlers.
    /** Lambda's managed Java runtime, which runs the JVM function.zip. */
    public static final String JVM_RUNTIME = "java21";
    /** Lambda's OS-only runtime, which runs the native function.zip's {@code bootstrap}. */
    public static final String NATIVE_RUNTIME = "provided.al2023";
    /** The JVM ({@value #JVM_RUNTIME}) Lambda handler. */
    public static final String JVM_HANDLER = "io.quarkus.funqy.lambda.FunqyStreamHandler::handleRequest";
    /** The native ({@value #NATIVE_RUNTIME}) runtime runs {@code bootstrap}; Lambda still wants a name. */
    public static final String NATIVE_HANDLER = "not.used.in.provided.runtime";

    // What triggers each function.
    /** The merchants' API: behind the JWT authorizer (the tenant is a claim), served by the charge function. */
    public static final List<String> MERCHANT_ROUTES = List.of(
            "POST /payments", "GET /payments/{id}",
            "POST /payments/{id}/refunds", "GET /payments/{id}/refunds/{refundId}",
            "POST /wallets/{walletId}/credits", "POST /wallets/{walletId}/debits", "GET /wallets/{walletId}");
    /** The operator API: IAM-authorized, served by the charge function (it holds what resolving needs). */
    public static final List<String> ADMIN_ROUTES = List.of(
            "GET /admin/payments", "GET /admin/payments/{id}", "POST /admin/payments/{id}/resolve",
            "GET /admin/orders", "GET /admin/payments/{id}/deliveries",
            "GET /admin/endpoints/{tenant}/{endpoint}/deliveries", "POST /admin/events/{eventId}/redeliver",
            "POST /admin/endpoints/{tenant}/{endpoint}/redeliver");
    /** Provider webhooks: no authorizer (the function checks the provider's signature), served by the webhook function. */
    public static final String WEBHOOK_ROUTE = "POST /webhooks/{provider}";
    /** How often the schedule runs reconcile unless a deployment says otherwise. */
    public static final int RECONCILE_RATE_MINUTES = 1;

    /** The HTTP API routes ({@code METHOD /path}) a function serves; none for reconcile, which a schedule runs. */
    public static List<String> routes(String function) {
        return switch (function) {
            case FUNCTION_CHARGE -> Stream.concat(MERCHANT_ROUTES.stream(), ADMIN_ROUTES.stream()).toList();
            case FUNCTION_WEBHOOK -> List.of(WEBHOOK_ROUTE);
            case FUNCTION_RECONCILE, FUNCTION_CHARGE_WORKER, FUNCTION_EVENT_DELIVERY -> List.of();
            default -> throw new IllegalArgumentException(function);
        };
    }

    // Configuration properties that only a secret may carry (SecretScope says which function may hold which).
    /** The default provider account's API key (charge and reconcile only). */
    public static final String PROVIDER_API_KEY_PROPERTY = "oncepay.provider.api-key";
    /**
     * Followed by an account name and {@link #ACCOUNT_API_KEY}, {@link #ACCOUNT_PROVIDER},
     * {@link #ACCOUNT_URL} or {@link #ACCOUNT_LOOKUP_LAG}.
     */
    public static final String PROVIDER_ACCOUNTS_PREFIX = "oncepay.provider.accounts.";
    /** Another account's API key (a secret, charge and reconcile only). */
    public static final String ACCOUNT_API_KEY = "api-key";
    /** Another account's provider id (plain configuration). */
    public static final String ACCOUNT_PROVIDER = "provider";
    /** Another account's base URL (plain configuration). */
    public static final String ACCOUNT_URL = "url";
    /** How long another account's lookups may trail its charges, a duration (plain configuration; optional). */
    public static final String ACCOUNT_LOOKUP_LAG = "lookup-lag";
    /** Another account's charge queue URL (plain configuration; charge and charge worker). */
    public static final String ACCOUNT_QUEUE_URL = "queue-url";
    /** Followed by a tenant id; the value is the account name that tenant's payments use (plain configuration). */
    public static final String PROVIDER_TENANTS_PREFIX = "oncepay.provider.tenants.";
    /**
     * Followed by the provider id, a dot and the account name; the value is a comma-separated list
     * (several during rotation), and an event signed with one of them applies to that account's
     * payments only. Webhook only.
     */
    public static final String WEBHOOK_SECRETS_PREFIX = "oncepay.webhook.secrets.";
    /** Whether orders are guarded (one successful charge per order reference) for tenants without a setting of their own. */
    public static final String ORDERS_ONCE_PER_REFERENCE = "oncepay.orders.once-per-reference";
    /** Followed by a tenant id and {@link #ORDERS_TENANT_ONCE_PER_REFERENCE}. */
    public static final String ORDERS_TENANTS_PREFIX = "oncepay.orders.tenants.";
    /** One tenant's order guard, {@code true} or {@code false} (plain configuration; charge only). */
    public static final String ORDERS_TENANT_ONCE_PER_REFERENCE = "once-per-reference";

    /** {@code oncepay.orders.tenants.<tenant>.once-per-reference}: whether {@code tenant}'s orders are guarded. */
    public static String orderGuardProperty(String tenant) {
        return ORDERS_TENANTS_PREFIX + tenant + "." + ORDERS_TENANT_ONCE_PER_REFERENCE;
    }

    /**
     * Whether charges are queued ({@code Prefer: respond-async} assumed) for tenants without a setting
     * of their own; {@code false} unless set (plain configuration; charge only).
     */
    public static final String QUEUE_RESPOND_ASYNC = "oncepay.queue.respond-async";
    /** Followed by a tenant id and {@link #QUEUE_TENANT_RESPOND_ASYNC}. */
    public static final String QUEUE_TENANTS_PREFIX = "oncepay.queue.tenants.";
    /** One tenant's default for queued charges, {@code true} or {@code false} (plain configuration; charge only). */
    public static final String QUEUE_TENANT_RESPOND_ASYNC = "respond-async";

    /** {@code oncepay.queue.tenants.<tenant>.respond-async}: whether {@code tenant}'s charges are queued by default. */
    public static String respondAsyncProperty(String tenant) {
        return QUEUE_TENANTS_PREFIX + tenant + "." + QUEUE_TENANT_RESPOND_ASYNC;
    }

    /** The charge queue of a provider account: one per account, so a slow account backs up only its own. */
    public static String chargeQueueName(String account) {
        return "oncepay-charges-" + account;
    }

    /** Where a charge queue's messages go after {@link #CHARGE_QUEUE_MAX_RECEIVES} receives. */
    public static String chargeDeadLetterQueueName(String account) {
        return chargeQueueName(account) + "-dlq";
    }

    /** The shape of provider ids and account names in property names. */
    public static final String NAME_PATTERN = "[A-Za-z0-9_-]{1,64}";
    /** Tenant ids in {@link #PROVIDER_TENANTS_PREFIX}{@code <tenant>}: as authorizer claims carry them, without dots (they would split the name). */
    public static final String TENANT_PATTERN = "[A-Za-z0-9_@:|-]{1,128}";

    /**
     * {@code oncepay.provider.charge-call.max-in-flight}: charge calls in flight to one provider
     * account, fleet-wide (the bulkhead). Charge, the charge worker and reconcile share the count, so all get it.
     */
    public static final String ENV_CHARGE_MAX_IN_FLIGHT = "ONCEPAY_PROVIDER_CHARGE_CALL_MAX_IN_FLIGHT";

    /** {@code oncepay.operator.role-name}: only sessions of this role may call the operator API (charge only). */
    public static final String ENV_OPERATOR_ROLE_NAME = "ONCEPAY_OPERATOR_ROLE_NAME";

    /**
     * The bulkhead's default for a charge function of {@code sandboxes} concurrent sandboxes
     * (reserved concurrency) charging through {@code accounts} provider accounts. With several,
     * half of them: one slow account leaves the other half to the others and to requests that
     * need no provider (replays, reads). With one, there is no other account to protect: four
     * fifths, so a slow provider still leaves a fifth to replays and reads without halving what it
     * may be sent.
     */
    public static int chargeMaxInFlight(int sandboxes, int accounts) {
        int cap = accounts > 1 ? sandboxes / 2 : sandboxes - (sandboxes + 4) / 5;
        return Math.max(1, cap);
    }

    // Merchant events: endpoints, their queue and its event-source mapping.
    /** Followed by a tenant id, an endpoint id and one of {@link #ENDPOINT_URL}, {@link #ENDPOINT_TYPES}, {@link #ENDPOINT_SECRETS}. */
    public static final String EVENT_ENDPOINTS_PREFIX = "oncepay.events.endpoints.";
    /** The endpoint's URL: {@code https} unless {@link #EVENTS_ALLOW_HTTP} (the local run and the tests). */
    public static final String ENDPOINT_URL = "url";
    /** Comma-separated event types the endpoint wants; every type when absent. */
    public static final String ENDPOINT_TYPES = "types";
    /**
     * Secret: comma-separated signing secrets, newest first. Each signs every delivery (one {@code v1}
     * each), so a merchant rotates by adding the new one, switching its check, then removing the old.
     */
    public static final String ENDPOINT_SECRETS = "secrets";
    /** Every event type a merchant endpoint may want, by its name on the wire. */
    public static final List<String> EVENT_TYPES = List.of("payment.succeeded", "payment.failed",
            "payment.requires_action", "payment.needs_review", "payment.resolved", "refund.succeeded", "refund.failed",
            "refund.needs_review");
    /** Whether endpoints may be plain {@code http} (never in production). */
    public static final String EVENTS_ALLOW_HTTP = "oncepay.events.allow-http";
    /** The header carrying a delivery's signature: {@code t=<unix s>,v1=<hex>[,v1=<hex>]}, as providers sign theirs. */
    public static final String EVENT_SIGNATURE_HEADER = "Oncepay-Signature";

    /** {@code <prefix><tenant>.<endpoint>.<field>}; tenant and endpoint quoted, as tenant ids may hold {@code @:|}. */
    public static String endpointProperty(String tenant, String endpoint, String field) {
        return EVENT_ENDPOINTS_PREFIX + '"' + tenant + "\".\"" + endpoint + "\"." + field;
    }

    /** The merchant event queue. */
    public static final String EVENT_QUEUE_NAME = "oncepay-events";
    /** Where event messages go after {@link #EVENT_QUEUE_MAX_RECEIVES} receives (the worker's own failures). */
    public static final String EVENT_DEAD_LETTER_QUEUE_NAME = "oncepay-events-dlq";
    /** Messages per event-delivery invocation; the worker delivers a batch's messages in parallel. */
    public static final int EVENT_QUEUE_BATCH_SIZE = 10;
    /** The event queue's event-source mapping's maximum concurrency unless a deployment says otherwise. */
    public static final int EVENT_QUEUE_MAX_CONCURRENCY = 10;
    /** Receives of one event message before the redrive policy moves it to the dead-letter queue. */
    public static final int EVENT_QUEUE_MAX_RECEIVES = 5;
    /** {@code oncepay.events.call-timeout}: one delivery's HTTP call, connect to last byte. */
    public static final int EVENT_DELIVERY_CALL_TIMEOUT_SECONDS = 5;
    /**
     * {@code oncepay.events.delivery-horizon}: a delivery is retried this long after its first attempt,
     * then dead-lettered (recorded {@code dead}, counted, alarmed).
     */
    public static final int EVENT_DELIVERY_HORIZON_SECONDS = 3 * 24 * 3600;
    /** The event queue keeps a message four days: each retry is a new message, so this only outlasts a paused mapping. */
    public static final int EVENT_QUEUE_RETENTION_SECONDS = 4 * 24 * 3600;

    // The charge queues and their event-source mappings.
    /**
     * Messages per charge-worker invocation. One: a charge holds its provider call for seconds, and a
     * batch would run its charges one after another in one sandbox, so every message but the first
     * would wait, and the visibility timeout would have to cover the whole batch. The worker reports
     * failures per message all the same (ReportBatchItemFailures), for any batch size.
     */
    public static final int CHARGE_QUEUE_BATCH_SIZE = 1;
    /**
     * The event-source mapping's maximum concurrency per account unless a deployment says otherwise:
     * charges in flight to one account from its queue, fleet-wide (the queue's bulkhead; AWS allows 2 to 1000).
     */
    public static final int CHARGE_QUEUE_MAX_CONCURRENCY = 5;
    /** Receives of one message before its queue's redrive policy moves it to the dead-letter queue. */
    public static final int CHARGE_QUEUE_MAX_RECEIVES = 5;
    /**
     * {@code oncepay.queue.horizon}: a queued payment is charged by the worker within this time of its
     * request or not at all (then the sweep settles it from the provider's word). The queues keep a
     * message this long ({@code MessageRetentionPeriod}).
     */
    public static final int CHARGE_QUEUE_HORIZON_SECONDS = 3600;
    /** SQS's longest message delay ({@code DelaySeconds}): a worker's delayed retry waits at most this long. */
    public static final int SQS_MAX_DELAY_SECONDS = 900;
    /**
     * How long a dead-letter queue keeps a message: 14 days, SQS's longest retention, so on-call can
     * still read what failed after a long weekend.
     */
    public static final int DEAD_LETTER_RETENTION_SECONDS = 14 * 24 * 3600;

    // Timing facts that Lambda and API Gateway settings must respect.
    /** Default {@code oncepay.idempotency.lease}: the charge Lambda must time out before it. */
    public static final int IDEMPOTENCY_LEASE_SECONDS = 35;
    /**
     * Worst case of one provider charge call: its budget, {@code @Retry(maxDuration)} (8 s). An
     * attempt ({@code @Timeout} 6 s) or a wait starts only if it can end within the budget (see
     * {@code oncepay.provider.charge-call.budget}, enforced by {@code ProviderCalls}, design rule 12).
     */
    public static final int PROVIDER_CHARGE_DEADLINE_SECONDS = 8;
    /** Worst case of one provider status lookup: its budget (6 s), as for a charge (see {@code oncepay.provider.lookup-call.budget}). */
    public static final int PROVIDER_LOOKUP_DEADLINE_SECONDS = 6;
    /** Worst case of one DynamoDB call ({@code quarkus.dynamodb.api-call-timeout}, all attempts). */
    public static final int DYNAMODB_CALL_TIMEOUT_SECONDS = 3;
    /**
     * {@code oncepay.reconcile.time-budget}: a sweep starts no new payment after this; the one in
     * hand (a lookup, maybe a re-sent charge) may still take its deadlines, so the reconcile Lambda
     * timeout must exceed budget + lookup + charge deadlines + DynamoDB calls.
     */
    public static final int RECONCILE_TIME_BUDGET_SECONDS = 40;
    /**
     * API Gateway HTTP API's maximum integration timeout as CDK enforces it (29 s; AWS's quota
     * page says 30 s). API Gateway answers 503 itself when it runs out, so functions behind it
     * must finish first.
     */
    public static final int HTTP_API_MAX_INTEGRATION_TIMEOUT_SECONDS = 29;

    // Each function's Lambda settings.
    /**
     * Charge's Lambda timeout: above the provider deadline (8 s, every attempt and wait included)
     * with 20 s left for the DynamoDB calls around it (each at most 3 s), below the idempotency
     * lease (35 s) so a live request is never taken over, and a second inside API Gateway's
     * integration timeout (29 s) so the caller gets the function's answer, not the gateway's 503.
     */
    public static final int CHARGE_TIMEOUT_SECONDS = 28;
    /** Webhook: no provider call; a few DynamoDB calls (journal, read, conditional transition), each at most 3 s. */
    public static final int WEBHOOK_TIMEOUT_SECONDS = 20;
    /**
     * Reconcile: a sweep starts no new payment after its 40 s time budget, and its provider calls
     * end by that budget too; the payment in hand may still need its DynamoDB writes. The margin
     * also covers a lookup (6 s) and a re-sent charge (8 s) in full. A run may outlast the
     * 1-minute schedule: with reserved concurrency 1 the next event waits its turn in Lambda's
     * asynchronous queue (up to the 5-minute event age) instead of running alongside.
     */
    public static final int RECONCILE_TIMEOUT_SECONDS = 90;

    /**
     * Charge worker: each message is one charge run, bounded as charge's (28 s), one after another;
     * two seconds more for the batch's own start and answer.
     */
    public static final int CHARGE_WORKER_TIMEOUT_SECONDS = CHARGE_QUEUE_BATCH_SIZE * CHARGE_TIMEOUT_SECONDS + 2;
    /**
     * The charge queues' visibility timeout: six times the worker's timeout, as AWS asks of queues
     * that trigger Lambda, so a batch is never visible again while a sandbox still works on it. A
     * message whose worker died is received again after it.
     */
    public static final int CHARGE_QUEUE_VISIBILITY_TIMEOUT_SECONDS = 6 * CHARGE_WORKER_TIMEOUT_SECONDS;
    /**
     * Event delivery: a batch's calls run in parallel, each at most the call timeout; the DynamoDB and
     * SQS writes around them (each at most 3 s) and the batch's own start fill the rest.
     */
    public static final int EVENT_DELIVERY_TIMEOUT_SECONDS = EVENT_DELIVERY_CALL_TIMEOUT_SECONDS + 4 * DYNAMODB_CALL_TIMEOUT_SECONDS + 3;
    /** The event queue's visibility timeout: six times the worker's, as for the charge queues. */
    public static final int EVENT_QUEUE_VISIBILITY_TIMEOUT_SECONDS = 6 * EVENT_DELIVERY_TIMEOUT_SECONDS;

    /** Lambda timeout of a function, in seconds. */
    public static int timeoutSeconds(String function) {
        return switch (function) {
            case FUNCTION_CHARGE -> CHARGE_TIMEOUT_SECONDS;
            case FUNCTION_WEBHOOK -> WEBHOOK_TIMEOUT_SECONDS;
            case FUNCTION_RECONCILE -> RECONCILE_TIMEOUT_SECONDS;
            case FUNCTION_CHARGE_WORKER -> CHARGE_WORKER_TIMEOUT_SECONDS;
            case FUNCTION_EVENT_DELIVERY -> EVENT_DELIVERY_TIMEOUT_SECONDS;
            default -> throw new IllegalArgumentException(function);
        };
    }

    /** API Gateway waits a second longer than the function, so the function's own answer gets through. */
    public static int integrationTimeoutSeconds(String function) {
        return Math.min(timeoutSeconds(function) + 1, HTTP_API_MAX_INTEGRATION_TIMEOUT_SECONDS);
    }

    /**
     * Memory of a function unless a deployment says otherwise: JVM charge, charge worker and
     * reconcile 1024, webhook and event delivery 768; native 256 each. Each size's reason is in infra/README.md ("Memory").
     */
    public static int defaultMemoryMb(boolean nativeRuntime, String function) {
        if (nativeRuntime) {
            return 256;
        }
        return switch (function) {
            case FUNCTION_CHARGE, FUNCTION_RECONCILE, FUNCTION_CHARGE_WORKER -> 1024;
            case FUNCTION_WEBHOOK, FUNCTION_EVENT_DELIVERY -> 768;
            default -> throw new IllegalArgumentException(function);
        };
    }

    /**
     * Reserved concurrency of a function unless a deployment says otherwise, a bulkhead each:
     * charge 50, webhook 20, reconcile 1 (sweeps never overlap), charge worker the event-source
     * mappings' maximum concurrency of one account (a deployment of several accounts reserves their sum),
     * event delivery its mapping's maximum concurrency.
     */
    public static int defaultReservedConcurrency(String function) {
        return switch (function) {
            case FUNCTION_CHARGE -> 50;
            case FUNCTION_WEBHOOK -> 20;
            case FUNCTION_RECONCILE -> 1;
            case FUNCTION_CHARGE_WORKER -> CHARGE_QUEUE_MAX_CONCURRENCY;
            case FUNCTION_EVENT_DELIVERY -> EVENT_QUEUE_MAX_CONCURRENCY;
            default -> throw new IllegalArgumentException(function);
        };
    }
}
