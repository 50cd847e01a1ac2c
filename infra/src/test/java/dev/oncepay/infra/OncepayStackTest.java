package dev.oncepay.infra;

import static dev.oncepay.infra.Synth.arnOf;
import static dev.oncepay.infra.Synth.at;
import static dev.oncepay.infra.Synth.props;
import static dev.oncepay.infra.Synth.ref;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.oncepay.config.DeploymentSettings;
import dev.oncepay.config.Metrics;
import dev.oncepay.store.Table;
import dev.oncepay.store.TableSchema;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.services.dynamodb.model.CreateTableRequest;
import software.amazon.awssdk.services.dynamodb.model.GlobalSecondaryIndex;

/** The default stack (native runtime, default settings), synthesized once, offline. */
class OncepayStackTest {
    static final String FUNCTION = "AWS::Lambda::Function";
    static final String API_KEY_SECRET = "AccountdefaultApiKeySecret";
    static final String SIGNING_SECRET = "AccountdefaultSigningSecret";
    private static final List<String> NAMES = List.of(DeploymentSettings.FUNCTION_CHARGE,
            DeploymentSettings.FUNCTION_WEBHOOK, DeploymentSettings.FUNCTION_RECONCILE);

    private static final Set<String> RESERVED = Set.of("AWS_REGION", "AWS_DEFAULT_REGION", "AWS_EXECUTION_ENV",
            "AWS_ACCESS_KEY", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "TZ");

    @TempDir
    static Path dir;
    static Synth synth;

    @BeforeAll
    static void synthesize() throws Exception {
        synth = new Synth(Map.of("oncepay:functionZip", Synth.zip(dir, true).toString()));
    }

    // --- The table: the application's schema, one source of truth -------------------------

    @Test
    void theTableUsesTheApplicationsSchemaConstants() {
        Map<String, Object> table = synth.only("AWS::DynamoDB::Table");

        assertEquals(List.of(Map.of("AttributeName", Table.PK, "KeyType", "HASH")), table.get("KeySchema"));
        assertEquals(Set.of(Map.of("AttributeName", Table.PK, "AttributeType", "S"),
                Map.of("AttributeName", Table.SWEEP_SHARD, "AttributeType", "S"),
                Map.of("AttributeName", Table.NEXT_CHECK_AT, "AttributeType", "N")),
                new HashSet<>(at(table, "AttributeDefinitions")));
        assertEquals(Map.of("AttributeName", Table.EXPIRES_AT, "Enabled", true), table.get("TimeToLiveSpecification"));
        assertEquals(List.of(Map.of(
                "IndexName", Table.SWEEP_INDEX,
                "KeySchema", List.of(Map.of("AttributeName", Table.SWEEP_SHARD, "KeyType", "HASH"),
                        Map.of("AttributeName", Table.NEXT_CHECK_AT, "KeyType", "RANGE")),
                "Projection", Map.of("ProjectionType", "KEYS_ONLY"))), table.get("GlobalSecondaryIndexes"));
    }

    /** The table the tests and the local run create (TableSchema) is the table production gets. */
    @Test
    void theTableIsTheOneTheTestsCreate() {
        CreateTableRequest tests = TableSchema.createTableRequest("oncepay");
        Map<String, Object> table = synth.only("AWS::DynamoDB::Table");

        assertEquals(tests.billingModeAsString(), table.get("BillingMode"));
        assertEquals(new HashSet<>(tests.attributeDefinitions().stream()
                .map(a -> Map.of("AttributeName", a.attributeName(), "AttributeType", a.attributeTypeAsString())).toList()),
                new HashSet<>(at(table, "AttributeDefinitions")));
        assertEquals(tests.keySchema().stream()
                .map(k -> Map.of("AttributeName", k.attributeName(), "KeyType", k.keyTypeAsString())).toList(),
                table.get("KeySchema"));
        List<Map<String, Object>> indexes = new ArrayList<>();
        for (GlobalSecondaryIndex index : tests.globalSecondaryIndexes()) {
            indexes.add(Map.of("IndexName", index.indexName(),
                    "KeySchema", index.keySchema().stream()
                            .map(k -> Map.of("AttributeName", k.attributeName(), "KeyType", k.keyTypeAsString())).toList(),
                    "Projection", Map.of("ProjectionType", index.projection().projectionTypeAsString())));
        }
        assertEquals(indexes, table.get("GlobalSecondaryIndexes"));
    }

