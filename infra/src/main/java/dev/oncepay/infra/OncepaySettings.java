package dev.oncepay.infra;

import dev.oncepay.contract.DeploymentSettings;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Function;
import java.util.regex.Pattern;
import software.amazon.awscdk.services.logs.RetentionDays;

/**
 * Every deploy-time choice of the stack, read from CDK context ({@code -c oncepay:<name>=<value>}
 * or {@code cdk.json}), with the defaults below. Values that differ per environment and need no
 * code (JWT issuer and audience, provider URL and id, tenant claim) are CloudFormation parameters
 * of the stack instead (see {@link OncepayStack}).
 *
 * @param runtime                 {@code native} ({@code provided.al2023}, the default) or {@code jvm} ({@code java21})
 * @param arm64                   run on Graviton; a native binary must then have been built on/for arm64
 * @param functionZip             the function.zip that {@code ./native-build.sh} (or {@code --jvm}) produced
 * @param placeholderCode         synthesize without a function.zip (CI, tests): a stub that cannot serve
 * @param chargeMemoryMb          memory of charge ({@code chargeMemoryMb}, else {@code memoryMb}, else the runtime's
 *                                default: see {@link DeploymentSettings#defaultMemoryMb}); CPU share, and so JVM speed,
 *                                grows with it
 * @param webhookMemoryMb         memory of webhook (likewise)
 * @param reconcileMemoryMb       memory of reconcile (likewise)
 * @param chargeWorkerMemoryMb    memory of the charge worker ({@code chargeWorkerMemoryMb}, likewise)
 * @param eventDeliveryMemoryMb   memory of event-delivery ({@code eventDeliveryMemoryMb}, likewise)
 * @param chargeConcurrency       reserved concurrency of charge (a bulkhead: a slow provider cannot starve the others)
 * @param webhookConcurrency      reserved concurrency of webhook
 * @param reconcileConcurrency    reserved concurrency of reconcile (1: sweeps never overlap)
 * @param chargeWorkerReserved    whether the charge worker reserves concurrency: the sum of the accounts' queue
 *                                concurrency, so every event-source mapping reaches its maximum unthrottled (a
 *                                throttled message returns to its queue, one receive nearer its dead-letter queue);
 *                                {@code chargeWorkerConcurrency=none} leaves it unreserved
 * @param eventDeliveryReserved   whether event-delivery reserves concurrency: {@code eventConcurrency}, for the same
 *                                reason; {@code eventDeliveryConcurrency=none} leaves it unreserved
 * @param providerMaxInFlight     charge calls in flight to one provider account, fleet-wide (the bulkhead); empty: the
 *                                application's default. Charge's reserved concurrency bounds its sandboxes, which is
 *                                every request in flight (charges, replays, reads); this cap keeps one slow account
 *                                from holding more of them than that, leaving the rest to other accounts and to
 *                                requests that need no provider. It isolates a slow account; it does not partition:
 *                                the caps of several accounts may add up to more than the reserved concurrency.
 *                                Reconcile's re-sends and the charge worker's charges share the count; with its
 *                                reserved concurrency 1 reconcile adds at most one to an account's count, the worker
 *                                at most the account's queue concurrency.
 * @param reconcileRateMinutes    how often EventBridge runs reconcile
 * @param logRetention            how long function logs are kept
 * @param apiKeySecretArn         the default account's existing API-key secret; empty: the stack creates one
 * @param signingSecretArn        the default account's existing webhook signing-secret secret; empty: the stack creates one
 * @param queueConcurrency        the default account's charges in flight from its charge queue, fleet-wide (the
 *                                event-source mapping's maximum concurrency; each other account has its own)
 * @param eventConcurrency        event-delivery's invocations from the event queue, fleet-wide (the event-source
 *                                mapping's maximum concurrency)
 * @param accounts                provider accounts beside the default one, each with its own secrets
 * @param tenants                 tenant id to account name; tenants not listed use the default account
 * @param ordersUnguarded         tenants whose orders are not guarded: they may charge one order reference several
 *                                times (instalments, top-ups); see docs/adr/0020-one-order-one-charge.md
 * @param ordersGuardedByDefault  whether the orders of tenants not in {@code ordersUnguarded} are guarded (default true)
 * @param respondAsyncTenants     tenants whose charges are queued ({@code Prefer: respond-async} assumed) when their
 *                                request does not say
 * @param respondAsyncByDefault   whether the charges of tenants not in {@code respondAsyncTenants} are queued when their
 *                                request does not say (default false)
 * @param alarmServerErrorPercent API 5xx rate (percent of requests) that alarms
 * @param alarmUnknownBacklog     UNKNOWN payments waiting that alarm
 * @param alarmUnknownAgeMinutes  age of the oldest UNKNOWN payment that alarms
 * @param alarmPendingAgeMinutes  age of the oldest PENDING payment past which it alarms
 * @param alarmChargeQueueAgeMinutes age of a charge queue's oldest message past which it alarms
 * @param alarmEventQueueAgeMinutes age of the event queue's oldest message past which it alarms
 * @param eventEndpoints          merchant endpoints, by tenant then endpoint id (both sorted)
 * @param deliveriesIndex         whether the table has the deliveries index: {@code false} only for the first of two
 *                                deploys that add the outbox and deliveries indexes to an existing table
 *                                (CloudFormation creates one index per table update)
 * @param operatorPrincipals      IAM principals (ARNs) that may assume the operator role, which alone may call
 *                                {@code /admin/*}; empty: the account root, so the account's IAM administrators
 *                                decide who may assume it
 * @param runbookUrl              the page that holds the runbook; each alarm's description links to its section
 * @param openApiDocument         the OpenAPI document of the API, attached to the stack as an asset when present
 */
