package dev.oncepay.infra;

import static dev.oncepay.infra.Synth.arnOf;
import static dev.oncepay.infra.Synth.at;
import static dev.oncepay.infra.Synth.props;
import static dev.oncepay.infra.Synth.ref;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.oncepay.contract.DeploymentSettings;
import dev.oncepay.contract.Metrics;
import dev.oncepay.contract.SamTemplate;
import dev.oncepay.contract.Table;
import dev.oncepay.contract.TableSchema;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
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

    private static final Set<String> RESERVED = Set.of("AWS_REGION", "AWS_DEFAULT_REGION", "AWS_EXECUTION_ENV",
            "AWS_ACCESS_KEY", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "TZ");

    @TempDir
    static Path dir;
    static Synth synth;

    @BeforeAll
    static void synthesize() throws Exception {
        synth = new Synth(Map.of("oncepay:functionZip", Synth.zip(dir, true).toString(),
                "oncepay:openApiDocument", Synth.openApiDocument(dir).toString()));
    }

    // --- The table: the application's schema, one source of truth -------------------------

    @Test
    void theTableUsesTheApplicationsSchemaConstants() {
        Map<String, Object> table = synth.only("AWS::DynamoDB::Table");

        assertEquals(List.of(Map.of("AttributeName", Table.PK, "KeyType", "HASH")), table.get("KeySchema"));
        assertEquals(Set.of(Map.of("AttributeName", Table.PK, "AttributeType", "S"),
                Map.of("AttributeName", Table.SWEEP_SHARD, "AttributeType", "S"),
                Map.of("AttributeName", Table.NEXT_CHECK_AT, "AttributeType", "N"),
                Map.of("AttributeName", Table.ATTENTION_KEY, "AttributeType", "S"),
                Map.of("AttributeName", Table.CREATED_AT_MS, "AttributeType", "N"),
                Map.of("AttributeName", Table.WALLET, "AttributeType", "S"),
                Map.of("AttributeName", Table.WALLET_SEQ, "AttributeType", "N"),
                Map.of("AttributeName", Table.OUTBOX_SHARD, "AttributeType", "S"),
                Map.of("AttributeName", Table.OUTBOX_AT, "AttributeType", "N"),
                Map.of("AttributeName", Table.DELIVERY_ENDPOINT, "AttributeType", "S"),
                Map.of("AttributeName", Table.EVENT_AT_MS, "AttributeType", "N")),
                new HashSet<>(at(table, "AttributeDefinitions")));
        assertEquals(Map.of("AttributeName", Table.EXPIRES_AT, "Enabled", true), table.get("TimeToLiveSpecification"));
        assertEquals(List.of(Map.of(
                "IndexName", Table.SWEEP_INDEX,
                "KeySchema", List.of(Map.of("AttributeName", Table.SWEEP_SHARD, "KeyType", "HASH"),
                        Map.of("AttributeName", Table.NEXT_CHECK_AT, "KeyType", "RANGE")),
                "Projection", Map.of("ProjectionType", "KEYS_ONLY")),
                Map.of(
                "IndexName", Table.ATTENTION_INDEX,
                "KeySchema", List.of(Map.of("AttributeName", Table.ATTENTION_KEY, "KeyType", "HASH"),
                        Map.of("AttributeName", Table.CREATED_AT_MS, "KeyType", "RANGE")),
                // What a listing shows; the history stays on the item.
                "Projection", Map.of("ProjectionType", "INCLUDE", "NonKeyAttributes", Table.ATTENTION_PROJECTION)),
                Map.of(
                "IndexName", Table.WALLET_INDEX,
                "KeySchema", List.of(Map.of("AttributeName", Table.WALLET, "KeyType", "HASH"),
                        Map.of("AttributeName", Table.WALLET_SEQ, "KeyType", "RANGE")),
                // A page of entries shows whole entries: small items, all projected.
                "Projection", Map.of("ProjectionType", "ALL")),
                Map.of(
                "IndexName", Table.OUTBOX_INDEX,
                "KeySchema", List.of(Map.of("AttributeName", Table.OUTBOX_SHARD, "KeyType", "HASH"),
                        Map.of("AttributeName", Table.OUTBOX_AT, "KeyType", "RANGE")),
                // The relay re-reads the item consistently.
                "Projection", Map.of("ProjectionType", "KEYS_ONLY")),
                Map.of(
                "IndexName", Table.DELIVERY_INDEX,
                "KeySchema", List.of(Map.of("AttributeName", Table.DELIVERY_ENDPOINT, "KeyType", "HASH"),
                        Map.of("AttributeName", Table.EVENT_AT_MS, "KeyType", "RANGE")),
                // A listing shows whole delivery records.
                "Projection", Map.of("ProjectionType", "ALL"))),
                table.get("GlobalSecondaryIndexes"));
        assertFalse(Table.ATTENTION_PROJECTION.contains(Table.HISTORY));
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
            Map<String, Object> projection = new TreeMap<>(Map.of("ProjectionType", index.projection().projectionTypeAsString()));
            if (index.projection().hasNonKeyAttributes()) {
                projection.put("NonKeyAttributes", index.projection().nonKeyAttributes());
            }
            indexes.add(Map.of("IndexName", index.indexName(),
                    "KeySchema", index.keySchema().stream()
                            .map(k -> Map.of("AttributeName", k.attributeName(), "KeyType", k.keyTypeAsString())).toList(),
                    "Projection", projection));
        }
        assertEquals(5, indexes.size(), "the sweep, attention, wallet entries, outbox and deliveries indexes");
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
    void everyFunctionRunsOneZipWithItsExport() {
        Map<String, Map<String, Object>> functions = functions();
        assertEquals(new TreeSet<>(DeploymentSettings.FUNCTIONS), new TreeSet<>(functions.keySet()));
        Set<Object> code = new HashSet<>();
        for (Map.Entry<String, Map<String, Object>> f : functions.entrySet()) {
            assertEquals(f.getKey(), at(f.getValue(), "Environment", "Variables", DeploymentSettings.ENV_FUNQY_EXPORT));
            assertEquals("provided.al2023", f.getValue().get("Runtime"));
            assertEquals(DeploymentSettings.NATIVE_HANDLER, f.getValue().get("Handler"));
            assertEquals(List.of("x86_64"), f.getValue().get("Architectures"));
            assertEquals(256, f.getValue().get("MemorySize"));
            assertFalse(f.getValue().containsKey("SnapStart"), "Lambda has no SnapStart for provided.al2023");
            assertEquals("true", at(f.getValue(), "Environment", "Variables", DeploymentSettings.ENV_DISABLE_SIGNAL_HANDLERS));
            code.add(f.getValue().get("Code"));
        }
        assertEquals(1, code.size(), "one function.zip for all: " + code);
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
            // Event-delivery reads only the merchant endpoints' secrets, and this stack has no endpoint.
            if (named.getKey().equals(DeploymentSettings.FUNCTION_EVENT_DELIVERY)) {
                assertFalse(env.containsKey(DeploymentSettings.ENV_SECRET_ARNS));
            } else {
                assertEquals(List.of(ref(secretOf(named.getKey()))), arns(env.get(DeploymentSettings.ENV_SECRET_ARNS)));
            }
            assertFalse(env.containsKey(DeploymentSettings.ENV_EVENT_ENDPOINTS), "no endpoint configured");
            // Without accounts or tenants there is no routing beyond the default account.
            assertFalse(env.containsKey(DeploymentSettings.ENV_PROVIDER_ROUTING));
            assertEquals(ref("ProviderUrl"), env.get(DeploymentSettings.ENV_PROVIDER_URL));
            assertEquals(ref("ProviderId"), env.get(DeploymentSettings.ENV_PROVIDER_ID));
            // The queue-fed functions take no HTTP request, so no token's claim.
            boolean queueFed = named.getKey().equals(DeploymentSettings.FUNCTION_CHARGE_WORKER)
                    || named.getKey().equals(DeploymentSettings.FUNCTION_EVENT_DELIVERY);
            assertEquals(queueFed ? null : ref("TenantClaim"), env.get(DeploymentSettings.ENV_TENANT_CLAIM), named.getKey());
            assertEquals(DeploymentSettings.AWS_RETRY_MODE, env.get(DeploymentSettings.ENV_AWS_RETRY_MODE));
            assertEquals(Integer.toString(DeploymentSettings.AWS_MAX_ATTEMPTS), env.get(DeploymentSettings.ENV_AWS_MAX_ATTEMPTS));
            // Every literal value is one of these fixed settings; nothing else could hide a secret.
            Map<String, Object> literals = new TreeMap<>(env);
            literals.values().removeIf(v -> v instanceof Map);
            Set<String> fixed = new TreeSet<>(Set.of(DeploymentSettings.ENV_FUNQY_EXPORT, DeploymentSettings.ENV_AWS_RETRY_MODE,
                    DeploymentSettings.ENV_AWS_MAX_ATTEMPTS, DeploymentSettings.ENV_DISABLE_SIGNAL_HANDLERS));
            if (OncepaySettings.callsProviders(named.getKey())) {
                fixed.add(DeploymentSettings.ENV_CHARGE_MAX_IN_FLIGHT);
            }
            assertEquals(fixed, literals.keySet(), named.getKey());
        }
        // Secret values are put by an operator, never written into the template; secrets outlive the stack.
        // Until then each holds a generated placeholder in the JSON shape the functions read, so their
        // init (run by SnapStart when a version is published) passes on the first deploy.
        assertEquals(2, synth.resources("AWS::SecretsManager::Secret").size());
        synth.resources("AWS::SecretsManager::Secret").forEach((id, secret) -> {
            assertFalse(props(secret).containsKey("SecretString"), id);
            assertEquals("Retain", secret.get("DeletionPolicy"), id);
            Map<String, Object> generated = at(secret, "Properties", "GenerateSecretString");
            assertEquals("{}", generated.get("SecretStringTemplate"), id);
            assertTrue(generated.containsKey("GenerateStringKey"), id);
        });
        Map<String, Object> apiKeyPlaceholder = at(synth.resources("AWS::SecretsManager::Secret")
                .get(synth.id("AWS::SecretsManager::Secret", API_KEY_SECRET)), "Properties", "GenerateSecretString");
        assertEquals(DeploymentSettings.PROVIDER_API_KEY_PROPERTY, apiKeyPlaceholder.get("GenerateStringKey"));
    }

    /**
     * The internet-facing webhook function can read the signing secrets and nothing else;
     * charge, the charge worker and reconcile, which move money, the API keys and no signing secret;
     * event-delivery, without merchant endpoints, none.
     */
    @Test
    void theWebhookReadsOnlySigningSecretsAndTheOthersOnlyApiKeys() {
        String apiKeys = synth.id("AWS::SecretsManager::Secret", API_KEY_SECRET);
        String signing = synth.id("AWS::SecretsManager::Secret", SIGNING_SECRET);
        Map<String, List<Object>> readable = secretsReadableBy(synth);

        assertEquals(Map.of(DeploymentSettings.FUNCTION_CHARGE, List.of(ref(apiKeys)),
                DeploymentSettings.FUNCTION_RECONCILE, List.of(ref(apiKeys)),
                DeploymentSettings.FUNCTION_CHARGE_WORKER, List.of(ref(apiKeys)),
                DeploymentSettings.FUNCTION_WEBHOOK, List.of(ref(signing))), readable);
        assertTrue(at(synth.resources("AWS::SecretsManager::Secret").get(apiKeys), "Properties", "Description").toString()
                .contains(DeploymentSettings.PROVIDER_API_KEY_PROPERTY));
    }

    /** For each function (by its export), the resources its role may call GetSecretValue on. */
    static Map<String, List<Object>> secretsReadableBy(Synth synth) {
        Map<String, String> functionByRole = functionByRole(synth);
        Map<String, List<Object>> readable = new TreeMap<>();
        for (Map<String, Object> policy : synth.properties("AWS::IAM::Policy")) {
            List<Map<String, Object>> roles = at(policy, "Roles");
            assertEquals(1, roles.size());
            String function = functionByRole.getOrDefault(roles.get(0).get("Ref").toString(), "operator");
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

    /**
     * The routing variable as the function reads it: a JSON object, written by the stack with each
     * reference to a resource (a queue's URL, known at deploy) in place; here each such reference
     * reads {@code ref:<logical id>}.
     */
    static Map<String, String> routing(Object variable) {
        StringBuilder json = new StringBuilder();
        List<Object> parts = variable instanceof String text ? List.of(text) : at(variable, "Fn::Join", 1);
        assertTrue(variable instanceof String || "".equals(at(variable, "Fn::Join", 0)), variable.toString());
        for (Object part : parts) {
            json.append(part instanceof String text ? text : "ref:" + at(part, "Ref"));
        }
        try {
            return new ObjectMapper().readValue(json.toString(), new TypeReference<Map<String, String>>() { });
        } catch (JsonProcessingException e) {
            throw new AssertionError("not a JSON object of strings: " + json, e);
        }
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
        Object chargeAlias = ref(aliasId(synth, "Charge"));
        Object webhookAlias = ref(aliasId(synth, "Webhook"));
        for (Map<String, Object> integration : synth.properties("AWS::ApiGatewayV2::Integration")) {
            assertEquals("2.0", integration.get("PayloadFormatVersion"));
            Object target = integration.get("IntegrationUri");
            String name = target.equals(chargeAlias) ? DeploymentSettings.FUNCTION_CHARGE
                    : target.equals(webhookAlias) ? DeploymentSettings.FUNCTION_WEBHOOK : "?" + target;
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
        // The default account's queue concurrency: one queue, so its event-source mapping's maximum.
        assertEquals(5, functions.get(DeploymentSettings.FUNCTION_CHARGE_WORKER).get("ReservedConcurrentExecutions"));
        // The event queue's mapping reaches its maximum concurrency unthrottled.
        assertEquals(DeploymentSettings.EVENT_QUEUE_MAX_CONCURRENCY,
                functions.get(DeploymentSettings.FUNCTION_EVENT_DELIVERY).get("ReservedConcurrentExecutions"));
    }

    /**
     * The bulkhead's cap is four fifths of charge's 50 sandboxes (one provider account), and the
     * worker and reconcile, whose charges and re-sends share the count, get the same cap; the
     * webhook calls no provider.
     */
    @Test
    void chargeTheWorkerAndReconcileShareOneCapOnCallsInFlightPerProviderAccount() {
        Map<String, Map<String, Object>> functions = functions();
        for (String name : List.of(DeploymentSettings.FUNCTION_CHARGE, DeploymentSettings.FUNCTION_CHARGE_WORKER,
                DeploymentSettings.FUNCTION_RECONCILE)) {
            assertEquals("40", at(functions.get(name), "Environment", "Variables", DeploymentSettings.ENV_CHARGE_MAX_IN_FLIGHT),
                    name);
        }
        for (String name : List.of(DeploymentSettings.FUNCTION_WEBHOOK, DeploymentSettings.FUNCTION_EVENT_DELIVERY)) {
            Map<String, Object> env = at(functions.get(name), "Environment", "Variables");
            assertFalse(env.containsKey(DeploymentSettings.ENV_CHARGE_MAX_IN_FLIGHT), name);
        }
    }

    @Test
    void eachFunctionLogsToItsOwnGroupWithRetention() {
        List<Map<String, Object>> groups = synth.properties("AWS::Logs::LogGroup");
        assertEquals(DeploymentSettings.FUNCTIONS.size(), groups.size());
        groups.forEach(g -> assertEquals(30, g.get("RetentionInDays")));
        Set<Object> used = new HashSet<>();
        functions().values().forEach(f -> used.add(at(f, "LoggingConfig", "LogGroup")));
        assertEquals(DeploymentSettings.FUNCTIONS.size(), used.size());
        synth.resources("AWS::Logs::LogGroup").keySet().forEach(id -> assertTrue(used.contains(ref(id)), id));
    }

    // --- Least privilege -------------------------------------------------------------------

    /**
     * Items by key, indexes only by Query (no Scan anywhere): reconcile the sweep, attention and
     * outbox indexes (due payments, backlog gauges, events left unrelayed), charge the attention
     * index (the operator's listing), wallet entries and deliveries (an endpoint's deliveries), the
     * webhook, the worker and event-delivery no index.
     */
    @Test
    void rolesMayOnlyUseThisTableItsIndexesAndSecrets() {
        String table = synth.id("AWS::DynamoDB::Table", "Table");
        Set<Object> reconcileQueues = Set.of(arnOf(synth.id("AWS::SQS::Queue", "ReconcileDeadLetters")),
                arnOf(synth.id("AWS::SQS::Queue", EventQueue.QUEUE_ID)));
        Map<String, Object> sweep = indexArn(table, Table.SWEEP_INDEX);
        Map<String, Object> attention = indexArn(table, Table.ATTENTION_INDEX);
        Map<String, Object> walletEntries = indexArn(table, Table.WALLET_INDEX);
        Map<String, Object> expectedIndexes = Map.of(
                DeploymentSettings.FUNCTION_RECONCILE, List.of(sweep, attention, indexArn(table, Table.OUTBOX_INDEX)),
                DeploymentSettings.FUNCTION_CHARGE, List.of(attention, walletEntries, indexArn(table, Table.DELIVERY_INDEX)));

        Map<String, String> functionByRole = functionByRole(synth);
        Map<String, Object> queried = new TreeMap<>();
        Set<String> policies = new TreeSet<>();
        synth.resources("AWS::IAM::Policy").forEach((id, policy) -> {
            String role = at(props(policy), "Roles", 0, "Ref");
            String function = functionByRole.get(role);
            if (function == null) {
                return; // the operator role: operatorRoleMayInvokeExactlyTheAdminRoutes
            }
            policies.add(function);
            boolean reconcile = function.equals(DeploymentSettings.FUNCTION_RECONCILE);
            List<Map<String, Object>> statements = at(props(policy), "PolicyDocument", "Statement");
            for (Map<String, Object> statement : statements) {
                assertEquals("Allow", statement.get("Effect"));
                List<String> actions = actions(statement);
                Object resource = statement.get("Resource");
                assertFalse(actions.stream().anyMatch(a -> a.equals("dynamodb:Scan") || a.equals("dynamodb:*")), id);
                if (actions.stream().anyMatch(a -> a.startsWith("dynamodb:Query"))) {
                    assertEquals(OncepayStack.INDEX_ACTIONS, actions);
                    assertEquals(null, queried.put(function, resource), function + " has one Query statement");
                } else if (actions.stream().anyMatch(a -> a.startsWith("dynamodb:"))) {
                    // Batch reads for charge alone (a wallet's prune checks its operations' items at once).
                    List<String> expected = new ArrayList<>(OncepayStack.ITEM_ACTIONS);
                    if (function.equals(DeploymentSettings.FUNCTION_CHARGE)) {
                        expected.add(OncepayStack.BATCH_READ_ACTION);
                    }
                    assertEquals(expected, actions, function);
                    assertEquals(arnOf(table), resource);
                } else if (actions.stream().anyMatch(a -> a.startsWith("secretsmanager:"))) {
                    // Which secrets: theWebhookReadsOnlySigningSecretsAndChargeAndReconcileOnlyApiKeys.
                    assertEquals(List.of(OncepayStack.SECRET_ACTION), actions);
                } else {
                    // The queues: which function may do what on which, queueRightsAreLeastPrivilege.
                    assertTrue(actions.stream().allMatch(a -> a.startsWith("sqs:")), statement.toString());
                    assertTrue(!reconcile || reconcileQueues.contains(resource), id + ": " + statement);
                }
            }
        });
        assertEquals(new TreeSet<>(DeploymentSettings.FUNCTIONS), policies);
        assertEquals(expectedIndexes, queried);
        // Beyond that, each function's role has only the basic execution policy (its own logs).
        synth.resources("AWS::IAM::Role").forEach((id, role) -> {
            if (functionByRole.containsKey(id)) {
                List<Object> managed = at(props(role), "ManagedPolicyArns");
                assertEquals(1, managed.size());
                assertTrue(managed.get(0).toString().contains("service-role/AWSLambdaBasicExecutionRole"), managed.toString());
                assertFalse(props(role).containsKey("Policies"));
            }
        });
    }

    private static Map<String, Object> indexArn(String table, String index) {
        return Map.of("Fn::Join", List.of("", List.of(arnOf(table), "/index/" + index)));
    }

    /** Each function's role (logical id) and the function's name. */
    static Map<String, String> functionByRole(Synth synth) {
        Map<String, String> functionByRole = new TreeMap<>();
        synth.resources(FUNCTION).forEach((id, f) -> functionByRole.put(
                at(props(f), "Role", "Fn::GetAtt", 0), at(props(f), "Environment", "Variables", DeploymentSettings.ENV_FUNQY_EXPORT)));
        return functionByRole;
    }

    // --- The HTTP API ------------------------------------------------------------------------

    /**
     * Merchants' routes (payments and wallets) take a JWT, webhooks their signature, and the operator's routes IAM (SigV4)
     * only: a merchant's token is no credential there, so it never reaches the function.
     */
    @Test
    void merchantRoutesNeedAJwtWebhooksTheirSignatureAndAdminRoutesIam() {
        String authorizer = synth.id("AWS::ApiGatewayV2::Authorizer", "ApiJwtAuthorizer");
        Map<String, Map<String, Object>> routes = routes(synth);

        Set<String> expected = new TreeSet<>(Set.of("POST /webhooks/{provider}"));
        expected.addAll(DeploymentSettings.MERCHANT_ROUTES);
        expected.addAll(DeploymentSettings.ADMIN_ROUTES);
        assertEquals(expected, routes.keySet());
        assertEquals(Set.of("POST /payments", "GET /payments/{id}", "POST /payments/{id}/refunds",
                "GET /payments/{id}/refunds/{refundId}", "POST /wallets/{walletId}/credits",
                "POST /wallets/{walletId}/debits", "GET /wallets/{walletId}"), Set.copyOf(DeploymentSettings.MERCHANT_ROUTES));
        assertEquals(Set.of("GET /admin/payments", "GET /admin/payments/{id}", "POST /admin/payments/{id}/resolve",
                "GET /admin/orders", "GET /admin/payments/{id}/deliveries", "GET /admin/endpoints/{tenant}/{endpoint}/deliveries",
                "POST /admin/events/{eventId}/redeliver", "POST /admin/endpoints/{tenant}/{endpoint}/redeliver"),
                Set.copyOf(DeploymentSettings.ADMIN_ROUTES));
        for (String merchant : DeploymentSettings.MERCHANT_ROUTES) {
            // Payments and wallets alike: the tenant is the token's claim, and the charge function serves them.
            assertEquals("JWT", routes.get(merchant).get("AuthorizationType"), merchant);
            assertEquals(ref(authorizer), routes.get(merchant).get("AuthorizerId"), merchant);
            assertEquals(routes.get("POST /payments").get("Target"), routes.get(merchant).get("Target"), merchant);
        }
        assertEquals("NONE", routes.get("POST /webhooks/{provider}").get("AuthorizationType"));
        assertFalse(routes.get("POST /webhooks/{provider}").containsKey("AuthorizerId"));
        assertNotEquals(routes.get("POST /payments").get("Target"), routes.get("POST /webhooks/{provider}").get("Target"));
        for (String admin : DeploymentSettings.ADMIN_ROUTES) {
            assertEquals("AWS_IAM", routes.get(admin).get("AuthorizationType"), admin);
            assertFalse(routes.get(admin).containsKey("AuthorizerId"), admin);
            // The charge function serves them: it holds what resolving needs (table, provider API keys).
            assertEquals(routes.get("POST /payments").get("Target"), routes.get(admin).get("Target"), admin);
        }

        Map<String, Object> jwt = synth.only("AWS::ApiGatewayV2::Authorizer");
        assertEquals("JWT", jwt.get("AuthorizerType"));
        assertEquals(Map.of("Issuer", ref("JwtIssuer"), "Audience", ref("JwtAudience")), jwt.get("JwtConfiguration"));
        assertEquals(List.of("$request.header.Authorization"), jwt.get("IdentitySource"));
        Map<String, Object> parameters = at(synth.json, "Parameters");
        assertEquals("String", at(parameters, "JwtIssuer", "Type"));
        assertEquals("CommaDelimitedList", at(parameters, "JwtAudience", "Type"));
        assertEquals(DeploymentSettings.DEFAULT_TENANT_CLAIM, at(parameters, "TenantClaim", "Default"));
    }

    static Map<String, Map<String, Object>> routes(Synth synth) {
        Map<String, Map<String, Object>> routes = new TreeMap<>();
        synth.properties("AWS::ApiGatewayV2::Route").forEach(r -> routes.put((String) r.get("RouteKey"), r));
        return routes;
    }

    /**
     * The operator role may invoke the admin routes (any stage, any payment id) and nothing
     * else; by default whoever the account's IAM administrators allow may assume it.
     */
    @Test
    void operatorRoleMayInvokeExactlyTheAdminRoutes() {
        String role = synth.id("AWS::IAM::Role", "OperatorRole");
        assertEquals(List.of(Map.of("Action", "sts:AssumeRole", "Effect", "Allow", "Principal", Map.of("AWS",
                        Map.of("Fn::Join", List.of("", List.of("arn:", ref("AWS::Partition"), ":iam::", ref("AWS::AccountId"), ":root")))))),
                at(props(synth.resources("AWS::IAM::Role").get(role)), "AssumeRolePolicyDocument", "Statement"));
        assertEquals(List.of(Map.of("Action", "execute-api:Invoke", "Effect", "Allow", "Resource", List.of(
                        routeArn("GET/admin/payments"), routeArn("GET/admin/payments/*"), routeArn("POST/admin/payments/*/resolve"),
                        routeArn("GET/admin/orders"), routeArn("GET/admin/payments/*/deliveries"),
                        routeArn("GET/admin/endpoints/*/*/deliveries"), routeArn("POST/admin/events/*/redeliver"),
                        routeArn("POST/admin/endpoints/*/*/redeliver")))),
                operatorStatements(synth));
        assertFalse(props(synth.resources("AWS::IAM::Role").get(role)).containsKey("ManagedPolicyArns"));
        assertEquals(arnOf(role), at(synth.json, "Outputs", "OperatorRoleArn", "Value"));
    }

    private static Map<String, Object> routeArn(String methodAndPath) {
        return Map.of("Fn::Join", List.of("", List.of("arn:", ref("AWS::Partition"), ":execute-api:", ref("AWS::Region"), ":",
                ref("AWS::AccountId"), ":", ref(synth.id("AWS::ApiGatewayV2::Api", "Api")), "/*/" + methodAndPath)));
    }

    /** The statements of the operator role's only policy. */
    static List<Map<String, Object>> operatorStatements(Synth synth) {
        String role = synth.id("AWS::IAM::Role", "OperatorRole");
        List<Map<String, Object>> policies = synth.properties("AWS::IAM::Policy").stream()
                .filter(p -> ref(role).equals(at(p, "Roles", 0))).toList();
        assertEquals(1, policies.size());
        assertEquals(1, ((List<?>) at(policies.get(0), "Roles")).size());
        return at(policies.get(0), "PolicyDocument", "Statement");
    }

    /**
     * Locally a header may stand in for the authorizers (tenant, operator); in AWS no function may
     * be told to trust one, or any caller could name the tenant or operator it claims to be.
     */

    /** IAM lets through anyone allowed execute-api:Invoke; charge accepts only the operator role's sessions. */
    @Test
    void onlyTheOperatorRolesSessionsAreOperators() {
        Map<String, Map<String, Object>> functions = functions();
        String role = synth.id("AWS::IAM::Role", "OperatorRole");
        assertEquals(ref(role), at(functions.get(DeploymentSettings.FUNCTION_CHARGE), "Environment", "Variables",
                DeploymentSettings.ENV_OPERATOR_ROLE_NAME));
        for (String other : List.of(DeploymentSettings.FUNCTION_WEBHOOK, DeploymentSettings.FUNCTION_RECONCILE,
                DeploymentSettings.FUNCTION_CHARGE_WORKER, DeploymentSettings.FUNCTION_EVENT_DELIVERY)) {
            Map<String, Object> env = at(functions.get(other), "Environment", "Variables");
            assertFalse(env.containsKey(DeploymentSettings.ENV_OPERATOR_ROLE_NAME), other);
        }
    }
    @Test
    void noFunctionTrustsAHeaderForTenantOrOperator() {
        assertNoTrustedHeader(synth);
    }

    static void assertNoTrustedHeader(Synth synth) {
        for (Map<String, Object> function : synth.properties(FUNCTION)) {
            Map<String, Object> env = at(function, "Environment", "Variables");
            assertFalse(env.containsKey("ONCEPAY_OPERATOR_TRUSTED_HEADER"), env.keySet().toString());
            assertFalse(env.containsKey("ONCEPAY_TENANT_TRUSTED_HEADER"), env.keySet().toString());
            env.keySet().forEach(name -> assertFalse(name.contains("TRUSTED") || name.equals("QUARKUS_PROFILE"), name));
            // Endpoints are https in production: the stack never lets plain http through.
            env.keySet().forEach(name -> assertFalse(name.contains("ALLOW_HTTP"), name));
        }
    }

    // --- Reconcile ---------------------------------------------------------------------------

    @Test
    void aScheduleRunsReconcileEveryMinute() {
        String queue = synth.id("AWS::SQS::Queue", "ReconcileDeadLetters");
        Map<String, Object> rule = synth.only("AWS::Events::Rule");

        assertEquals("rate(1 minute)", rule.get("ScheduleExpression"));
        assertEquals(ref(aliasId(synth, "Reconcile")), at(rule, "Targets", 0, "Arn"), "the live alias, not the function");
        assertEquals(arnOf(queue), at(rule, "Targets", 0, "DeadLetterConfig", "Arn"));
        assertEquals(1, ((List<?>) rule.get("Targets")).size());
    }

    /** The schedule invokes the alias, so the retry and the dead-letter queue are configured on the alias ($LATEST has none). */
    @Test
    void aFailedReconcileRunEndsInTheDeadLetterQueue() {
        Map<String, Object> config = synth.only("AWS::Lambda::EventInvokeConfig");
        assertEquals(ref(synth.id(FUNCTION, "ReconcileFunction")), config.get("FunctionName"));
        // The alias ARN's last part: its name.
        assertEquals(Map.of("Fn::Select", List.of(7, Map.of("Fn::Split", List.of(":", ref(aliasId(synth, "Reconcile")))))),
                config.get("Qualifier"));
        assertEquals(arnOf(synth.id("AWS::SQS::Queue", "ReconcileDeadLetters")),
                at(config, "DestinationConfig", "OnFailure", "Destination"));
        assertEquals(1, config.get("MaximumRetryAttempts"));
    }

    // --- The charge queues ---------------------------------------------------------------------

    /**
     * The default account's charge queue and its dead-letter queue, the worker's mapping on it with
     * the default concurrency, their alarms at the default age, and the queue rights.
     */
    @Test
    void theDefaultAccountsChargeQueueFeedsTheWorker() {
        assertChargeQueues(synth, Map.of(DeploymentSettings.DEFAULT_ACCOUNT, DeploymentSettings.CHARGE_QUEUE_MAX_CONCURRENCY),
                5 * 60);
    }

    /** Charge and the worker find the default account's queue by its variable; the others need none. */
    @Test
    void chargeAndTheWorkerGetTheDefaultAccountsQueueUrl() {
        String queue = synth.id("AWS::SQS::Queue", "AccountdefaultChargeQueue");
        functions().forEach((name, function) -> assertEquals(ChargeQueue.SENDERS.contains(name) ? ref(queue) : null,
                at(function, "Environment", "Variables", DeploymentSettings.ENV_PROVIDER_QUEUE_URL), name));
        assertEquals(Set.of(DeploymentSettings.FUNCTION_CHARGE, DeploymentSettings.FUNCTION_CHARGE_WORKER), ChargeQueue.SENDERS);
    }

    /**
     * Each account's queue and dead-letter queue ({@code concurrency}: account name to its queue
     * concurrency) with their attributes and TLS-only policies, the worker's mapping on each, the
     * worker's timeout and reserved concurrency, the queues' alarms, and who may do what on them:
     * charge send, the worker consume and send, reconcile only its own dead-letter queue, the webhook nothing.
     */
    static void assertChargeQueues(Synth synth, Map<String, Integer> concurrency, int ageThresholdSeconds) {
        Map<String, Map<String, Object>> queues = synth.resources("AWS::SQS::Queue");
        assertEquals(3 + 2 * concurrency.size(), queues.size(),
                "reconcile's dead-letter queue, the event queue and its dead-letter queue, and two per account");
        Map<String, Object> worker = props(synth.resources(FUNCTION).get(synth.id(FUNCTION, "ChargeWorkerFunction")));
        int workerTimeout = (int) worker.get("Timeout");
        assertEquals(DeploymentSettings.CHARGE_WORKER_TIMEOUT_SECONDS, workerTimeout);
        assertEquals(concurrency.values().stream().mapToInt(Integer::intValue).sum(), worker.get("ReservedConcurrentExecutions"),
                "every mapping can reach its maximum unthrottled");
        Map<Object, Map<String, Object>> mappings = new HashMap<>();
        synth.properties("AWS::Lambda::EventSourceMapping").forEach(mapping -> mappings.put(mapping.get("EventSourceArn"),
                new TreeMap<>(mapping)));
        assertEquals(concurrency.size() + 1, mappings.size(), "one per account, and the event queue's");

        Set<String> send = Set.of("sqs:SendMessage", "sqs:GetQueueAttributes", "sqs:GetQueueUrl");
        Set<String> consumeAndSend = new TreeSet<>(send);
        consumeAndSend.addAll(Set.of("sqs:ReceiveMessage", "sqs:ChangeMessageVisibility", "sqs:DeleteMessage"));
        Map<String, Map<Object, Set<String>>> rights = new TreeMap<>();
        rights.put(DeploymentSettings.FUNCTION_RECONCILE, Map.of(arnOf(synth.id("AWS::SQS::Queue", "ReconcileDeadLetters")), send));
        concurrency.forEach((account, maxConcurrency) -> {
            String scope = "Account" + account.replaceAll("[^A-Za-z0-9]", "");
            String queue = synth.id("AWS::SQS::Queue", scope + "ChargeQueue");
            String deadLetters = synth.id("AWS::SQS::Queue", scope + "ChargeDeadLetters");
            Map<String, Object> queueProperties = props(queues.get(queue));
            assertEquals(Map.of("QueueName", DeploymentSettings.chargeQueueName(account),
                    "VisibilityTimeout", DeploymentSettings.CHARGE_QUEUE_VISIBILITY_TIMEOUT_SECONDS,
                    "MessageRetentionPeriod", DeploymentSettings.CHARGE_QUEUE_HORIZON_SECONDS,
                    "SqsManagedSseEnabled", true,
                    "RedrivePolicy", Map.of("deadLetterTargetArn", arnOf(deadLetters),
                            "maxReceiveCount", DeploymentSettings.CHARGE_QUEUE_MAX_RECEIVES)), queueProperties, account);
            // As AWS asks of a queue that triggers Lambda: a message is never visible again while a worker runs on it.
            assertTrue((int) queueProperties.get("VisibilityTimeout") >= 6 * workerTimeout, account);
            assertEquals(Map.of("QueueName", DeploymentSettings.chargeDeadLetterQueueName(account),
                    "MessageRetentionPeriod", 14 * 24 * 3600, "SqsManagedSseEnabled", true), props(queues.get(deadLetters)), account);
            assertTlsOnly(synth, queue);
            assertTlsOnly(synth, deadLetters);

            Map<String, Object> mapping = mappings.get(arnOf(queue));
            mapping.remove("FunctionName"); // the worker's live alias: assertInvokedThroughLiveAliases
            assertEquals(Map.of("EventSourceArn", arnOf(queue), "BatchSize", DeploymentSettings.CHARGE_QUEUE_BATCH_SIZE,
                    "MaximumBatchingWindowInSeconds", 0, "FunctionResponseTypes", List.of("ReportBatchItemFailures"),
                    "ScalingConfig", Map.of("MaximumConcurrency", maxConcurrency)), mapping, account);

            assertSqsAlarm(synth, scope + "ChargeQueueAgeAlarm", queue, "ApproximateAgeOfOldestMessage", ageThresholdSeconds,
                    "GreaterThanThreshold");
            assertSqsAlarm(synth, scope + "ChargeDeadLettersAlarm", deadLetters, "ApproximateNumberOfMessagesVisible", 1,
                    "GreaterThanOrEqualToThreshold");

            rights.computeIfAbsent(DeploymentSettings.FUNCTION_CHARGE, f -> new HashMap<>()).put(arnOf(queue), send);
            rights.computeIfAbsent(DeploymentSettings.FUNCTION_CHARGE_WORKER, f -> new HashMap<>()).put(arnOf(queue), consumeAndSend);
        });
        Object eventQueue = arnOf(synth.id("AWS::SQS::Queue", EventQueue.QUEUE_ID));
        assertEquals(rights, queueRights(synth, queue -> !queue.equals(eventQueue)));
    }

    private static void assertTlsOnly(Synth synth, String queue) {
        List<Map<String, Object>> policies = synth.properties("AWS::SQS::QueuePolicy").stream()
                .filter(policy -> List.of(ref(queue)).equals(policy.get("Queues"))).toList();
        assertEquals(1, policies.size(), queue);
        Map<String, Object> denial = at(policies.get(0), "PolicyDocument", "Statement", 0);
        assertEquals(Map.of("Action", "sqs:*", "Condition", Map.of("Bool", Map.of("aws:SecureTransport", "false")),
                "Effect", "Deny", "Principal", Map.of("AWS", "*"), "Resource", arnOf(queue)), denial, queue);
    }

    private static void assertSqsAlarm(Synth synth, String id, String queue, String metric, int threshold, String comparison) {
        Map<String, Object> alarm = props(synth.resources("AWS::CloudWatch::Alarm").get(synth.id("AWS::CloudWatch::Alarm", id)));
        assertEquals("AWS/SQS", alarm.get("Namespace"), id);
        assertEquals(metric, alarm.get("MetricName"), id);
        assertEquals(List.of(Map.of("Name", "QueueName", "Value", Map.of("Fn::GetAtt", List.of(queue, "QueueName")))),
                alarm.get("Dimensions"), id);
        assertEquals("Maximum", alarm.get("Statistic"), id);
        assertEquals(300, alarm.get("Period"), id);
        assertEquals(threshold, ((Number) alarm.get("Threshold")).intValue(), id);
        assertEquals(comparison, alarm.get("ComparisonOperator"), id);
        assertEquals(1, alarm.get("EvaluationPeriods"), id);
        assertEquals(1, alarm.get("DatapointsToAlarm"), id);
        assertEquals("notBreaching", alarm.get("TreatMissingData"), id);
    }

    /**
     * For each function (by its export) whose role may use one of the queues {@code which} selects:
     * each queue's ARN and the SQS actions allowed on it.
     */
    static Map<String, Map<Object, Set<String>>> queueRights(Synth synth, java.util.function.Predicate<Object> which) {
        Map<String, String> functionByRole = functionByRole(synth);
        Map<String, Map<Object, Set<String>>> rights = new TreeMap<>();
        for (Map<String, Object> policy : synth.properties("AWS::IAM::Policy")) {
            String function = functionByRole.getOrDefault(at(policy, "Roles", 0, "Ref").toString(), "operator");
            List<Map<String, Object>> statements = at(policy, "PolicyDocument", "Statement");
            for (Map<String, Object> statement : statements) {
                if (actions(statement).stream().anyMatch(a -> a.startsWith("sqs:"))) {
                    Object resource = statement.get("Resource");
                    for (Object queue : resource instanceof List<?> list ? list : List.of(resource)) {
                        if (!which.test(queue)) {
                            continue;
                        }
                        rights.computeIfAbsent(function, f -> new HashMap<>()).computeIfAbsent(queue, q -> new TreeSet<>())
                                .addAll(actions(statement));
                    }
                }
            }
        }
        return rights;
    }

    // --- The merchant events -----------------------------------------------------------------

    /**
     * The event queue and its dead-letter queue, event-delivery's mapping on it at the default
     * concurrency, its alarms at the default age, and the queue rights.
     */
    @Test
    void theEventQueueFeedsEventDelivery() {
        assertEventQueue(synth, DeploymentSettings.EVENT_QUEUE_MAX_CONCURRENCY, OncepaySettings.DEFAULT_EVENT_QUEUE_AGE_MINUTES * 60);
    }

    /**
     * The queue and its dead-letter queue with their attributes and TLS-only policies, event-delivery's
     * mapping ({@code maxConcurrency}), its timeout and reservation, the queues' alarms, each function's
     * variable naming the queue, and who may do what on it: every function that moves payments or refunds
     * send (the relay), event-delivery consume and send (its delayed retries), nobody else anything.
     */
    static void assertEventQueue(Synth synth, int maxConcurrency, int ageThresholdSeconds) {
        Map<String, Map<String, Object>> queues = synth.resources("AWS::SQS::Queue");
        String queue = synth.id("AWS::SQS::Queue", EventQueue.QUEUE_ID);
        String deadLetters = synth.id("AWS::SQS::Queue", EventQueue.DEAD_LETTERS_ID);
        Map<String, Object> delivery = props(synth.resources(FUNCTION).get(synth.id(FUNCTION, "EventDeliveryFunction")));
        int timeout = (int) delivery.get("Timeout");
        assertEquals(DeploymentSettings.EVENT_DELIVERY_TIMEOUT_SECONDS, timeout);
        // Every call of a batch (in parallel) ends within the timeout, with the writes around it.
        assertTrue(timeout > DeploymentSettings.EVENT_DELIVERY_CALL_TIMEOUT_SECONDS + 2 * DeploymentSettings.DYNAMODB_CALL_TIMEOUT_SECONDS);
        assertEquals(maxConcurrency, delivery.get("ReservedConcurrentExecutions"), "the mapping reaches its maximum unthrottled");

        Map<String, Object> queueProperties = props(queues.get(queue));
        assertEquals(Map.of("QueueName", DeploymentSettings.EVENT_QUEUE_NAME,
                "VisibilityTimeout", DeploymentSettings.EVENT_QUEUE_VISIBILITY_TIMEOUT_SECONDS,
                "MessageRetentionPeriod", DeploymentSettings.EVENT_QUEUE_RETENTION_SECONDS,
                "SqsManagedSseEnabled", true,
                "RedrivePolicy", Map.of("deadLetterTargetArn", arnOf(deadLetters),
                        "maxReceiveCount", DeploymentSettings.EVENT_QUEUE_MAX_RECEIVES)), queueProperties);
        assertTrue((int) queueProperties.get("VisibilityTimeout") >= 6 * timeout, "as AWS asks of a queue that triggers Lambda");
        // Each retry is a new message: the queue keeps one longer than the deliveries' horizon, for a paused mapping.
        assertTrue(DeploymentSettings.EVENT_QUEUE_RETENTION_SECONDS > DeploymentSettings.EVENT_DELIVERY_HORIZON_SECONDS);
        assertEquals(Map.of("QueueName", DeploymentSettings.EVENT_DEAD_LETTER_QUEUE_NAME,
                "MessageRetentionPeriod", 14 * 24 * 3600, "SqsManagedSseEnabled", true), props(queues.get(deadLetters)));
        assertTlsOnly(synth, queue);
        assertTlsOnly(synth, deadLetters);

        List<Map<String, Object>> mappings = synth.properties("AWS::Lambda::EventSourceMapping").stream()
                .filter(mapping -> arnOf(queue).equals(mapping.get("EventSourceArn"))).map(TreeMap::new)
                .collect(java.util.stream.Collectors.toList());
        assertEquals(1, mappings.size());
        mappings.get(0).remove("FunctionName"); // event-delivery's live alias: assertInvokedThroughLiveAliases
        assertEquals(Map.of("EventSourceArn", arnOf(queue), "BatchSize", DeploymentSettings.EVENT_QUEUE_BATCH_SIZE,
                "MaximumBatchingWindowInSeconds", 0, "FunctionResponseTypes", List.of("ReportBatchItemFailures"),
                "ScalingConfig", Map.of("MaximumConcurrency", maxConcurrency)), mappings.get(0));

        assertSqsAlarm(synth, "EventQueueAgeAlarm", queue, "ApproximateAgeOfOldestMessage", ageThresholdSeconds,
                "GreaterThanThreshold");
        // By default above SQS's longest delay: a delayed retry made visible never trips it.
        assertTrue(OncepaySettings.DEFAULT_EVENT_QUEUE_AGE_MINUTES * 60 > DeploymentSettings.SQS_MAX_DELAY_SECONDS);
        assertSqsAlarm(synth, "EventDeadLettersAlarm", deadLetters, "ApproximateNumberOfMessagesVisible", 1,
                "GreaterThanOrEqualToThreshold");

        assertEquals(new TreeSet<>(DeploymentSettings.FUNCTIONS), new TreeSet<>(EventQueue.SENDERS),
                "each function moves payments or refunds, or delivers their events");
        Set<String> send = Set.of("sqs:SendMessage", "sqs:GetQueueAttributes", "sqs:GetQueueUrl");
        Set<String> consumeAndSend = new TreeSet<>(send);
        consumeAndSend.addAll(Set.of("sqs:ReceiveMessage", "sqs:ChangeMessageVisibility", "sqs:DeleteMessage"));
        Map<String, Map<Object, Set<String>>> rights = new TreeMap<>();
        for (String sender : EventQueue.SENDERS) {
            rights.put(sender, Map.of(arnOf(queue), sender.equals(DeploymentSettings.FUNCTION_EVENT_DELIVERY) ? consumeAndSend : send));
        }
        assertEquals(rights, queueRights(synth, arnOf(queue)::equals));
        assertEquals(Map.of(), queueRights(synth, arnOf(deadLetters)::equals), "on-call reads and redrives it, no function");
        for (Map<String, Object> function : synth.properties(FUNCTION)) {
            Map<String, Object> env = at(function, "Environment", "Variables");
            assertEquals(ref(queue), env.get(DeploymentSettings.ENV_EVENT_QUEUE_URL), env.get(DeploymentSettings.ENV_FUNQY_EXPORT).toString());
        }
    }

    /**
     * A dead delivery alarms at once (Sum over 5 minutes); the outbox only when it stays unrelayed
     * through three 5-minute periods (writers relay at once, each sweep relays what they left).
     */
    @Test
    void deadDeliveriesAlarmAtOnceAndAnUnrelayedOutboxWhenItStays() {
        record Rule(String id, String statistic, int evaluationPeriods, int datapointsToAlarm) { }
        Map<String, Rule> expected = Map.of(
                Metrics.EVENT_DELIVERY_DEAD, new Rule("EventDeliveriesDeadAlarm", "Sum", 1, 1),
                Metrics.OUTBOX_BACKLOG, new Rule("OutboxBacklogAlarm", "Maximum", 3, 3));
        expected.forEach((metric, rule) -> {
            Map<String, Object> alarm = alarm(rule.id());
            assertEquals(Metrics.NAMESPACE, alarm.get("Namespace"), metric);
            assertEquals(metric, alarm.get("MetricName"));
            assertFalse(alarm.containsKey("Dimensions"), metric + " is emitted without dimensions");
            assertEquals(rule.statistic(), alarm.get("Statistic"), metric);
            assertEquals(300, alarm.get("Period"), metric);
            assertEquals(1, ((Number) alarm.get("Threshold")).intValue(), metric);
            assertEquals("GreaterThanOrEqualToThreshold", alarm.get("ComparisonOperator"), metric);
            assertEquals(rule.evaluationPeriods(), alarm.get("EvaluationPeriods"), metric);
            assertEquals(rule.datapointsToAlarm(), alarm.get("DatapointsToAlarm"), metric);
            assertEquals("notBreaching", alarm.get("TreatMissingData"), metric);
        });
    }

    /** Without endpoints event-delivery holds no secret: no variable naming one, no right to read any. */
    @Test
    void withoutEndpointsEventDeliveryReadsNoSecret() {
        Map<String, Object> delivery = functions().get(DeploymentSettings.FUNCTION_EVENT_DELIVERY);
        assertFalse(Synth.<Map<String, Object>>at(delivery, "Environment", "Variables").containsKey(DeploymentSettings.ENV_SECRET_ARNS));
        assertFalse(secretsReadableBy(synth).containsKey(DeploymentSettings.FUNCTION_EVENT_DELIVERY));
        assertEquals(Map.of(), Synth.<Map<String, Object>>at(synth.json, "Outputs").entrySet().stream()
                .filter(output -> output.getKey().startsWith("EventEndpoints")).collect(java.util.stream.Collectors.toMap(
                        Map.Entry::getKey, Map.Entry::getValue)));
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
                Metrics.PENDING_OLDEST_AGE, "Maximum", Metrics.CANCEL_PENDING_BACKLOG, "Maximum", Metrics.BREAKER_OPEN, "Sum",
                Metrics.BREAKER_STORE_FAILED, "Sum", Metrics.RETRY_BUDGET_SPENT, "Sum", Metrics.PROVIDER_AT_CAPACITY, "Sum",
                Metrics.EVENT_DELIVERY_DEAD, "Sum", Metrics.OUTBOX_BACKLOG, "Maximum"),
                custom);

        Map<String, Object> serverErrors = alarm("ServerErrorRateAlarm");
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
     * A breaker that cannot reach its items falls back to each sandbox's own calls: one occurrence alarms. Spent retry budget
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

    static final List<String> ALARMS = List.of("ServerErrorRateAlarm", "UnknownBacklogAlarm", "UnknownOldestAgeAlarm",
            "NeedsReviewAlarm", "BreakerOpenAlarm", "BreakerStoreFailedAlarm", "RetryBudgetSpentAlarm",
            "ProviderAtCapacityAlarm", "ReconcileDeadLettersAlarm", "PendingOldestAgeAlarm", "CancelPendingAlarm",
            "ChargeQueueAgeAlarm", "ChargeDeadLettersAlarm", "EventDeliveriesDeadAlarm", "EventDeadLettersAlarm",
            "EventQueueAgeAlarm", "OutboxBacklogAlarm");
    /** The alarms each provider account has, in its own scope ({@code Account<name>…} logical ids). */
    static final List<String> ACCOUNT_ALARMS = List.of("ChargeQueueAgeAlarm", "ChargeDeadLettersAlarm");

    /** Each alarm's description ends with the link to its section of docs/runbook.md. */
    @Test
    void everyAlarmLinksToItsRunbookSection() {
        assertEquals(new TreeSet<>(ALARMS), alarmIds(synth));
        assertRunbookLinks(synth, OncepaySettings.DEFAULT_RUNBOOK_URL);
        assertEquals("https://github.com/oncepay/oncepay/blob/main/docs/runbook.md#runbook-needsreviewalarm",
                OncepayStack.runbookLink(OncepaySettings.DEFAULT_RUNBOOK_URL, "NeedsReviewAlarm"));
    }

    /** The alarm ids, as given in the stack. */
    static Set<String> alarmIds(Synth synth) {
        Set<String> ids = new TreeSet<>();
        synth.resources("AWS::CloudWatch::Alarm").keySet().forEach(logicalId -> ids.add(alarmId(logicalId)));
        return ids;
    }

    /** The logical id without CDK's 8-character suffix and, for an account's alarm, without its account's scope. */
    static String alarmId(String logicalId) {
        String id = logicalId.substring(0, logicalId.length() - 8);
        return id.startsWith("Account") ? ACCOUNT_ALARMS.stream().filter(id::endsWith).findFirst().orElse(id) : id;
    }

    static void assertRunbookLinks(Synth synth, String runbookUrl) {
        synth.resources("AWS::CloudWatch::Alarm").forEach((logicalId, alarm) -> {
            String id = alarmId(logicalId);
            String description = (String) props(alarm).get("AlarmDescription");
            assertTrue(description.endsWith(" Runbook: " + runbookUrl + "#runbook-" + id.toLowerCase(Locale.ROOT)),
                    description);
            assertTrue(description.length() <= 1024, id + ": CloudWatch's limit");
        });
    }

    /**
     * Each link lands on a heading: docs/runbook.md has a {@code ### Runbook: <AlarmId>} section
     * per alarm (GitHub anchors it {@code #runbook-<alarmid>}).
     */
    @Test
    void theRunbookHasASectionPerAlarm() throws Exception {
        String runbook = Files.readString(Path.of("../docs/runbook.md"));
        for (String id : ALARMS) {
            assertTrue(runbook.lines().anyMatch(line -> line.strip().equals("### Runbook: " + id)), id);
        }
    }

    /**
     * NeedsReviewAlarm fires when a payment moves to review (the counter, at once) and stays on
     * while any payment waits there (the gauge over the whole attention index, each sweep), so it
     * clears only when an operator has resolved them all.
     */
    @Test
    void needsReviewAlarmWatchesTheWaitingPaymentsAndTheMoves() {
        Map<String, Object> alarm = alarm("NeedsReviewAlarm");
        assertEquals(1, ((Number) alarm.get("Threshold")).intValue());
        assertEquals("GreaterThanOrEqualToThreshold", alarm.get("ComparisonOperator"));
        List<Map<String, Object>> queries = at(alarm, "Metrics");
        Map<String, String> statByMetric = new TreeMap<>();
        String expression = null;
        for (Map<String, Object> query : queries) {
            if (query.containsKey("MetricStat")) {
                assertEquals(Metrics.NAMESPACE, at(query, "MetricStat", "Metric", "Namespace"));
                assertFalse(((Map<String, Object>) at(query, "MetricStat", "Metric")).containsKey("Dimensions"));
                assertEquals(300, (Object) at(query, "MetricStat", "Period"));
                statByMetric.put(at(query, "MetricStat", "Metric", "MetricName"), at(query, "MetricStat", "Stat"));
            } else {
                expression = (String) query.get("Expression");
                assertEquals(true, query.get("ReturnData"));
            }
        }
        assertEquals(Map.of(Metrics.NEEDS_REVIEW_BACKLOG, "Maximum", Metrics.NEEDS_REVIEW, "Sum"), statByMetric);
        assertEquals("MAX([FILL(waiting, 0), FILL(moved, 0)])", expression);
    }

    /** A PENDING payment older than 15 minutes: its charge run died and the sweep has not settled it. */
    @Test
    void pendingOldestAgeAlarmsPastFifteenMinutes() {
        Map<String, Object> alarm = alarm("PendingOldestAgeAlarm");
        assertEquals(Metrics.NAMESPACE, alarm.get("Namespace"));
        assertEquals(Metrics.PENDING_OLDEST_AGE, alarm.get("MetricName"));
        assertFalse(alarm.containsKey("Dimensions"));
        assertEquals("Maximum", alarm.get("Statistic"));
        assertEquals(900, ((Number) alarm.get("Threshold")).intValue());
        assertEquals("GreaterThanThreshold", alarm.get("ComparisonOperator"));
        assertEquals(1, alarm.get("EvaluationPeriods"));
        assertEquals("notBreaching", alarm.get("TreatMissingData"));
    }

    /**
     * A declined Stripe PaymentIntent whose cancel stays unconfirmed through three 5-minute periods
     * (the sweep retried it at 1, 2, 4 and 8 minutes): the shopper could still pay it.
     */
    @Test
    void cancelPendingAlarmsWhenACancelStaysUnconfirmedForFifteenMinutes() {
        Map<String, Object> alarm = alarm("CancelPendingAlarm");
        assertEquals(Metrics.NAMESPACE, alarm.get("Namespace"));
        assertEquals(Metrics.CANCEL_PENDING_BACKLOG, alarm.get("MetricName"));
        assertFalse(alarm.containsKey("Dimensions"));
        assertEquals("Maximum", alarm.get("Statistic"));
        assertEquals(300, alarm.get("Period"));
        assertEquals(1, ((Number) alarm.get("Threshold")).intValue());
        assertEquals("GreaterThanOrEqualToThreshold", alarm.get("ComparisonOperator"));
        assertEquals(3, alarm.get("EvaluationPeriods"));
        assertEquals(3, alarm.get("DatapointsToAlarm"));
        assertEquals("notBreaching", alarm.get("TreatMissingData"));
    }

    // --- The dashboard and the API's description ------------------------------------------

    /**
     * One dashboard, named after the stack: every alarm's state, the on-call metrics (dimensioned
     * ones by SEARCH, so each function, status and operation gets its line), the API's 4xx/5xx and
     * each function's errors and throttles.
     */
    @Test
    void oneDashboardShowsTheFleet() throws Exception {
        Map<String, Object> dashboard = synth.only("AWS::CloudWatch::Dashboard");
        assertEquals("Oncepay", dashboard.get("DashboardName"));
        JsonNode body = dashboardBody(dashboard);

        Set<String> custom = new TreeSet<>();
        Set<String> searches = new TreeSet<>();
        Map<String, Set<String>> aws = new TreeMap<>();
        Set<String> alarmArns = new TreeSet<>();
        List<String> logQueries = new ArrayList<>();
        for (JsonNode widget : body.get("widgets")) {
            widget.path("properties").path("alarms").forEach(arn -> alarmArns.add(arn.asText()));
            if (widget.path("type").asText().equals("log")) {
                logQueries.add(widget.path("properties").path("query").asText());
            }
            for (JsonNode metric : widget.path("properties").path("metrics")) {
                if (metric.get(0).isObject()) {
                    searches.add(metric.get(0).get("expression").asText());
                } else if (metric.get(0).asText().equals(Metrics.NAMESPACE)) {
                    assertTrue(metric.get(2).isObject(), "dimensionless, as the app emits it: " + metric);
                    custom.add(metric.get(1).asText());
                } else {
                    String dimension = metric.get(3).asText();
                    aws.computeIfAbsent(metric.get(0).asText() + " " + metric.get(1).asText(), k -> new TreeSet<>()).add(dimension);
                }
            }
        }
        assertEquals(new TreeSet<>(Set.of(Metrics.NEEDS_REVIEW, Metrics.RESOLUTIONS, Metrics.UNKNOWN_BACKLOG,
                Metrics.PENDING_BACKLOG, Metrics.NEEDS_REVIEW_BACKLOG, Metrics.CANCEL_PENDING_BACKLOG,
                Metrics.UNKNOWN_OLDEST_AGE, Metrics.PENDING_OLDEST_AGE,
                Metrics.BREAKER_OPEN, Metrics.BREAKER_HALF_OPEN, Metrics.BREAKER_CLOSED, Metrics.BREAKER_REOPEN,
                Metrics.BREAKER_STORE_FAILED, Metrics.PROVIDER_AT_CAPACITY, Metrics.RETRY_BUDGET_SPENT,
                Metrics.CHARGE_QUEUE_LAG, Metrics.CHARGE_DELAYED, Metrics.EVENT_DELIVERY_FAILED, Metrics.EVENT_DELIVERY_DEAD,
                Metrics.EVENT_DELIVERY_LAG, Metrics.OUTBOX_BACKLOG)), custom);
        assertEquals(new TreeSet<>(Set.of(
                "SEARCH('{oncepay,Function,Status} MetricName=\"Answers\"', 'Sum', 60)",
                "SEARCH('{oncepay,Function} MetricName=\"Replays\"', 'Sum', 60)",
                "SEARCH('{oncepay,Operation,Outcome} MetricName=\"ProviderLatency\"', 'p50', 60)",
                "SEARCH('{oncepay,Operation,Outcome} MetricName=\"ProviderLatency\"', 'p99', 60)",
                "SEARCH('{oncepay,Operation} MetricName=\"ProviderRetries\"', 'Sum', 60)")), searches);
        String api = synth.id("AWS::ApiGatewayV2::Api", "Api");
        Set<String> lambdas = new TreeSet<>(synth.resources(FUNCTION).keySet());
        // Each charge queue's depth and age, and its dead-letter queue's depth, by queue name.
        String queue = synth.id("AWS::SQS::Queue", "AccountdefaultChargeQueue") + ".QueueName";
        String deadLetters = synth.id("AWS::SQS::Queue", "AccountdefaultChargeDeadLetters") + ".QueueName";
        // The event queue's too.
        String events = synth.id("AWS::SQS::Queue", EventQueue.QUEUE_ID) + ".QueueName";
        String eventDeadLetters = synth.id("AWS::SQS::Queue", EventQueue.DEAD_LETTERS_ID) + ".QueueName";
        assertEquals(Map.of("AWS/ApiGateway Count", Set.of(api), "AWS/ApiGateway 4xx", Set.of(api),
                "AWS/ApiGateway 5xx", Set.of(api), "AWS/Lambda Errors", lambdas, "AWS/Lambda Throttles", lambdas,
                "AWS/SQS ApproximateNumberOfMessagesVisible", Set.of(queue, deadLetters, events, eventDeadLetters),
                "AWS/SQS ApproximateNumberOfMessagesDelayed", Set.of(queue, events),
                "AWS/SQS ApproximateNumberOfMessagesNotVisible", Set.of(queue, events),
                "AWS/SQS ApproximateAgeOfOldestMessage", Set.of(queue, events)), aws);
        Set<String> alarms = new TreeSet<>();
        synth.resources("AWS::CloudWatch::Alarm").keySet().forEach(id -> alarms.add(id + ".Arn"));
        assertEquals(alarms, alarmArns);

        // The latest 5xx request lines, from every function's log group.
        assertEquals(1, logQueries.size());
        String query = logQueries.get(0);
        synth.resources("AWS::Logs::LogGroup").keySet().forEach(group -> assertTrue(query.contains("SOURCE '" + group + "'"), query));
        assertTrue(query.contains("| filter mdc.status like /^5/"), query);
        assertTrue(query.contains("fields " + String.join(", ", OperationsDashboard.REQUEST_LINE_FIELDS)), query);
    }

    /** A saved Logs Insights query: every request line about one payment, oldest first, across the functions. */
    @Test
    void aSavedQueryFindsOnePaymentsRequests() {
        Map<String, Object> definition = synth.only("AWS::Logs::QueryDefinition");
        assertEquals("Oncepay/requests-of-one-payment", definition.get("Name"));
        assertEquals(new TreeSet<>(synth.resources("AWS::Logs::LogGroup").keySet()),
                new TreeSet<>(((List<Map<String, Object>>) definition.get("LogGroupNames")).stream()
                        .map(ref -> (String) ref.get("Ref")).toList()));
        String query = (String) definition.get("QueryString");
        assertTrue(query.contains("filter mdc.paymentId = \"" + OperationsDashboard.PAYMENT_ID_PLACEHOLDER + "\""), query);
        assertTrue(query.contains("sort @timestamp asc"), query);
        for (String field : List.of("mdc.function", "mdc.route", "mdc.status", "mdc.problemType", "mdc.requestId", "mdc.keyHash")) {
            assertTrue(OperationsDashboard.REQUEST_LINE_FIELDS.contains(field), field);
        }
    }

    /** The dashboard's JSON, each reference to a resource written as its logical id (and attribute). */
    static JsonNode dashboardBody(Map<String, Object> dashboard) throws Exception {
        StringBuilder json = new StringBuilder();
        List<Object> parts = at(dashboard, "DashboardBody", "Fn::Join", 1);
        for (Object part : parts) {
            json.append(part instanceof String text ? text
                    : part instanceof Map<?, ?> ref && ref.containsKey("Ref") ? ref.get("Ref")
                    : String.join(".", Synth.<List<String>>at(part, "Fn::GetAtt")));
        }
        return new ObjectMapper().readTree(json.toString());
    }

    /**
     * HTTP APIs cannot import a document without giving up the routes defined here, so the stack
     * references it (an output and the API's description) and attaches it as an asset.
     */
    @Test
    void theOpenApiDocumentIsReferencedAndAttached() {
        Map<String, Object> outputs = at(synth.json, "Outputs");
        assertEquals(OncepayStack.OPENAPI_PATH, at(outputs, "OpenApiDocumentPath", "Value"));
        assertEquals("oncepay-functions/src/main/resources/openapi/oncepay.yaml", OncepayStack.OPENAPI_PATH);
        assertTrue(at(synth.only("AWS::ApiGatewayV2::Api"), "Description").toString().contains(OncepayStack.OPENAPI_PATH));
        // An S3 URL of the uploaded asset: s3://<bootstrap bucket>/<content hash>.yaml
        String url = at(outputs, "OpenApiDocumentUrl", "Value", "Fn::Sub");
        assertTrue(url.startsWith("s3://cdk-") && url.endsWith(".yaml"), url);
    }

    private static Map<String, Object> alarm(String id) {
        return props(synth.resources("AWS::CloudWatch::Alarm").get(synth.id("AWS::CloudWatch::Alarm", id)));
    }

    /**
     * Each function has one version (this deploy's, kept when a later deploy replaces it) and one
     * alias, {@code live}, pointing at it; everything that invokes a function (the API's routes,
     * the schedule) invokes its alias, and every invoke permission is on an alias, none on a
     * function (which would leave $LATEST invocable by the gateway and serve no snapshot).
     */
    static void assertInvokedThroughLiveAliases(Synth synth) {
        Map<Object, String> aliasOf = new LinkedHashMap<>();
        for (String construct : DeploymentSettings.FUNCTIONS.stream().map(SamTemplate::resourceName).toList()) {
            String function = synth.id(FUNCTION, construct + "Function");
            String version = synth.id("AWS::Lambda::Version", construct + "FunctionCurrentVersion");
            Map<String, Object> versionResource = synth.resources("AWS::Lambda::Version").get(version);
            assertEquals(ref(function), at(versionResource, "Properties", "FunctionName"), version);
            assertEquals("Retain", versionResource.get("DeletionPolicy"), version);
            String alias = aliasId(synth, construct);
            Map<String, Object> aliasProperties = props(synth.resources("AWS::Lambda::Alias").get(alias));
            assertEquals(OncepayStack.LIVE_ALIAS, aliasProperties.get("Name"));
            assertEquals(ref(function), aliasProperties.get("FunctionName"));
            assertEquals(Map.of("Fn::GetAtt", List.of(version, "Version")), aliasProperties.get("FunctionVersion"));
            assertFalse(aliasProperties.containsKey("ProvisionedConcurrencyConfig"), alias);
            aliasOf.put(ref(alias), construct);
        }
        assertEquals(DeploymentSettings.FUNCTIONS.size(), synth.resources("AWS::Lambda::Version").size());
        assertEquals(DeploymentSettings.FUNCTIONS.size(), synth.resources("AWS::Lambda::Alias").size());

        Set<String> integrated = new TreeSet<>();
        synth.properties("AWS::ApiGatewayV2::Integration").forEach(i -> integrated.add(
                aliasOf.getOrDefault(i.get("IntegrationUri"), "not a live alias: " + i.get("IntegrationUri"))));
        assertEquals(new TreeSet<>(Set.of("Charge", "Webhook")), integrated);
        assertEquals("Reconcile", aliasOf.get(at(synth.only("AWS::Events::Rule"), "Targets", 0, "Arn")));
        // Each charge queue's event-source mapping names the worker's alias (<function name>:live), the event
        // queue's event-delivery's; they need no permission.
        Object eventQueue = arnOf(synth.id("AWS::SQS::Queue", EventQueue.QUEUE_ID));
        for (Map<String, Object> mapping : synth.properties("AWS::Lambda::EventSourceMapping")) {
            assertEquals(eventQueue.equals(mapping.get("EventSourceArn")) ? "EventDelivery" : "ChargeWorker",
                    aliasOf.get(at(mapping, "FunctionName", "Fn::Join", 1, 0, "Fn::Select", 1, "Fn::Split", 1)),
                    mapping.toString());
            assertEquals(":" + OncepayStack.LIVE_ALIAS, at(mapping, "FunctionName", "Fn::Join", 1, 1));
        }

        Map<String, Set<String>> permitted = new TreeMap<>();
        for (Map<String, Object> permission : synth.properties("AWS::Lambda::Permission")) {
            String construct = aliasOf.get(permission.get("FunctionName"));
            assertTrue(construct != null, "an invoke permission not on a live alias: " + permission);
            assertEquals("lambda:InvokeFunction", permission.get("Action"));
            permitted.computeIfAbsent((String) permission.get("Principal"), k -> new TreeSet<>()).add(construct);
        }
        assertEquals(Map.of("apigateway.amazonaws.com", Set.of("Charge", "Webhook"),
                "events.amazonaws.com", Set.of("Reconcile")), permitted);
    }

    static String aliasId(Synth synth, String construct) {
        return synth.id("AWS::Lambda::Alias", construct + "FunctionLiveAlias");
    }

    /** Native too: one wiring for both runtimes (no snapshot there, but the same rollback and the same routes). */
    @Test
    void apiAndScheduleInvokeEachFunctionsLiveAlias() {
        assertInvokedThroughLiveAliases(synth);
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