    @Test
    void theTableIsOnDemandRecoverableAndKept() {
        Map<String, Object> resource = synth.resources("AWS::DynamoDB::Table").values().iterator().next();
        Map<String, Object> table = props(resource);

        assertEquals("PAY_PER_REQUEST", table.get("BillingMode"));
        assertEquals(Map.of("PointInTimeRecoveryEnabled", true), table.get("PointInTimeRecoverySpecification"));
        assertEquals(true, table.get("DeletionProtectionEnabled"));
        assertEquals("Retain", resource.get("DeletionPolicy"));
    }

    // --- The functions --------------------------------------------------------------------

    @Test
    void threeFunctionsRunOneZipEachWithItsExport() {
        Map<String, Map<String, Object>> functions = functions();
        assertEquals(new TreeSet<>(NAMES), new TreeSet<>(functions.keySet()));
        Set<Object> code = new HashSet<>();
        for (Map.Entry<String, Map<String, Object>> f : functions.entrySet()) {
            assertEquals(f.getKey(), at(f.getValue(), "Environment", "Variables", DeploymentSettings.ENV_FUNQY_EXPORT));
            assertEquals("provided.al2023", f.getValue().get("Runtime"));
            assertEquals(DeploymentSettings.NATIVE_HANDLER, f.getValue().get("Handler"));
            assertEquals(List.of("x86_64"), f.getValue().get("Architectures"));
            assertEquals(256, f.getValue().get("MemorySize"));
            assertEquals("true", at(f.getValue(), "Environment", "Variables", DeploymentSettings.ENV_DISABLE_SIGNAL_HANDLERS));
            code.add(f.getValue().get("Code"));
        }
        assertEquals(1, code.size(), "one function.zip for all three: " + code);
    }

    @Test
    void theEnvironmentUsesTheApplicationsNamesAndCarriesNoSecret() throws IllegalAccessException {
        Set<String> known = new TreeSet<>();
        for (Field field : DeploymentSettings.class.getFields()) {
            if (field.getName().startsWith("ENV_") && Modifier.isStatic(field.getModifiers())) {
                known.add((String) field.get(null));
            }
        }
        String table = synth.id("AWS::DynamoDB::Table", "Table");
        for (Map.Entry<String, Map<String, Object>> named : functions().entrySet()) {
            Map<String, Object> function = named.getValue();
            Map<String, Object> env = at(function, "Environment", "Variables");
            assertTrue(known.containsAll(env.keySet()), "unknown variables: " + env.keySet() + " vs " + known);
            // Lambda refuses to deploy a function that sets one of its reserved variables.
            env.keySet().forEach(name -> assertFalse(name.startsWith("AWS_LAMBDA_") || name.startsWith("_")
                    || name.startsWith("LAMBDA_") || RESERVED.contains(name), name + " is reserved by Lambda"));
            assertEquals(ref(table), env.get(DeploymentSettings.ENV_TABLE));
            assertEquals(List.of(ref(secretOf(named.getKey()))), arns(env.get(DeploymentSettings.ENV_SECRET_ARNS)));
            // Without accounts or tenants there is no routing beyond the default account.
            assertFalse(env.containsKey(DeploymentSettings.ENV_PROVIDER_ROUTING));
            assertEquals(ref("ProviderUrl"), env.get(DeploymentSettings.ENV_PROVIDER_URL));
            assertEquals(ref("ProviderId"), env.get(DeploymentSettings.ENV_PROVIDER_ID));
            assertEquals(ref("TenantClaim"), env.get(DeploymentSettings.ENV_TENANT_CLAIM));
            assertEquals(DeploymentSettings.AWS_RETRY_MODE, env.get(DeploymentSettings.ENV_AWS_RETRY_MODE));
            assertEquals(Integer.toString(DeploymentSettings.AWS_MAX_ATTEMPTS), env.get(DeploymentSettings.ENV_AWS_MAX_ATTEMPTS));
            // Every literal value is one of these fixed settings; nothing else could hide a secret.
            Map<String, Object> literals = new TreeMap<>(env);
            literals.values().removeIf(v -> v instanceof Map);
            Set<String> fixed = new TreeSet<>(Set.of(DeploymentSettings.ENV_FUNQY_EXPORT, DeploymentSettings.ENV_AWS_RETRY_MODE,
                    DeploymentSettings.ENV_AWS_MAX_ATTEMPTS, DeploymentSettings.ENV_DISABLE_SIGNAL_HANDLERS));
            if (!named.getKey().equals(DeploymentSettings.FUNCTION_WEBHOOK)) {
                fixed.add(DeploymentSettings.ENV_CHARGE_MAX_IN_FLIGHT);
            }
            assertEquals(fixed, literals.keySet(), named.getKey());
        }
        // Secret values are put by an operator, never written into the template; secrets outlive the stack.
        assertEquals(2, synth.resources("AWS::SecretsManager::Secret").size());
        synth.resources("AWS::SecretsManager::Secret").forEach((id, secret) -> {
            assertFalse(props(secret).containsKey("SecretString"), id);
            assertEquals("Retain", secret.get("DeletionPolicy"), id);
        });
    }