public record OncepaySettings(
        String runtime,
        boolean arm64,
        Path functionZip,
        boolean placeholderCode,
        int chargeMemoryMb,
        int webhookMemoryMb,
        int reconcileMemoryMb,
        int chargeWorkerMemoryMb,
        int eventDeliveryMemoryMb,
        Optional<Integer> chargeConcurrency,
        Optional<Integer> webhookConcurrency,
        Optional<Integer> reconcileConcurrency,
        boolean chargeWorkerReserved,
        boolean eventDeliveryReserved,
        Optional<Integer> providerMaxInFlight,
        int reconcileRateMinutes,
        RetentionDays logRetention,
        Optional<String> apiKeySecretArn,
        Optional<String> signingSecretArn,
        int queueConcurrency,
        int eventConcurrency,
        List<ProviderAccountSettings> accounts,
        Map<String, String> tenants,
        Set<String> ordersUnguarded,
        boolean ordersGuardedByDefault,
        Set<String> respondAsyncTenants,
        boolean respondAsyncByDefault,
        double alarmServerErrorPercent,
        int alarmUnknownBacklog,
        int alarmUnknownAgeMinutes,
        int alarmPendingAgeMinutes,
        int alarmChargeQueueAgeMinutes,
        int alarmEventQueueAgeMinutes,
        List<EventEndpointSettings> eventEndpoints,
        boolean deliveriesIndex,
        List<String> operatorPrincipals,
        String runbookUrl,
        Path openApiDocument) {

    public static final String NATIVE = "native";
    public static final String JVM = "jvm";
    public static final String PREFIX = "oncepay:";
    /** Lambda's memory range, in MB (any whole MB within it). */
    public static final int MIN_MEMORY_MB = 128;
    public static final int MAX_MEMORY_MB = 10240;
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final List<String> ACCOUNT_FIELDS = List.of("name", "provider", "url", "apiKeySecretArn", "signingSecretArn",
            "lookupLag", "queueConcurrency");
    private static final List<String> ENDPOINT_FIELDS = List.of("url", "types", "secretArn");
    private static final Pattern TENANT = Pattern.compile(DeploymentSettings.TENANT_PATTERN);
    /** An IAM user, role or account root, or an STS session, as a trust policy names it. */
    private static final Pattern PRINCIPAL_ARN = Pattern.compile("arn:aws[a-z-]*:(iam|sts)::\\d{12}:\\S+");
    /** Where the runbook is unless {@code oncepay:runbookUrl} says otherwise: the repository's docs/runbook.md. */
    public static final String DEFAULT_RUNBOOK_URL = "https://github.com/oncepay/oncepay/blob/main/docs/runbook.md";
    /**
     * The event queue's age alarm: above SQS's longest delay (15 min), so a delayed retry just made
     * visible never trips it even if SQS counts its delay, and well inside the deliveries' 3-day horizon.
     */
    public static final int DEFAULT_EVENT_QUEUE_AGE_MINUTES = 30;
    /** The OpenAPI document, relative to {@code infra/} (where cdk runs). */
    public static final String DEFAULT_OPENAPI_DOCUMENT = "../oncepay-functions/src/main/resources/openapi/oncepay.yaml";

    private static final Map<Integer, RetentionDays> RETENTIONS = Map.ofEntries(
            Map.entry(1, RetentionDays.ONE_DAY), Map.entry(3, RetentionDays.THREE_DAYS),
            Map.entry(5, RetentionDays.FIVE_DAYS), Map.entry(7, RetentionDays.ONE_WEEK),
            Map.entry(14, RetentionDays.TWO_WEEKS), Map.entry(30, RetentionDays.ONE_MONTH),
            Map.entry(60, RetentionDays.TWO_MONTHS), Map.entry(90, RetentionDays.THREE_MONTHS),
            Map.entry(180, RetentionDays.SIX_MONTHS), Map.entry(365, RetentionDays.ONE_YEAR),
            Map.entry(400, RetentionDays.THIRTEEN_MONTHS), Map.entry(731, RetentionDays.TWO_YEARS));

    public OncepaySettings {
        if (!runtime.equals(NATIVE) && !runtime.equals(JVM)) {
            throw new IllegalArgumentException(PREFIX + "runtime must be native or jvm, not " + runtime);
        }
        for (Optional<Integer> reserved : List.of(chargeConcurrency, webhookConcurrency, reconcileConcurrency)) {
            if (reserved.isPresent() && reserved.get() < 1) {
                throw new IllegalArgumentException("reserved concurrency must be at least 1, or none");
            }
        }
        if (providerMaxInFlight.isPresent()) {
            int cap = providerMaxInFlight.get();
            if (cap < 1) {
                throw new IllegalArgumentException(PREFIX + "providerMaxInFlight must be at least 1, not " + cap);
            }
            // A cap that fits every charge sandbox lets one slow account take all of them.
            if (chargeConcurrency.isPresent() && chargeConcurrency.get() >= 2 && cap >= chargeConcurrency.get()) {
                throw new IllegalArgumentException(PREFIX + "providerMaxInFlight (" + cap + ") must be below "
                        + PREFIX + "chargeConcurrency (" + chargeConcurrency.get()
                        + "), or one slow provider account could hold every charge sandbox");
            }
        }
        if (reconcileRateMinutes < 1) {
            throw new IllegalArgumentException(PREFIX + "reconcileRateMinutes must be at least 1");
        }
        if (alarmPendingAgeMinutes < 1) {
            throw new IllegalArgumentException(PREFIX + "alarmPendingAgeMinutes must be at least 1");
        }
        if (alarmChargeQueueAgeMinutes < 1) {
            throw new IllegalArgumentException(PREFIX + "alarmChargeQueueAgeMinutes must be at least 1");
        }
        if (alarmEventQueueAgeMinutes < 1) {
            throw new IllegalArgumentException(PREFIX + "alarmEventQueueAgeMinutes must be at least 1");
        }
        operatorPrincipals = List.copyOf(operatorPrincipals);
        for (String principal : operatorPrincipals) {
            if (!PRINCIPAL_ARN.matcher(principal).matches()) {
                throw new IllegalArgumentException(PREFIX + "operatorPrincipals: '" + principal
                        + "' is not an IAM principal ARN (arn:aws:iam::<account>:role/<name>, :user/<name> or :root)");
            }
        }
        // The alarms append "#runbook-<alarm>" to it.
        if (!runbookUrl.matches("https://[^\\s#]+")) {
            throw new IllegalArgumentException(PREFIX + "runbookUrl must be an https URL without a fragment, not " + runbookUrl);
        }
        // The parameters, not the fields: a compact constructor assigns those only after its body.
        List<Integer> memory = List.of(chargeMemoryMb, webhookMemoryMb, reconcileMemoryMb, chargeWorkerMemoryMb,
                eventDeliveryMemoryMb);
        for (int i = 0; i < DeploymentSettings.FUNCTIONS.size(); i++) {
            if (memory.get(i) < MIN_MEMORY_MB || memory.get(i) > MAX_MEMORY_MB) {
                throw new IllegalArgumentException(PREFIX + contextName(DeploymentSettings.FUNCTIONS.get(i)) + "MemoryMb (or " + PREFIX + "memoryMb) must be within "
                        + MIN_MEMORY_MB + ".." + MAX_MEMORY_MB + " (Lambda's range), not " + memory.get(i));
            }
        }
        ProviderAccountSettings.requireSecretArn(PREFIX + "apiKeySecretArn", apiKeySecretArn);
        ProviderAccountSettings.requireSecretArn(PREFIX + "signingSecretArn", signingSecretArn);
        ProviderAccountSettings.requireQueueConcurrency(PREFIX + "queueConcurrency", queueConcurrency);
        ProviderAccountSettings.requireQueueConcurrency(PREFIX + "eventConcurrency", eventConcurrency);
        eventEndpoints = List.copyOf(eventEndpoints);
        accounts = List.copyOf(accounts);
        tenants = Collections.unmodifiableMap(new TreeMap<>(tenants));
        Set<String> names = new HashSet<>(Set.of(DeploymentSettings.DEFAULT_ACCOUNT));
        for (ProviderAccountSettings account : accounts) {
            if (!names.add(account.name())) {
                throw new IllegalArgumentException(PREFIX + "accounts: account '" + account.name() + "' is listed twice");
            }
        }
        for (Map.Entry<String, String> tenant : tenants.entrySet()) {
            if (!TENANT.matcher(tenant.getKey()).matches()) {
                throw new IllegalArgumentException(PREFIX + "tenants: '" + tenant.getKey() + "' is not a tenant id (" + DeploymentSettings.TENANT_PATTERN + ")");
            }
            if (!names.contains(tenant.getValue())) {
                throw new IllegalArgumentException(PREFIX + "tenants: tenant '" + tenant.getKey() + "' uses account '"
                        + tenant.getValue() + "', which is neither " + DeploymentSettings.DEFAULT_ACCOUNT + " nor in "
                        + PREFIX + "accounts");
            }
        }
        ordersUnguarded = tenantIds("ordersUnguarded", ordersUnguarded);
        respondAsyncTenants = tenantIds("respondAsyncTenants", respondAsyncTenants);
    }

    /** The tenant ids of a setting, sorted; each must be one that property names can carry. */
    private static Set<String> tenantIds(String setting, Set<String> tenants) {
        for (String tenant : tenants) {
            if (!TENANT.matcher(tenant).matches()) {
                throw new IllegalArgumentException(PREFIX + setting + ": '" + tenant + "' is not a tenant id ("
                        + DeploymentSettings.TENANT_PATTERN + ")");
            }
        }
        return Collections.unmodifiableSet(new TreeSet<>(tenants));
    }

    public boolean isNative() {
        return runtime.equals(NATIVE);
    }

    /** The settings from a context lookup (for example {@code app.getNode()::tryGetContext}). */
    public static OncepaySettings from(Function<String, Object> context) {
        Function<String, Optional<String>> get = name -> Optional.ofNullable(context.apply(PREFIX + name))
                .map(Object::toString).map(String::trim).filter(s -> !s.isEmpty());
        String runtime = get.apply("runtime").orElse(NATIVE);
        String architecture = get.apply("architecture").orElse("x86_64");
        if (!architecture.equals("x86_64") && !architecture.equals("arm64")) {
            throw new IllegalArgumentException(PREFIX + "architecture must be x86_64 or arm64, not " + architecture);
        }
        if (get.apply("secretArn").isPresent()) {
            throw new IllegalArgumentException(PREFIX + "secretArn is gone: secrets are split by function; give "
                    + PREFIX + "apiKeySecretArn (charge, reconcile) and " + PREFIX + "signingSecretArn (webhook) instead");
        }
        int retentionDays = get.apply("logRetentionDays").map(Integer::parseInt).orElse(30);
        RetentionDays retention = Optional.ofNullable(RETENTIONS.get(retentionDays)).orElseThrow(
                () -> new IllegalArgumentException(PREFIX + "logRetentionDays must be one of " + RETENTIONS.keySet()));
        Optional<Integer> chargeConcurrency = reserved(get, DeploymentSettings.FUNCTION_CHARGE);
        List<ProviderAccountSettings> accounts = accounts(context.apply(PREFIX + "accounts"));
        return new OncepaySettings(
                runtime,
                architecture.equals("arm64"),
                Path.of(get.apply("functionZip").orElse("../oncepay-functions/target/function.zip")),
                get.apply("placeholderCode").map(Boolean::parseBoolean).orElse(false),
                memoryMb(get, runtime, DeploymentSettings.FUNCTION_CHARGE),
                memoryMb(get, runtime, DeploymentSettings.FUNCTION_WEBHOOK),
                memoryMb(get, runtime, DeploymentSettings.FUNCTION_RECONCILE),
                memoryMb(get, runtime, DeploymentSettings.FUNCTION_CHARGE_WORKER),
                memoryMb(get, runtime, DeploymentSettings.FUNCTION_EVENT_DELIVERY),
                chargeConcurrency,
                reserved(get, DeploymentSettings.FUNCTION_WEBHOOK),
                reserved(get, DeploymentSettings.FUNCTION_RECONCILE),
                queueFedReserved(get, DeploymentSettings.FUNCTION_CHARGE_WORKER,
                        "the sum of the accounts' queue concurrency (" + PREFIX + "queueConcurrency and each account's queueConcurrency)"),
                queueFedReserved(get, DeploymentSettings.FUNCTION_EVENT_DELIVERY,
                        "the event queue's concurrency (" + PREFIX + "eventConcurrency)"),
                get.apply("providerMaxInFlight").map(Integer::parseInt)
                        .or(() -> chargeConcurrency.map(c -> DeploymentSettings.chargeMaxInFlight(c, 1 + accounts.size()))),
                get.apply("reconcileRateMinutes").map(Integer::parseInt).orElse(DeploymentSettings.RECONCILE_RATE_MINUTES),
                retention,
                get.apply("apiKeySecretArn"),
                get.apply("signingSecretArn"),
                get.apply("queueConcurrency").map(Integer::parseInt).orElse(DeploymentSettings.CHARGE_QUEUE_MAX_CONCURRENCY),
                get.apply("eventConcurrency").map(Integer::parseInt).orElse(DeploymentSettings.EVENT_QUEUE_MAX_CONCURRENCY),
                accounts,
                tenants(context.apply(PREFIX + "tenants")),
                Set.copyOf(list("ordersUnguarded", context.apply(PREFIX + "ordersUnguarded"))),
                get.apply("ordersGuardedByDefault").map(value -> bool("ordersGuardedByDefault", value)).orElse(true),
                Set.copyOf(list("respondAsyncTenants", context.apply(PREFIX + "respondAsyncTenants"))),
                get.apply("respondAsyncByDefault").map(value -> bool("respondAsyncByDefault", value)).orElse(false),
                get.apply("alarmServerErrorPercent").map(Double::parseDouble).orElse(1.0),
                get.apply("alarmUnknownBacklog").map(Integer::parseInt).orElse(10),
                get.apply("alarmUnknownAgeMinutes").map(Integer::parseInt).orElse(15),
                get.apply("alarmPendingAgeMinutes").map(Integer::parseInt).orElse(15),
                get.apply("alarmChargeQueueAgeMinutes").map(Integer::parseInt).orElse(5),
                get.apply("alarmEventQueueAgeMinutes").map(Integer::parseInt).orElse(DEFAULT_EVENT_QUEUE_AGE_MINUTES),
                eventEndpoints(context.apply(PREFIX + "eventEndpoints")),
                get.apply("deliveriesIndex").map(value -> bool("deliveriesIndex", value)).orElse(true),
                list("operatorPrincipals", context.apply(PREFIX + "operatorPrincipals")),
                get.apply("runbookUrl").orElse(DEFAULT_RUNBOOK_URL),
                Path.of(get.apply("openApiDocument").orElse(DEFAULT_OPENAPI_DOCUMENT)));
    }

    /**
     * Provider routing for charge, the charge worker and reconcile: {@code oncepay.provider.tenants.<tenant>} and each
     * account's {@code provider}, {@code url} and (if set) {@code lookup-lag}, as the application reads them from
     * {@link DeploymentSettings#ENV_PROVIDER_ROUTING}. No secret is among them.
     */
    public Map<String, String> routingProperties() {
        Map<String, String> properties = new TreeMap<>();
        tenants.forEach((tenant, account) -> properties.put(DeploymentSettings.PROVIDER_TENANTS_PREFIX + tenant, account));
        for (ProviderAccountSettings account : accounts) {
            String prefix = DeploymentSettings.PROVIDER_ACCOUNTS_PREFIX + account.name() + ".";
            properties.put(prefix + DeploymentSettings.ACCOUNT_PROVIDER, account.provider());
            properties.put(prefix + DeploymentSettings.ACCOUNT_URL, account.url());
            account.lookupLag().ifPresent(lag -> properties.put(prefix + DeploymentSettings.ACCOUNT_LOOKUP_LAG, lag));
        }
        return properties;
    }

    /**
     * What {@link DeploymentSettings#ENV_PROVIDER_ROUTING} carries for {@code function} beside the queues' URLs
     * (resources of the stack): the routing for the functions that call providers, and for charge, the one
     * function that binds orders and takes requests, the order guard's settings and which tenants' charges
     * are queued when their request does not say.
     */
    public Map<String, String> plainProperties(String function) {
        Map<String, String> properties = new TreeMap<>();
        if (callsProviders(function)) {
            properties.putAll(routingProperties());
        }
        if (function.equals(DeploymentSettings.FUNCTION_CHARGE)) {
            if (!ordersGuardedByDefault) {
                properties.put(DeploymentSettings.ORDERS_ONCE_PER_REFERENCE, "false");
            }
            ordersUnguarded.forEach(tenant -> properties.put(DeploymentSettings.orderGuardProperty(tenant), "false"));
            if (respondAsyncByDefault) {
                properties.put(DeploymentSettings.QUEUE_RESPOND_ASYNC, "true");
            }
            respondAsyncTenants.forEach(tenant -> properties.put(DeploymentSettings.respondAsyncProperty(tenant), "true"));
        }
        return properties;
    }

    /** A context value as JSON: a string from {@code -c}, or a structure from {@code cdk.json}. */
    private static Optional<JsonNode> json(String name, Object value) {
        if (value == null || value instanceof String text && text.isBlank()) {
            return Optional.empty();
        }
        try {
            return Optional.of(value instanceof String text ? JSON.readTree(text) : JSON.valueToTree(value));
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException(PREFIX + name + " is not valid JSON: " + e.getOriginalMessage());
        }
    }

    private static List<ProviderAccountSettings> accounts(Object value) {
        Optional<JsonNode> json = json("accounts", value);
        if (json.isEmpty()) {
            return List.of();
        }
        if (!json.get().isArray()) {
            throw new IllegalArgumentException(PREFIX + "accounts must be a JSON array of accounts");
        }
        List<ProviderAccountSettings> accounts = new ArrayList<>();
        for (JsonNode account : json.get()) {
            requireObjectOf(account, ACCOUNT_FIELDS, PREFIX + "accounts: each account is an object of ");
            accounts.add(new ProviderAccountSettings(text(account, "name"), text(account, "provider"), text(account, "url"),
                    Optional.ofNullable(text(account, "apiKeySecretArn")), Optional.ofNullable(text(account, "signingSecretArn")),
                    Optional.ofNullable(text(account, "lookupLag")), queueConcurrency(account)));
        }
        return accounts;
    }

    /** A JSON object of none but the {@code known} fields; else {@code problem}, the list and the unknown ones. */
    private static void requireObjectOf(JsonNode node, List<String> known, String problem) {
        Set<String> fields = new TreeSet<>();
        node.fieldNames().forEachRemaining(fields::add);
        fields.removeAll(known);
        if (!node.isObject() || !fields.isEmpty()) {
            throw new IllegalArgumentException(problem + known + (fields.isEmpty() ? "" : "; unknown: " + fields));
        }
    }

    /** An account's {@code queueConcurrency}: a whole number, the default when absent. */
    private static int queueConcurrency(JsonNode account) {
        JsonNode value = account.get("queueConcurrency");
        if (value == null) {
            return DeploymentSettings.CHARGE_QUEUE_MAX_CONCURRENCY;
        }
        if (!value.isIntegralNumber() || !value.canConvertToInt()) {
            throw new IllegalArgumentException(PREFIX + "accounts: account '" + text(account, "name")
                    + "': queueConcurrency must be a whole number, not " + value);
        }
        return value.intValue();
    }

    private static String text(JsonNode object, String field) {
        JsonNode value = object.get(field);
        return value == null || !value.isTextual() || value.textValue().isBlank() ? null : value.textValue().trim();
    }

    /** A JSON array of strings (from {@code cdk.json}, or as text), or comma-separated strings as {@code -c} text. */
    private static List<String> list(String name, Object value) {
        if (value instanceof String text && !text.trim().startsWith("[")) {
            return Arrays.stream(text.split(",")).map(String::trim).filter(item -> !item.isEmpty()).toList();
        }
        Optional<JsonNode> json = json(name, value);
        if (json.isEmpty()) {
            return List.of();
        }
        List<String> items = new ArrayList<>();
        for (JsonNode item : json.filter(JsonNode::isArray).orElseThrow(() -> new IllegalArgumentException(
                PREFIX + name + " must be a list: comma-separated, or a JSON array of strings"))) {
            if (!item.isTextual()) {
                throw new IllegalArgumentException(PREFIX + name + ": " + item + " is not a string");
            }
            items.add(item.textValue().trim());
        }
        return items;
    }

    /** {@code true} or {@code false}: a typo must not be read as either. */
    private static boolean bool(String name, String value) {
        return switch (value) {
            case "true" -> true;
            case "false" -> false;
            default -> throw new IllegalArgumentException(PREFIX + name + " must be true or false, not " + value);
        };
    }

    private static Map<String, String> tenants(Object value) {
        Optional<JsonNode> json = json("tenants", value);
        Map<String, String> tenants = new TreeMap<>();
        if (json.isEmpty()) {
            return tenants;
        }
        if (!json.get().isObject()) {
            throw new IllegalArgumentException(PREFIX + "tenants must be a JSON object of tenant id to account name");
        }
        json.get().fields().forEachRemaining(e -> {
            if (!e.getValue().isTextual()) {
                throw new IllegalArgumentException(PREFIX + "tenants: tenant '" + e.getKey() + "' must name an account");
            }
            tenants.put(e.getKey(), e.getValue().textValue());
        });
        return tenants;
    }

    public Optional<Integer> reservedConcurrency(String function) {
        return switch (function) {
            case DeploymentSettings.FUNCTION_CHARGE -> chargeConcurrency;
            case DeploymentSettings.FUNCTION_WEBHOOK -> webhookConcurrency;
            case DeploymentSettings.FUNCTION_RECONCILE -> reconcileConcurrency;
            case DeploymentSettings.FUNCTION_CHARGE_WORKER -> chargeWorkerReserved
                    ? Optional.of(chargeQueueConcurrency().values().stream().mapToInt(Integer::intValue).sum())
                    : Optional.empty();
            case DeploymentSettings.FUNCTION_EVENT_DELIVERY -> eventDeliveryReserved ? Optional.of(eventConcurrency) : Optional.empty();
            default -> throw new IllegalArgumentException(function);
        };
    }

    /** Lambda memory of a function, in MB. */
    public int memoryMb(String function) {
        return switch (function) {
            case DeploymentSettings.FUNCTION_CHARGE -> chargeMemoryMb;
            case DeploymentSettings.FUNCTION_WEBHOOK -> webhookMemoryMb;
            case DeploymentSettings.FUNCTION_RECONCILE -> reconcileMemoryMb;
            case DeploymentSettings.FUNCTION_CHARGE_WORKER -> chargeWorkerMemoryMb;
            case DeploymentSettings.FUNCTION_EVENT_DELIVERY -> eventDeliveryMemoryMb;
            default -> throw new IllegalArgumentException(function);
        };
    }

    /** Each provider account's charge queue concurrency, by account name: the default account first. */
    public Map<String, Integer> chargeQueueConcurrency() {
        Map<String, Integer> concurrency = new LinkedHashMap<>();
        concurrency.put(DeploymentSettings.DEFAULT_ACCOUNT, queueConcurrency);
        accounts.forEach(account -> concurrency.put(account.name(), account.queueConcurrency()));
        return concurrency;
    }

    /** A function's name in context keys ({@code <name>MemoryMb}, {@code <name>Concurrency}): {@code charge-worker} is {@code chargeWorker}. */
    static String contextName(String function) {
        return Pattern.compile("-([a-z])").matcher(function).replaceAll(dash -> dash.group(1).toUpperCase(Locale.ROOT));
    }

    /** {@code <function>MemoryMb}, else {@code memoryMb} (every function, as before per-function sizes), else the default. */
    private static int memoryMb(Function<String, Optional<String>> get, String runtime, String function) {
        return get.apply(contextName(function) + "MemoryMb").or(() -> get.apply("memoryMb")).map(Integer::parseInt)
                .orElseGet(() -> DeploymentSettings.defaultMemoryMb(!runtime.equals(JVM), function));
    }

    /** {@code <function>Concurrency}; {@code none} leaves a function unreserved (for accounts with a small concurrency quota). */
    private static Optional<Integer> reserved(Function<String, Optional<String>> get, String function) {
        Optional<String> value = get.apply(contextName(function) + "Concurrency");
        if (value.isPresent() && value.get().equalsIgnoreCase("none")) {
            return Optional.empty();
        }
        return Optional.of(value.map(Integer::parseInt).orElseGet(() -> DeploymentSettings.defaultReservedConcurrency(function)));
    }

    /**
     * {@code <function>Concurrency} of a function fed by queues: only {@code none} may be given, since its
     * reservation follows from its event-source mappings' maximum concurrency ({@code reservation} says which).
     */
    private static boolean queueFedReserved(Function<String, Optional<String>> get, String function, String reservation) {
        String key = contextName(function) + "Concurrency";
        Optional<String> value = get.apply(key);
        if (value.isPresent() && !value.get().equalsIgnoreCase("none")) {
            throw new IllegalArgumentException(PREFIX + key + " is " + reservation + "; only none (not reserved) may be"
                    + " given, not " + value.get());
        }
        return value.isEmpty();
    }

    /** The functions that call providers: they hold the API keys, the routing and the in-flight cap. */
    public static boolean callsProviders(String function) {
        return function.equals(DeploymentSettings.FUNCTION_CHARGE) || function.equals(DeploymentSettings.FUNCTION_RECONCILE)
                || function.equals(DeploymentSettings.FUNCTION_CHARGE_WORKER);
    }

    /**
     * What {@link DeploymentSettings#ENV_EVENT_ENDPOINTS} carries, for every function: each endpoint's url, and
     * its types (comma-separated) when it names some. Its signing secrets are in Secrets Manager.
     */
    public Map<String, String> eventEndpointProperties() {
        Map<String, String> properties = new TreeMap<>();
        for (EventEndpointSettings endpoint : eventEndpoints) {
            properties.put(endpoint.urlProperty(), endpoint.url());
            if (!endpoint.types().isEmpty()) {
                properties.put(endpoint.typesProperty(), String.join(",", endpoint.types()));
            }
        }
        return properties;
    }

    /** {@code {"<tenant>": {"<endpoint>": {"url": "https://…", "types": [...], "secretArn": "arn:…"}}}}, types and secretArn optional. */
    private static List<EventEndpointSettings> eventEndpoints(Object value) {
        Optional<JsonNode> json = json("eventEndpoints", value);
        List<EventEndpointSettings> endpoints = new ArrayList<>();
        if (json.isEmpty()) {
            return endpoints;
        }
        String shape = PREFIX + "eventEndpoints must be a JSON object of tenant id to an object of endpoint id to "
                + "{\"url\": \"https://…\", \"types\": [...], \"secretArn\": \"arn:…\"}";
        if (!json.get().isObject()) {
            throw new IllegalArgumentException(shape);
        }
        Map<String, JsonNode> tenants = new TreeMap<>();
        json.get().fields().forEachRemaining(tenant -> tenants.put(tenant.getKey(), tenant.getValue()));
        tenants.forEach((tenant, byName) -> {
            if (!byName.isObject() || byName.isEmpty()) {
                throw new IllegalArgumentException(shape + "; tenant '" + tenant + "' has no endpoint object");
            }
            Map<String, JsonNode> named = new TreeMap<>();
            byName.fields().forEachRemaining(endpoint -> named.put(endpoint.getKey(), endpoint.getValue()));
            named.forEach((name, endpoint) -> {
                String what = PREFIX + "eventEndpoints: tenant '" + tenant + "', endpoint '" + name + "'";
                requireObjectOf(endpoint, ENDPOINT_FIELDS, what + " must be an object of ");
                endpoints.add(new EventEndpointSettings(tenant, name, text(endpoint, "url"), types(what, endpoint.get("types")),
                        Optional.ofNullable(text(endpoint, "secretArn"))));
            });
        });
        return endpoints;
    }

    /** An endpoint's {@code types}: a non-empty JSON array of strings; absent means every type. */
    private static List<String> types(String what, JsonNode types) {
        if (types == null) {
            return List.of();
        }
        if (!types.isArray() || types.isEmpty()) {
            throw new IllegalArgumentException(what + ": types must be a non-empty JSON array of event types"
                    + " (leave it out for every type)");
        }
        List<String> list = new ArrayList<>();
        for (JsonNode type : types) {
            if (!type.isTextual()) {
                throw new IllegalArgumentException(what + ": types: " + type + " is not a string");
            }
            list.add(type.textValue().trim());
        }
        return list;
    }
}
