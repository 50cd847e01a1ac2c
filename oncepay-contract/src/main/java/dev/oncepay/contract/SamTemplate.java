package dev.oncepay.contract;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * The SAM templates of the functions, {@value #JVM_FILE} and {@value #NATIVE_FILE}, for
 * {@code sam local invoke} and {@code sam local start-api} on {@code function.zip} where Docker
 * exists. oncepay-functions' package phase writes them beside {@code function.zip}, over the
 * single-function ones Quarkus generates. Every value comes from {@link DeploymentSettings}, which
 * the CDK app deploys with: the same handler, runtime, memory, timeout, reserved concurrency,
 * environment variables, routes, schedule and queue per function ({@code SamTemplateTest} in
 * {@code infra/} compares them with the synthesized stack). The CDK app stays the deployment:
 * what a stack creates (the table, the secrets, the operator role) is a parameter here, named
 * after the stack's output that holds it, except the default account's charge queue, the event
 * queue and their dead-letter queues, resources here as in the stack because the charge worker's
 * and event-delivery's SQS events name their queues; what only a deployed stack has (authorizers,
 * versions and aliases, roles, alarms) is left out.
 */
public final class SamTemplate {
    public static final String JVM_FILE = "sam.jvm.yaml";
    public static final String NATIVE_FILE = "sam.native.yaml";
    /** The package the templates name, relative to them. */
    public static final String CODE_URI = "function.zip";

    // Parameters: the CDK stack's own parameters by the same names, and a stand-in for each resource it creates.
    public static final String PROVIDER_URL = "ProviderUrl";
    public static final String PROVIDER_ID = "ProviderId";
    public static final String TENANT_CLAIM = "TenantClaim";
    public static final String TABLE_NAME = "TableName";
    public static final String API_KEY_SECRET_ARNS = "ApiKeySecretArns";
    public static final String SIGNING_SECRET_ARNS = "SigningSecretArns";
    public static final String OPERATOR_ROLE_NAME = "OperatorRoleName";

    // Resources beside the functions: the default account's queues, by the ids the stack gives them in the account's scope.
    public static final String CHARGE_QUEUE = "ChargeQueue";
    public static final String CHARGE_DEAD_LETTERS = "ChargeDeadLetters";
    // The event queue and its dead-letter queue, by the stack's ids for them.
    public static final String EVENT_QUEUE = "EventQueue";
    public static final String EVENT_DEAD_LETTERS = "EventDeadLetters";

    private SamTemplate() {
    }

    /** Writes both templates into {@code args[0]} (oncepay-functions' {@code target/}). */
    public static void main(String[] args) throws IOException {
        Path dir = Path.of(args[0]);
        Files.writeString(dir.resolve(JVM_FILE), yaml(false), StandardCharsets.UTF_8);
        Files.writeString(dir.resolve(NATIVE_FILE), yaml(true), StandardCharsets.UTF_8);
        System.out.println("[sam] " + dir.resolve(JVM_FILE) + " and " + NATIVE_FILE + ": "
                + DeploymentSettings.FUNCTIONS.stream().map(SamTemplate::logicalId).collect(Collectors.joining(", "))
                + ", from DeploymentSettings");
    }

    /** The template as YAML text. */
    public static String yaml(boolean nativeRuntime) {
        StringBuilder out = new StringBuilder()
                .append("# Written by dev.oncepay.contract.SamTemplate at package, from DeploymentSettings (the values the\n")
                .append("# CDK app in infra/ deploys with). Change those, not this file. Use: docs/operations.md, \"SAM\".\n");
        Yaml.block(out, template(nativeRuntime), 0);
        return out.toString();
    }