    /**
     * The internet-facing webhook function can read the signing secrets and nothing else;
     * charge and reconcile, which move money, the API keys and no signing secret.
     */
    @Test
    void theWebhookReadsOnlySigningSecretsAndChargeAndReconcileOnlyApiKeys() {
        String apiKeys = synth.id("AWS::SecretsManager::Secret", API_KEY_SECRET);
        String signing = synth.id("AWS::SecretsManager::Secret", SIGNING_SECRET);
        Map<String, List<Object>> readable = secretsReadableBy(synth);

        assertEquals(Map.of(DeploymentSettings.FUNCTION_CHARGE, List.of(ref(apiKeys)),
                DeploymentSettings.FUNCTION_RECONCILE, List.of(ref(apiKeys)),
                DeploymentSettings.FUNCTION_WEBHOOK, List.of(ref(signing))), readable);
        assertTrue(at(synth.resources("AWS::SecretsManager::Secret").get(apiKeys), "Properties", "Description").toString()
                .contains(DeploymentSettings.PROVIDER_API_KEY_PROPERTY));
    }

    /** For each function (by its export), the resources its role may call GetSecretValue on. */
    static Map<String, List<Object>> secretsReadableBy(Synth synth) {
        Map<String, String> functionByRole = new TreeMap<>();
        synth.resources(FUNCTION).forEach((id, f) -> functionByRole.put(
                at(props(f), "Role", "Fn::GetAtt", 0), at(props(f), "Environment", "Variables", DeploymentSettings.ENV_FUNQY_EXPORT)));
        Map<String, List<Object>> readable = new TreeMap<>();
        for (Map<String, Object> policy : synth.properties("AWS::IAM::Policy")) {
            List<Map<String, Object>> roles = at(policy, "Roles");
            assertEquals(1, roles.size());
            String function = functionByRole.get(roles.get(0).get("Ref").toString());
            List<Map<String, Object>> statements = at(policy, "PolicyDocument", "Statement");
            for (Map<String, Object> statement : statements) {
                if (actions(statement).stream().anyMatch(a -> a.startsWith("secretsmanager:"))) {
                    assertEquals(List.of(OncepayStack.SECRET_ACTION), actions(statement));
                    Object resource = statement.get("Resource");
                    readable.computeIfAbsent(function, f -> new ArrayList<>())
                            .addAll(resource instanceof List<?> list ? list : List.of(resource));
                }
            }
        }
        return readable;
    }

    private static String secretOf(String function) {
        return synth.id("AWS::SecretsManager::Secret",
                function.equals(DeploymentSettings.FUNCTION_WEBHOOK) ? SIGNING_SECRET : API_KEY_SECRET);
    }

    /** The ARNs in {@code ONCEPAY_SECRET_ARNS}: literal ones, and references to the stack's secrets. */
    @SuppressWarnings("unchecked")
    static List<Object> arns(Object variable) {
        List<Object> parts = variable instanceof Map<?, ?> map && map.containsKey("Fn::Join")
                ? (List<Object>) at(variable, "Fn::Join", 1) : List.of(variable);
        assertTrue(!(variable instanceof Map<?, ?> map) || !map.containsKey("Fn::Join")
                || at(variable, "Fn::Join", 0).equals(","), variable.toString());
        List<Object> arns = new ArrayList<>();
        for (Object part : parts) {
            if (part instanceof String literal) {
                Arrays.stream(literal.split(",")).filter(arn -> !arn.isEmpty()).forEach(arns::add);
            } else {
                arns.add(part);
            }
        }
        return arns;
    }

    @Test
    void timeoutsFitTheProviderDeadlineTheLeaseAndTheGateway() {
        Map<String, Map<String, Object>> functions = functions();
        int charge = (int) functions.get(DeploymentSettings.FUNCTION_CHARGE).get("Timeout");
        assertTrue(charge > DeploymentSettings.PROVIDER_CHARGE_DEADLINE_SECONDS
                + 2 * DeploymentSettings.DYNAMODB_CALL_TIMEOUT_SECONDS, "charge timeout " + charge);
        assertTrue(charge < DeploymentSettings.IDEMPOTENCY_LEASE_SECONDS, "charge timeout " + charge + " vs lease");
        int reconcile = (int) functions.get(DeploymentSettings.FUNCTION_RECONCILE).get("Timeout");
        assertTrue(reconcile > DeploymentSettings.RECONCILE_TIME_BUDGET_SECONDS
                + DeploymentSettings.PROVIDER_LOOKUP_DEADLINE_SECONDS + DeploymentSettings.PROVIDER_CHARGE_DEADLINE_SECONDS
                + 2 * DeploymentSettings.DYNAMODB_CALL_TIMEOUT_SECONDS, "the item in hand finishes: " + reconcile);
        // A run that outlasts the schedule delays the next event (reserved concurrency 1); it must not expire meanwhile.
        assertTrue((int) synth.only("AWS::Lambda::EventInvokeConfig").get("MaximumEventAgeInSeconds") > reconcile);

        // Each API integration waits longer than its function runs, within API Gateway's limit.
        Map<String, Integer> integrationTimeouts = new LinkedHashMap<>();
        String chargeId = synth.id(FUNCTION, "ChargeFunction");
        String webhookId = synth.id(FUNCTION, "WebhookFunction");
        for (Map<String, Object> integration : synth.properties("AWS::ApiGatewayV2::Integration")) {
            assertEquals("2.0", integration.get("PayloadFormatVersion"));
            Object target = integration.get("IntegrationUri");
            String name = target.equals(arnOf(chargeId)) ? DeploymentSettings.FUNCTION_CHARGE
                    : target.equals(arnOf(webhookId)) ? DeploymentSettings.FUNCTION_WEBHOOK : "?" + target;
            integrationTimeouts.put(name, (Integer) integration.get("TimeoutInMillis"));
        }
        assertEquals(Set.of(DeploymentSettings.FUNCTION_CHARGE, DeploymentSettings.FUNCTION_WEBHOOK),
                integrationTimeouts.keySet());
        integrationTimeouts.forEach((name, millis) -> {
            int function = (int) functions.get(name).get("Timeout");
            assertTrue(millis > function * 1000, name + ": integration " + millis + " ms vs function " + function + " s");
            assertTrue(millis <= DeploymentSettings.HTTP_API_MAX_INTEGRATION_TIMEOUT_SECONDS * 1000, name + ": " + millis);
        });
    }

    @Test
    void eachFunctionHasItsOwnReservedConcurrency() {
        Map<String, Map<String, Object>> functions = functions();
        assertEquals(50, functions.get(DeploymentSettings.FUNCTION_CHARGE).get("ReservedConcurrentExecutions"));
        assertEquals(20, functions.get(DeploymentSettings.FUNCTION_WEBHOOK).get("ReservedConcurrentExecutions"));
        assertEquals(1, functions.get(DeploymentSettings.FUNCTION_RECONCILE).get("ReservedConcurrentExecutions"));
    }