    /** The template as CloudFormation's data model: ordered maps, lists, strings and integers. */
    public static Map<String, Object> template(boolean nativeRuntime) {
        Map<String, Object> template = new LinkedHashMap<>();
        template.put("AWSTemplateFormatVersion", "2010-09-09");
        template.put("Transform", "AWS::Serverless-2016-10-31");
        template.put("Description", "oncepay: " + String.join(", ", DeploymentSettings.FUNCTIONS) + " on the "
                + (nativeRuntime ? "native (" + DeploymentSettings.NATIVE_RUNTIME + ")" : "JVM (" + DeploymentSettings.JVM_RUNTIME + ")")
                + " function.zip, for sam local. Deploy with the CDK app in infra/.");
        Map<String, Object> parameters = new LinkedHashMap<>();
        parameters.put(TABLE_NAME, parameter("The DynamoDB table: the stack's TableName output", "oncepay"));
        parameters.put(PROVIDER_URL, parameter("Base URL of the payment provider's REST API; empty: the application's default", ""));
        parameters.put(PROVIDER_ID, parameter("The default account's provider id; empty: the application's default", ""));
        parameters.put(TENANT_CLAIM, parameter("The JWT claim that carries the tenant id", DeploymentSettings.DEFAULT_TENANT_CLAIM));
        parameters.put(API_KEY_SECRET_ARNS, parameter("Charge and reconcile: the API-key secrets' ARNs, comma-separated"
                + " (the stack's ...ApiKeySecretArn outputs); empty: none is read", ""));
        parameters.put(SIGNING_SECRET_ARNS, parameter("Webhook: the signing secrets' ARNs, comma-separated"
                + " (the stack's ...SigningSecretArn outputs); empty: none is read", ""));
        parameters.put(OPERATOR_ROLE_NAME, parameter("Charge: the role whose sessions alone may call the operator API"
                + " (the name in the stack's OperatorRoleArn output); empty: any caller the gateway let through", ""));
        template.put("Parameters", parameters);
        Map<String, Object> resources = new LinkedHashMap<>();
        for (String function : DeploymentSettings.FUNCTIONS) {
            resources.put(logicalId(function), typed("AWS::Serverless::Function", function(function, nativeRuntime)));
        }
        resources.put(CHARGE_QUEUE, typed("AWS::SQS::Queue", queue(DeploymentSettings.chargeQueueName(DeploymentSettings.DEFAULT_ACCOUNT),
                DeploymentSettings.CHARGE_QUEUE_VISIBILITY_TIMEOUT_SECONDS, DeploymentSettings.CHARGE_QUEUE_HORIZON_SECONDS,
                CHARGE_DEAD_LETTERS, DeploymentSettings.CHARGE_QUEUE_MAX_RECEIVES)));
        resources.put(CHARGE_DEAD_LETTERS, typed("AWS::SQS::Queue",
                deadLetters(DeploymentSettings.chargeDeadLetterQueueName(DeploymentSettings.DEFAULT_ACCOUNT))));
        resources.put(EVENT_QUEUE, typed("AWS::SQS::Queue", queue(DeploymentSettings.EVENT_QUEUE_NAME,
                DeploymentSettings.EVENT_QUEUE_VISIBILITY_TIMEOUT_SECONDS, DeploymentSettings.EVENT_QUEUE_RETENTION_SECONDS,
                EVENT_DEAD_LETTERS, DeploymentSettings.EVENT_QUEUE_MAX_RECEIVES)));
        resources.put(EVENT_DEAD_LETTERS, typed("AWS::SQS::Queue", deadLetters(DeploymentSettings.EVENT_DEAD_LETTER_QUEUE_NAME)));
        template.put("Resources", resources);
        return template;
    }

    /** {@code ChargeFunction}: the logical id the CDK stack gives the function too (before its hash). */
    public static String logicalId(String function) {
        return resourceName(function) + "Function";
    }

    /** {@code charge-worker} is {@code ChargeWorker}: how the function's resources' ids begin, here and in the CDK stack. */
    public static String resourceName(String function) {
        return Arrays.stream(function.split("-")).map(SamTemplate::capitalized).collect(Collectors.joining());
    }

    /** An event's logical id: {@code GET /wallets/{walletId}} is {@code GetWalletsWalletId}. */
    public static String eventId(String route) {
        String[] methodAndPath = route.split(" ");
        return capitalized(methodAndPath[0].toLowerCase(Locale.ROOT)) + Arrays.stream(methodAndPath[1].split("[^A-Za-z0-9]+"))
                .filter(part -> !part.isEmpty()).map(SamTemplate::capitalized).collect(Collectors.joining());
    }

    /** EventBridge's rate expression for a schedule of {@code minutes}, as CDK writes it. */
    public static String rate(int minutes) {
        return "rate(" + minutes + (minutes == 1 ? " minute)" : " minutes)");
    }

    private static Map<String, Object> function(String function, boolean nativeRuntime) {
        Map<String, Object> properties = new LinkedHashMap<>();
        properties.put("Description", "oncepay " + function);
        properties.put("Runtime", nativeRuntime ? DeploymentSettings.NATIVE_RUNTIME : DeploymentSettings.JVM_RUNTIME);
        properties.put("Handler", nativeRuntime ? DeploymentSettings.NATIVE_HANDLER : DeploymentSettings.JVM_HANDLER);
        properties.put("CodeUri", CODE_URI);
        properties.put("Architectures", List.of("x86_64"));
        properties.put("MemorySize", DeploymentSettings.defaultMemoryMb(nativeRuntime, function));
        properties.put("Timeout", DeploymentSettings.timeoutSeconds(function));
        properties.put("ReservedConcurrentExecutions", DeploymentSettings.defaultReservedConcurrency(function));
        properties.put("Environment", Map.of("Variables", environment(function, nativeRuntime)));
        properties.put("Events", events(function));
        return properties;
    }