    /**
     * The bulkhead's cap is half of charge's 50 sandboxes, and reconcile, whose re-sends share the
     * count, gets the same cap; the webhook calls no provider.
     */
    @Test
    void chargeAndReconcileShareOneCapOnCallsInFlightPerProviderAccount() {
        Map<String, Map<String, Object>> functions = functions();
        for (String name : List.of(DeploymentSettings.FUNCTION_CHARGE, DeploymentSettings.FUNCTION_RECONCILE)) {
            assertEquals("40", at(functions.get(name), "Environment", "Variables", DeploymentSettings.ENV_CHARGE_MAX_IN_FLIGHT),
                    name);
        }
        Map<String, Object> webhook = at(functions.get(DeploymentSettings.FUNCTION_WEBHOOK), "Environment", "Variables");
        assertFalse(webhook.containsKey(DeploymentSettings.ENV_CHARGE_MAX_IN_FLIGHT));
    }

    @Test
    void eachFunctionLogsToItsOwnGroupWithRetention() {
        List<Map<String, Object>> groups = synth.properties("AWS::Logs::LogGroup");
        assertEquals(3, groups.size());
        groups.forEach(g -> assertEquals(30, g.get("RetentionInDays")));
        Set<Object> used = new HashSet<>();
        functions().values().forEach(f -> used.add(at(f, "LoggingConfig", "LogGroup")));
        assertEquals(3, used.size());
        synth.resources("AWS::Logs::LogGroup").keySet().forEach(id -> assertTrue(used.contains(ref(id)), id));
    }

    // --- Least privilege -------------------------------------------------------------------

    @Test
    void rolesMayOnlyUseThisTableItsIndexAndSecrets() {
        String table = synth.id("AWS::DynamoDB::Table", "Table");
        String queue = synth.id("AWS::SQS::Queue", "ReconcileDeadLetters");
        Map<String, Object> index = Map.of("Fn::Join", List.of("", List.of(arnOf(table), "/index/" + Table.SWEEP_INDEX)));

        Map<String, List<Map<String, Object>>> statementsByPolicy = new TreeMap<>();
        synth.resources("AWS::IAM::Policy").forEach((id, policy) ->
                statementsByPolicy.put(id, at(props(policy), "PolicyDocument", "Statement")));
        assertEquals(3, statementsByPolicy.size());
        for (Map.Entry<String, List<Map<String, Object>>> policy : statementsByPolicy.entrySet()) {
            boolean reconcile = policy.getKey().startsWith("ReconcileFunction");
            for (Map<String, Object> statement : policy.getValue()) {
                assertEquals("Allow", statement.get("Effect"));
                List<String> actions = actions(statement);
                Object resource = statement.get("Resource");
                if (actions.stream().anyMatch(a -> a.startsWith("dynamodb:Query"))) {
                    assertTrue(reconcile, "only reconcile queries: " + policy.getKey());
                    assertEquals(OncepayStack.INDEX_ACTIONS, actions);
                    assertEquals(index, resource);
                } else if (actions.stream().anyMatch(a -> a.startsWith("dynamodb:"))) {
                    assertEquals(OncepayStack.ITEM_ACTIONS, actions);
                    assertEquals(arnOf(table), resource);
                } else if (actions.stream().anyMatch(a -> a.startsWith("secretsmanager:"))) {
                    // Which secrets: theWebhookReadsOnlySigningSecretsAndChargeAndReconcileOnlyApiKeys.
                    assertEquals(List.of(OncepayStack.SECRET_ACTION), actions);
                } else {
                    // The on-failure destination: sending to the dead-letter queue, reconcile only.
                    assertTrue(reconcile, policy.getKey() + ": " + statement);
                    assertTrue(actions.stream().allMatch(a -> a.startsWith("sqs:")), statement.toString());
                    assertEquals(arnOf(queue), resource);
                }
            }
        }
        // Beyond that, each role has only the basic execution policy (its own logs).
        for (Map<String, Object> role : synth.properties("AWS::IAM::Role")) {
            List<Object> managed = at(role, "ManagedPolicyArns");
            assertEquals(1, managed.size());
            assertTrue(managed.get(0).toString().contains("service-role/AWSLambdaBasicExecutionRole"), managed.toString());
            assertFalse(role.containsKey("Policies"));
        }
    }