    /** A queue that feeds a function, as the stack creates it: after {@code maxReceives} receives a message moves to {@code deadLetters}. */
    private static Map<String, Object> queue(String name, int visibilityTimeoutSeconds, int retentionSeconds, String deadLetters,
            int maxReceives) {
        Map<String, Object> redrive = new LinkedHashMap<>();
        redrive.put("deadLetterTargetArn", arn(deadLetters));
        redrive.put("maxReceiveCount", maxReceives);
        Map<String, Object> properties = new LinkedHashMap<>();
        properties.put("QueueName", name);
        properties.put("VisibilityTimeout", visibilityTimeoutSeconds);
        properties.put("MessageRetentionPeriod", retentionSeconds);
        properties.put("SqsManagedSseEnabled", true);
        properties.put("RedrivePolicy", redrive);
        return properties;
    }

    /** A dead-letter queue. */
    private static Map<String, Object> deadLetters(String name) {
        Map<String, Object> properties = new LinkedHashMap<>();
        properties.put("QueueName", name);
        properties.put("MessageRetentionPeriod", DeploymentSettings.DEAD_LETTER_RETENTION_SECONDS);
        properties.put("SqsManagedSseEnabled", true);
        return properties;
    }

    /** The variables the CDK stack sets on the function. */
    private static Map<String, Object> environment(String function, boolean nativeRuntime) {
        boolean callsProviders = function.equals(DeploymentSettings.FUNCTION_CHARGE)
                || function.equals(DeploymentSettings.FUNCTION_RECONCILE) || function.equals(DeploymentSettings.FUNCTION_CHARGE_WORKER);
        boolean queueFed = function.equals(DeploymentSettings.FUNCTION_CHARGE_WORKER)
                || function.equals(DeploymentSettings.FUNCTION_EVENT_DELIVERY);
        Map<String, Object> env = new LinkedHashMap<>();
        env.put(DeploymentSettings.ENV_TABLE, ref(TABLE_NAME));
        env.put(DeploymentSettings.ENV_PROVIDER_URL, ref(PROVIDER_URL));
        env.put(DeploymentSettings.ENV_PROVIDER_ID, ref(PROVIDER_ID));
        // The queue-fed functions take no HTTP request, so no token's claim.
        if (!queueFed) {
            env.put(DeploymentSettings.ENV_TENANT_CLAIM, ref(TENANT_CLAIM));
        }
        env.put(DeploymentSettings.ENV_AWS_RETRY_MODE, DeploymentSettings.AWS_RETRY_MODE);
        env.put(DeploymentSettings.ENV_AWS_MAX_ATTEMPTS, Integer.toString(DeploymentSettings.AWS_MAX_ATTEMPTS));
        if (nativeRuntime) {
            env.put(DeploymentSettings.ENV_DISABLE_SIGNAL_HANDLERS, "true");
        }
        env.put(DeploymentSettings.ENV_FUNQY_EXPORT, function);
        // Event-delivery reads the merchant endpoints' secrets, and the stack with default settings has no endpoint.
        if (callsProviders || function.equals(DeploymentSettings.FUNCTION_WEBHOOK)) {
            env.put(DeploymentSettings.ENV_SECRET_ARNS, ref(callsProviders ? API_KEY_SECRET_ARNS : SIGNING_SECRET_ARNS));
        }
        // Every function moves payments or refunds (and relays their events) or delivers them.
        env.put(DeploymentSettings.ENV_EVENT_QUEUE_URL, ref(EVENT_QUEUE));
        if (function.equals(DeploymentSettings.FUNCTION_CHARGE) || function.equals(DeploymentSettings.FUNCTION_CHARGE_WORKER)) {
            env.put(DeploymentSettings.ENV_PROVIDER_QUEUE_URL, ref(CHARGE_QUEUE));
        }
        if (callsProviders) {
            // Charge, the worker and reconcile count the same calls in flight: the cap of a stack with the
            // default reserved concurrency and one provider account.
            env.put(DeploymentSettings.ENV_CHARGE_MAX_IN_FLIGHT, Integer.toString(DeploymentSettings.chargeMaxInFlight(
                    DeploymentSettings.defaultReservedConcurrency(DeploymentSettings.FUNCTION_CHARGE), 1)));
        }
        if (function.equals(DeploymentSettings.FUNCTION_CHARGE)) {
            env.put(DeploymentSettings.ENV_OPERATOR_ROLE_NAME, ref(OPERATOR_ROLE_NAME));
        }
        return env;
    }