    // --- The HTTP API ------------------------------------------------------------------------

    @Test
    void paymentsNeedAJwtAndWebhooksTheirSignature() {
        String authorizer = synth.id("AWS::ApiGatewayV2::Authorizer", "ApiJwtAuthorizer");
        Map<String, Map<String, Object>> routes = new TreeMap<>();
        synth.properties("AWS::ApiGatewayV2::Route").forEach(r -> routes.put((String) r.get("RouteKey"), r));

        assertEquals(Set.of("POST /payments", "GET /payments/{id}", "POST /webhooks/{provider}"), routes.keySet());
        for (String payments : List.of("POST /payments", "GET /payments/{id}")) {
            assertEquals("JWT", routes.get(payments).get("AuthorizationType"), payments);
            assertEquals(ref(authorizer), routes.get(payments).get("AuthorizerId"), payments);
        }
        assertEquals("NONE", routes.get("POST /webhooks/{provider}").get("AuthorizationType"));
        assertFalse(routes.get("POST /webhooks/{provider}").containsKey("AuthorizerId"));
        assertNotEquals(routes.get("POST /payments").get("Target"), routes.get("POST /webhooks/{provider}").get("Target"));

        Map<String, Object> jwt = synth.only("AWS::ApiGatewayV2::Authorizer");
        assertEquals("JWT", jwt.get("AuthorizerType"));
        assertEquals(Map.of("Issuer", ref("JwtIssuer"), "Audience", ref("JwtAudience")), jwt.get("JwtConfiguration"));
        assertEquals(List.of("$request.header.Authorization"), jwt.get("IdentitySource"));
        Map<String, Object> parameters = at(synth.json, "Parameters");
        assertEquals("String", at(parameters, "JwtIssuer", "Type"));
        assertEquals("CommaDelimitedList", at(parameters, "JwtAudience", "Type"));
        assertEquals(DeploymentSettings.DEFAULT_TENANT_CLAIM, at(parameters, "TenantClaim", "Default"));
    }

    // --- Reconcile ---------------------------------------------------------------------------

    @Test
    void aScheduleRunsReconcileEveryMinute() {
        String reconcile = synth.id(FUNCTION, "ReconcileFunction");
        String queue = synth.id("AWS::SQS::Queue", "ReconcileDeadLetters");
        Map<String, Object> rule = synth.only("AWS::Events::Rule");

        assertEquals("rate(1 minute)", rule.get("ScheduleExpression"));
        assertEquals(arnOf(reconcile), at(rule, "Targets", 0, "Arn"));
        assertEquals(arnOf(queue), at(rule, "Targets", 0, "DeadLetterConfig", "Arn"));
        assertEquals(1, ((List<?>) rule.get("Targets")).size());
    }

    @Test
    void aFailedReconcileRunEndsInTheDeadLetterQueue() {
        Map<String, Object> config = synth.only("AWS::Lambda::EventInvokeConfig");
        assertEquals(ref(synth.id(FUNCTION, "ReconcileFunction")), config.get("FunctionName"));
        assertEquals(arnOf(synth.id("AWS::SQS::Queue", "ReconcileDeadLetters")),
                at(config, "DestinationConfig", "OnFailure", "Destination"));
        assertEquals(1, config.get("MaximumRetryAttempts"));
    }

    // --- Alarms ------------------------------------------------------------------------------

    @Test
    void alarmsWatchTheApplicationsMetricsAndTheApi() {
        String topic = synth.id("AWS::SNS::Topic", "Alarms");
        List<Map<String, Object>> alarms = synth.properties("AWS::CloudWatch::Alarm");
        alarms.forEach(a -> assertEquals(List.of(ref(topic)), a.get("AlarmActions"), a.get("AlarmDescription").toString()));

        Map<String, String> custom = new TreeMap<>();
        for (Map<String, Object> alarm : alarms) {
            if (Metrics.NAMESPACE.equals(alarm.get("Namespace"))) {
                custom.put((String) alarm.get("MetricName"), (String) alarm.get("Statistic"));
            }
        }
        assertEquals(Map.of(Metrics.UNKNOWN_BACKLOG, "Maximum", Metrics.UNKNOWN_OLDEST_AGE, "Maximum",
                Metrics.NEEDS_REVIEW, "Sum", Metrics.BREAKER_OPEN, "Sum", Metrics.BREAKER_STORE_FAILED, "Sum",
                Metrics.RETRY_BUDGET_SPENT, "Sum", Metrics.PROVIDER_AT_CAPACITY, "Sum"), custom);

        Map<String, Object> serverErrors = alarms.stream().filter(a -> a.containsKey("Metrics")).findFirst().orElseThrow();
        Set<String> apiMetrics = new TreeSet<>();
        List<Map<String, Object>> queries = at(serverErrors, "Metrics");
        for (Map<String, Object> query : queries) {
            if (query.containsKey("MetricStat")) {
                assertEquals("AWS/ApiGateway", at(query, "MetricStat", "Metric", "Namespace"));
                apiMetrics.add(at(query, "MetricStat", "Metric", "MetricName"));
            }
        }
        assertEquals(Set.of("5xx", "Count"), apiMetrics);
        assertEquals(1, ((Number) serverErrors.get("Threshold")).intValue());

        assertTrue(alarms.stream().anyMatch(a -> "ApproximateNumberOfMessagesVisible".equals(a.get("MetricName"))),
                "the dead-letter queue is watched");
    }

    /**
     * A breaker that cannot reach its item fails open: one occurrence alarms. Spent retry budget
     * and a full bulkhead alarm when they persist: in 2 of 3 minutes.
     */
    @Test
    void providerProtectionAlarmsWhenItFailsOpenOrKeepsRefusing() {
        record Rule(String id, int periodSeconds, int evaluationPeriods, int datapointsToAlarm) { }
        Map<String, Rule> expected = Map.of(
                Metrics.BREAKER_STORE_FAILED, new Rule("BreakerStoreFailedAlarm", 300, 1, 1),
                Metrics.RETRY_BUDGET_SPENT, new Rule("RetryBudgetSpentAlarm", 60, 3, 2),
                Metrics.PROVIDER_AT_CAPACITY, new Rule("ProviderAtCapacityAlarm", 60, 3, 2));
        String topic = synth.id("AWS::SNS::Topic", "Alarms");
        expected.forEach((metric, rule) -> {
            Map<String, Object> alarm = props(synth.resources("AWS::CloudWatch::Alarm").get(
                    synth.id("AWS::CloudWatch::Alarm", rule.id())));
            assertEquals(Metrics.NAMESPACE, alarm.get("Namespace"), metric);
            assertEquals(metric, alarm.get("MetricName"));
            assertFalse(alarm.containsKey("Dimensions"), metric + " is emitted without dimensions");
            assertEquals("Sum", alarm.get("Statistic"), metric);
            assertEquals(rule.periodSeconds(), alarm.get("Period"), metric);
            assertEquals(1, ((Number) alarm.get("Threshold")).intValue(), metric);
            assertEquals("GreaterThanOrEqualToThreshold", alarm.get("ComparisonOperator"), metric);
            assertEquals(rule.evaluationPeriods(), alarm.get("EvaluationPeriods"), metric);
            assertEquals(rule.datapointsToAlarm(), alarm.get("DatapointsToAlarm"), metric);
            assertEquals("notBreaching", alarm.get("TreatMissingData"), metric);
            assertEquals(List.of(ref(topic)), alarm.get("AlarmActions"), metric);
        });
    }

    private static Map<String, Map<String, Object>> functions() {
        Map<String, Map<String, Object>> byName = new TreeMap<>();
        for (Map<String, Object> f : synth.properties(FUNCTION)) {
            byName.put(at(f, "Environment", "Variables", DeploymentSettings.ENV_FUNQY_EXPORT), f);
        }
        return byName;
    }

    @SuppressWarnings("unchecked")
    static List<String> actions(Map<String, Object> statement) {
        Object action = statement.get("Action");
        return action instanceof List<?> list ? (List<String>) list : List.of((String) action);
    }
}