    private static Map<String, Object> events(String function) {
        Map<String, Object> events = new LinkedHashMap<>();
        for (String route : DeploymentSettings.routes(function)) {
            String[] methodAndPath = route.split(" ");
            Map<String, Object> properties = new LinkedHashMap<>();
            properties.put("Method", methodAndPath[0]);
            properties.put("Path", methodAndPath[1]);
            properties.put("PayloadFormatVersion", "2.0");
            properties.put("TimeoutInMillis", DeploymentSettings.integrationTimeoutSeconds(function) * 1000);
            events.put(eventId(route), typed("HttpApi", properties));
        }
        if (function.equals(DeploymentSettings.FUNCTION_RECONCILE)) {
            events.put("Schedule", typed("Schedule", Map.of("Schedule", rate(DeploymentSettings.RECONCILE_RATE_MINUTES))));
        }
        if (function.equals(DeploymentSettings.FUNCTION_CHARGE_WORKER)) {
            events.put(CHARGE_QUEUE, sqsEvent(CHARGE_QUEUE, DeploymentSettings.CHARGE_QUEUE_BATCH_SIZE,
                    DeploymentSettings.CHARGE_QUEUE_MAX_CONCURRENCY));
        }
        if (function.equals(DeploymentSettings.FUNCTION_EVENT_DELIVERY)) {
            events.put(EVENT_QUEUE, sqsEvent(EVENT_QUEUE, DeploymentSettings.EVENT_QUEUE_BATCH_SIZE,
                    DeploymentSettings.EVENT_QUEUE_MAX_CONCURRENCY));
        }
        return events;
    }

    /** An SQS event as the stack's event-source mappings take up their queues: no batching window, failures per message. */
    private static Map<String, Object> sqsEvent(String queue, int batchSize, int maxConcurrency) {
        Map<String, Object> properties = new LinkedHashMap<>();
        properties.put("Queue", arn(queue));
        properties.put("BatchSize", batchSize);
        properties.put("MaximumBatchingWindowInSeconds", 0);
        properties.put("FunctionResponseTypes", List.of("ReportBatchItemFailures"));
        properties.put("ScalingConfig", Map.of("MaximumConcurrency", maxConcurrency));
        return typed("SQS", properties);
    }

    /** A resource or event: its type, then its properties. */
    private static Map<String, Object> typed(String type, Map<String, Object> properties) {
        Map<String, Object> typed = new LinkedHashMap<>();
        typed.put("Type", type);
        typed.put("Properties", properties);
        return typed;
    }

    private static Map<String, Object> parameter(String description, String defaultValue) {
        Map<String, Object> parameter = new LinkedHashMap<>();
        parameter.put("Type", "String");
        parameter.put("Description", description);
        parameter.put("Default", defaultValue);
        return parameter;
    }

    /** A parameter's value, or a resource's (a queue's is its URL). */
    private static Map<String, Object> ref(String name) {
        return Map.of("Ref", name);
    }

    private static Map<String, Object> arn(String resource) {
        return Map.of("Fn::GetAtt", List.of(resource, "Arn"));
    }

    private static String capitalized(String word) {
        return Character.toUpperCase(word.charAt(0)) + word.substring(1);
    }

    /**
     * Block-style YAML of the model above (maps, lists, strings, integers, booleans): strings
     * single-quoted, so none is read as a number, boolean or date; keys bare (they are identifiers).
     */
    private static final class Yaml {
        private Yaml() {
        }

        static void block(StringBuilder out, Map<?, ?> map, int indent) {
            for (Map.Entry<?, ?> entry : map.entrySet()) {
                out.append(" ".repeat(indent)).append(entry.getKey()).append(':');
                value(out, entry.getValue(), indent + 2);
            }
        }

        private static void value(StringBuilder out, Object value, int indent) {
            if (value instanceof Map<?, ?> map && !map.isEmpty()) {
                out.append('\n');
                block(out, map, indent);
            } else if (value instanceof List<?> list && !list.isEmpty()) {
                out.append('\n');
                for (Object item : list) {
                    out.append(" ".repeat(indent)).append('-');
                    value(out, item, indent + 2);
                }
            } else {
                out.append(' ').append(scalar(value)).append('\n');
            }
        }

        private static String scalar(Object value) {
            if (value instanceof Map<?, ?>) {
                return "{}";
            }
            if (value instanceof List<?>) {
                return "[]";
            }
            if (value instanceof Integer || value instanceof Boolean) {
                return value.toString();
            }
            return "'" + value.toString().replace("'", "''") + "'";
        }
    }
}
