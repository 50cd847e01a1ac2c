package dev.oncepay.infra;

import static dev.oncepay.infra.Synth.at;
import static dev.oncepay.infra.Synth.ref;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.oncepay.contract.DeploymentSettings;
import dev.oncepay.contract.Table;
import java.nio.file.Path;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awscdk.assertions.Annotations;
import software.amazon.awscdk.assertions.Match;

/** The choices a deployer makes by context, all in one second synthesis. */
class OncepayVariantsTest {
    private static final String DEFAULT_KEYS = "arn:aws:secretsmanager:eu-west-1:123456789012:secret:oncepay/default/api-key-AbCdEf";
    private static final String STRIPE_KEYS = "arn:aws:secretsmanager:eu-west-1:123456789012:secret:oncepay/stripe-eu/api-key-GhIjKl";
    private static final String STRIPE_SIGNING = "arn:aws:secretsmanager:eu-west-1:123456789012:secret:oncepay/stripe-eu/signing-MnOpQr";
    private static final String ON_CALL = "arn:aws:iam::123456789012:role/on-call";
    private static final String BREAK_GLASS = "arn:aws:iam::210987654321:user/break-glass";
    private static final String RUNBOOK = "https://wiki.example.com/oncepay/runbook";
    private static final String LEDGER_SIGNING = "arn:aws:secretsmanager:eu-west-1:123456789012:secret:oncepay/ledger/signing-StUvWx";
    static Synth synth;

    @BeforeAll
    static void synthesize() {
        synth = new Synth(Map.ofEntries(
                Map.<String, Object>entry("oncepay:runtime", "jvm"),
                Map.<String, Object>entry("oncepay:placeholderCode", "true"),
                Map.<String, Object>entry("oncepay:functionZip", "does/not/exist.zip"),
                Map.<String, Object>entry("oncepay:architecture", "arm64"),
                Map.<String, Object>entry("oncepay:apiKeySecretArn", DEFAULT_KEYS),
                // As -c gives it: text.
                Map.<String, Object>entry("oncepay:accounts", "[{\"name\": \"stripe-eu\", \"provider\": \"stripe\", \"url\": \"https://api.stripe.com\","
                        + " \"apiKeySecretArn\": \"" + STRIPE_KEYS + "\", \"signingSecretArn\": \"" + STRIPE_SIGNING + "\","
                        + " \"queueConcurrency\": 7},"
                        + " {\"name\": \"acme\", \"provider\": \"sim\", \"url\": \"https://psp.acme.example\"}]"),
                Map.<String, Object>entry("oncepay:queueConcurrency", "3"),
                Map.<String, Object>entry("oncepay:respondAsyncTenants", List.of("merchant-b")),
                Map.<String, Object>entry("oncepay:alarmChargeQueueAgeMinutes", "10"),
                // As cdk.json gives it: a structure.
                Map.<String, Object>entry("oncepay:tenants", Map.of("Merchant-A", "stripe-eu", "merchant-b", "acme", "merchant-c", "default")),
                Map.<String, Object>entry("oncepay:ordersUnguarded", "Merchant-A, merchant-instalments"),
                Map.<String, Object>entry("oncepay:reconcileRateMinutes", "5"),
                Map.<String, Object>entry("oncepay:reconcileMemoryMb", "1536"),
                Map.<String, Object>entry("oncepay:chargeConcurrency", "none"),
                Map.<String, Object>entry("oncepay:logRetentionDays", "90"),
                Map.<String, Object>entry("oncepay:operatorPrincipals", List.of(ON_CALL, BREAK_GLASS)),
                Map.<String, Object>entry("oncepay:runbookUrl", RUNBOOK),
                // As cdk.json gives it: a structure.
                Map.<String, Object>entry("oncepay:eventEndpoints", Map.of(
                        "merchant-b", Map.of("orders", Map.of("url", "https://b.example/hooks/oncepay",
                                "types", List.of("payment.succeeded", "refund.succeeded"))),
                        "Merchant-A", Map.of("ledger", Map.of("url", "https://ledger.a.example/oncepay", "secretArn", LEDGER_SIGNING),
                                "alerts", Map.of("url", "https://alerts.a.example/in")))),
                Map.<String, Object>entry("oncepay:eventConcurrency", "20"),
                Map.<String, Object>entry("oncepay:alarmEventQueueAgeMinutes", "45"),
                Map.<String, Object>entry("oncepay:deliveriesIndex", "false"),
                Map.<String, Object>entry("oncepay:openApiDocument", "does/not/exist.yaml")));
    }

    /** Memory per function: the JVM defaults for charge, webhook and the worker, reconcile's from its own context key. */
    @Test
    void theJvmVariantRunsJava21WithTheFunqyHandler() {
        Map<String, Object> memory = new TreeMap<>();
        for (Map<String, Object> function : synth.properties("AWS::Lambda::Function")) {
            assertEquals("java21", function.get("Runtime"));
            assertEquals(DeploymentSettings.JVM_HANDLER, function.get("Handler"));
            assertEquals(List.of("arm64"), function.get("Architectures"));
            Map<String, Object> env = at(function, "Environment", "Variables");
            assertFalse(env.containsKey(DeploymentSettings.ENV_DISABLE_SIGNAL_HANDLERS));
            // The stack sets no JVM flags: the managed runtime's own (C1 only) suit a restored snapshot.
            assertFalse(env.containsKey("JAVA_TOOL_OPTIONS"));
            memory.put((String) env.get(DeploymentSettings.ENV_FUNQY_EXPORT), function.get("MemorySize"));
        }
        assertEquals(Map.of(DeploymentSettings.FUNCTION_CHARGE, 1024, DeploymentSettings.FUNCTION_WEBHOOK, 768,
                DeploymentSettings.FUNCTION_RECONCILE, 1536, DeploymentSettings.FUNCTION_CHARGE_WORKER, 1024,
                DeploymentSettings.FUNCTION_EVENT_DELIVERY, 768), memory);
    }

    /**
     * Every JVM function snapshots its published versions, within SnapStart's limits: no EFS, no
     * ephemeral storage above 512 MB, no provisioned concurrency on the version served (checked
     * on the alias), a java runtime (CDK refuses others); both architectures are supported.
     */
    @Test
    void jvmFunctionsSnapStartTheirPublishedVersions() {
        for (Map<String, Object> function : synth.properties("AWS::Lambda::Function")) {
            assertEquals(Map.of("ApplyOn", "PublishedVersions"), function.get("SnapStart"));
            assertFalse(function.containsKey("FileSystemConfigs"));
            assertFalse(function.containsKey("EphemeralStorage"), "default 512 MB");
        }
        OncepayStackTest.assertInvokedThroughLiveAliases(synth);
    }

    /**
     * A deploy of new code publishes a new version of each function and points live at it (the
     * version's logical id carries a hash of the code asset and the settings); the same code and
     * settings synthesize the same versions, so a deploy that changes neither publishes nothing.
     */
    @Test
    void newCodePublishesNewVersionsTheSameCodeNone(@TempDir Path dir) throws Exception {
        Map<String, Object> context = Map.of("oncepay:runtime", "jvm", "oncepay:openApiDocument", "does/not/exist.yaml");
        Map<String, Object> first = new TreeMap<>(context);
        first.put("oncepay:functionZip", Synth.zip(dir, false, "build-1").toString());
        Map<String, Object> second = new TreeMap<>(context);
        second.put("oncepay:functionZip", Synth.zip(dir, false, "build-2").toString());

        Set<String> built = new Synth(first).resources("AWS::Lambda::Version").keySet();
        Set<String> again = new Synth(first).resources("AWS::Lambda::Version").keySet();
        Synth rebuilt = new Synth(second);
        Set<String> newVersions = rebuilt.resources("AWS::Lambda::Version").keySet();

        assertEquals(DeploymentSettings.FUNCTIONS.size(), built.size());
        assertEquals(built, again);
        assertEquals(DeploymentSettings.FUNCTIONS.size(), newVersions.size());
        assertTrue(Collections.disjoint(built, newVersions), built + " vs " + newVersions);
        OncepayStackTest.assertInvokedThroughLiveAliases(rebuilt);
    }

    /**
     * Existing secrets are used, missing ones created (two per account, one per merchant endpoint);
     * charge, the worker and reconcile get and may read every account's API-key secret and no signing
     * secret, the webhook the accounts' signing secrets, event-delivery the endpoints' signing secrets
     * and nothing else, and the environment names exactly what the role may read.
     */
    @Test
    void eachAccountsSecretsAreSplitBetweenTheFunctions() {
        String defaultSigning = synth.id("AWS::SecretsManager::Secret", "AccountdefaultSigningSecret");
        String acmeKeys = synth.id("AWS::SecretsManager::Secret", "AccountacmeApiKeySecret");
        String acmeSigning = synth.id("AWS::SecretsManager::Secret", "AccountacmeSigningSecret");
        assertEquals(5, synth.resources("AWS::SecretsManager::Secret").size(),
                "the default API key, stripe-eu's and the ledger endpoint's exist");
        List<Object> apiKeys = List.of(DEFAULT_KEYS, STRIPE_KEYS, ref(acmeKeys));
        List<Object> signing = List.of(ref(defaultSigning), STRIPE_SIGNING, ref(acmeSigning));
        List<Object> endpoints = List.of(ref(alertsSecret()), LEDGER_SIGNING, ref(ordersSecret()));

        assertEquals(Map.of(DeploymentSettings.FUNCTION_CHARGE, apiKeys, DeploymentSettings.FUNCTION_RECONCILE, apiKeys,
                DeploymentSettings.FUNCTION_CHARGE_WORKER, apiKeys, DeploymentSettings.FUNCTION_WEBHOOK, signing,
                DeploymentSettings.FUNCTION_EVENT_DELIVERY, endpoints),
                OncepayStackTest.secretsReadableBy(synth));
        for (Map<String, Object> function : synth.properties("AWS::Lambda::Function")) {
            String name = at(function, "Environment", "Variables", DeploymentSettings.ENV_FUNQY_EXPORT);
            assertEquals(name.equals(DeploymentSettings.FUNCTION_WEBHOOK) ? signing
                            : name.equals(DeploymentSettings.FUNCTION_EVENT_DELIVERY) ? endpoints : apiKeys,
                    OncepayStackTest.arns(at(function, "Environment", "Variables", DeploymentSettings.ENV_SECRET_ARNS)), name);
        }
        assertTrue(at(synth.resources("AWS::SecretsManager::Secret").get(acmeKeys), "Properties", "Description").toString()
                .contains("oncepay.provider.accounts.acme.api-key"));
        // Signing secrets are bound to their account: the webhook applies an event only to that account's payments.
        Map<String, Object> acmeSigningSecret = synth.resources("AWS::SecretsManager::Secret").get(acmeSigning);
        assertTrue(at(acmeSigningSecret, "Properties", "Description").toString()
                .contains("{\"oncepay.webhook.secrets.sim.acme\": [\"current\", \"previous\"]}"));
        assertEquals("oncepay.webhook.secrets.sim.acme",
                at(acmeSigningSecret, "Properties", "GenerateSecretString", "GenerateStringKey"));
        String defaultKey = at(synth.resources("AWS::SecretsManager::Secret").get(defaultSigning), "Properties",
                "GenerateSecretString", "GenerateStringKey").toString();
        assertTrue(defaultKey.contains("oncepay.webhook.secrets.") && defaultKey.contains("ProviderId")
                && defaultKey.contains(".default"), defaultKey);
    }

    /**
     * Tenants and accounts reach charge, the worker and reconcile as plain routing, with no secret in
     * it; the webhook and event-delivery, which call no provider, need none. The other accounts' queues reach charge and the worker, which send
     * to them. The unguarded tenants and those whose charges are queued by default reach charge,
     * the one function that binds orders and takes requests.
     */
    @Test
    void routingReachesAllButTheWebhookAndTheQueuesAndTenantDefaultsTheirUsers() {
        Map<String, String> routing = Map.of(
                "oncepay.provider.tenants.Merchant-A", "stripe-eu",
                "oncepay.provider.tenants.merchant-b", "acme",
                "oncepay.provider.tenants.merchant-c", "default",
                "oncepay.provider.accounts.stripe-eu.provider", "stripe",
                "oncepay.provider.accounts.stripe-eu.url", "https://api.stripe.com",
                "oncepay.provider.accounts.acme.provider", "sim",
                "oncepay.provider.accounts.acme.url", "https://psp.acme.example");
        for (Map<String, Object> function : synth.properties("AWS::Lambda::Function")) {
            Map<String, Object> env = at(function, "Environment", "Variables");
            Object name = env.get(DeploymentSettings.ENV_FUNQY_EXPORT);
            if (name.equals(DeploymentSettings.FUNCTION_WEBHOOK) || name.equals(DeploymentSettings.FUNCTION_EVENT_DELIVERY)) {
                assertFalse(env.containsKey(DeploymentSettings.ENV_PROVIDER_ROUTING), name.toString());
                continue;
            }
            Map<String, String> expected = new TreeMap<>(routing);
            if (ChargeQueue.SENDERS.contains(name)) {
                expected.put("oncepay.provider.accounts.stripe-eu.queue-url", "ref:" + synth.id("AWS::SQS::Queue", "AccountstripeeuChargeQueue"));
                expected.put("oncepay.provider.accounts.acme.queue-url", "ref:" + synth.id("AWS::SQS::Queue", "AccountacmeChargeQueue"));
            }
            if (name.equals(DeploymentSettings.FUNCTION_CHARGE)) {
                expected.put("oncepay.orders.tenants.Merchant-A.once-per-reference", "false");
                expected.put("oncepay.orders.tenants.merchant-instalments.once-per-reference", "false");
                expected.put("oncepay.queue.tenants.merchant-b.respond-async", "true");
            }
            assertEquals(expected, OncepayStackTest.routing(env.get(DeploymentSettings.ENV_PROVIDER_ROUTING)), name.toString());
        }
    }

    /** Unreserved charge has no sandbox count to take half of: no cap is set, so the application's default applies. */
    @Test
    void contextTunesScheduleConcurrencyAndRetention() {
        assertEquals("rate(5 minutes)", synth.only("AWS::Events::Rule").get("ScheduleExpression"));
        for (Map<String, Object> function : synth.properties("AWS::Lambda::Function")) {
            String name = at(function, "Environment", "Variables", DeploymentSettings.ENV_FUNQY_EXPORT);
            assertEquals(!name.equals(DeploymentSettings.FUNCTION_CHARGE), function.containsKey("ReservedConcurrentExecutions"), name);
            Map<String, Object> env = at(function, "Environment", "Variables");
            assertFalse(env.containsKey(DeploymentSettings.ENV_CHARGE_MAX_IN_FLIGHT), name);
        }
        synth.properties("AWS::Logs::LogGroup").forEach(g -> assertEquals(90, g.get("RetentionInDays")));
    }

    /** Three accounts, three queues: the default account's concurrency by its key, stripe-eu's in its entry, acme's the default. */
    @Test
    void eachAccountHasItsChargeQueue() {
        OncepayStackTest.assertChargeQueues(synth, Map.of(DeploymentSettings.DEFAULT_ACCOUNT, 3, "stripe-eu", 7,
                "acme", DeploymentSettings.CHARGE_QUEUE_MAX_CONCURRENCY), 10 * 60);
    }

    /**
     * Every function learns the endpoints' URLs and types (the relay sends only what an endpoint
     * wants; event-delivery posts to the URL), as one JSON object of flat properties, sorted.
     */
    @Test
    void theEndpointsReachEveryFunction() {
        Map<String, String> expected = Map.of(
                "oncepay.events.endpoints.\"Merchant-A\".\"alerts\".url", "https://alerts.a.example/in",
                "oncepay.events.endpoints.\"Merchant-A\".\"ledger\".url", "https://ledger.a.example/oncepay",
                "oncepay.events.endpoints.\"merchant-b\".\"orders\".url", "https://b.example/hooks/oncepay",
                "oncepay.events.endpoints.\"merchant-b\".\"orders\".types", "payment.succeeded,refund.succeeded");
        Set<String> reached = new TreeSet<>();
        for (Map<String, Object> function : synth.properties("AWS::Lambda::Function")) {
            Map<String, Object> env = at(function, "Environment", "Variables");
            assertEquals(expected, OncepayStackTest.routing(env.get(DeploymentSettings.ENV_EVENT_ENDPOINTS)),
                    env.get(DeploymentSettings.ENV_FUNQY_EXPORT).toString());
            // No secret among them: the literal is exactly the URLs and types.
            assertTrue(env.get(DeploymentSettings.ENV_EVENT_ENDPOINTS) instanceof String);
            reached.add((String) env.get(DeploymentSettings.ENV_FUNQY_EXPORT));
        }
        assertEquals(new TreeSet<>(DeploymentSettings.FUNCTIONS), reached);
    }

    /**
     * An endpoint without an existing secret gets one, created in the JSON shape event-delivery reads
     * ({@code {"oncepay.events.endpoints.\"<tenant>\".\"<endpoint>\".secrets": "<random>"}}), kept on stack
     * deletion; each endpoint's secret ARN is an output; no value is in the template.
     */
    @Test
    void eachEndpointWithoutASecretGetsOne() {
        Map<String, Map<String, Object>> secrets = synth.resources("AWS::SecretsManager::Secret");
        Map<String, String> keys = Map.of(
                alertsSecret(), DeploymentSettings.endpointProperty("Merchant-A", "alerts", DeploymentSettings.ENDPOINT_SECRETS),
                ordersSecret(), DeploymentSettings.endpointProperty("merchant-b", "orders", DeploymentSettings.ENDPOINT_SECRETS));
        keys.forEach((id, key) -> {
            Map<String, Object> secret = secrets.get(id);
            assertEquals("Retain", secret.get("DeletionPolicy"), id);
            assertFalse(Synth.props(secret).containsKey("SecretString"), id);
            assertEquals(Map.of("SecretStringTemplate", "{}", "GenerateStringKey", key, "ExcludePunctuation", true,
                    "PasswordLength", 48), at(secret, "Properties", "GenerateSecretString"), id);
            String description = at(secret, "Properties", "Description");
            assertTrue(description.contains("for event-delivery") && description.contains(key), description);
            // The secret's ARN output carries it too: CloudFormation's limit for an output's description.
            assertTrue(description.length() <= 1024, description);
        });
        assertEquals("oncepay.events.endpoints.\"merchant-b\".\"orders\".secrets", keys.get(ordersSecret()));
        Map<String, Object> outputs = at(synth.json, "Outputs");
        Set<Object> arns = new java.util.HashSet<>();
        outputs.forEach((id, output) -> {
            if (id.startsWith("EventEndpoints")) {
                arns.add(at(output, "Value"));
            }
        });
        // An existing secret's ARN too, as for the accounts' secrets.
        assertEquals(Set.of(ref(alertsSecret()), ref(ordersSecret()), LEDGER_SIGNING), arns);
    }

    private static String alertsSecret() {
        return synth.id("AWS::SecretsManager::Secret", "EventEndpointsMerchantAalertsSigningSecret");
    }

    private static String ordersSecret() {
        return synth.id("AWS::SecretsManager::Secret", "EventEndpointsmerchantbordersSigningSecret");
    }

    /** The event queue's concurrency from its key (the mapping's maximum and event-delivery's reservation), the age alarm's too. */
    @Test
    void theEventQueueTakesItsConcurrencyAndAlarmFromContext() {
        OncepayStackTest.assertEventQueue(synth, 20, 45 * 60);
    }

    /** The first of two deploys onto an existing table adds the outbox index alone: CloudFormation creates one per update. */
    @Test
    void theDeliveriesIndexCanWaitForTheNextDeploy() {
        List<Map<String, Object>> indexes = at(synth.only("AWS::DynamoDB::Table"), "GlobalSecondaryIndexes");
        assertEquals(List.of(Table.SWEEP_INDEX, Table.ATTENTION_INDEX, Table.WALLET_INDEX, Table.OUTBOX_INDEX),
                indexes.stream().map(index -> index.get("IndexName")).toList());
    }

    @Test
    void placeholderCodeIsFlagged() {
        Annotations.fromStack(synth.stack).hasWarning("/Oncepay", Match.stringLikeRegexp(".*placeholder code.*"));
    }

    /** Only the principals named may assume the operator role; its permissions do not change. */
    @Test
    void operatorPrincipalsAreTheOnlyOnesTrusted() {
        Map<String, Object> role = Synth.props(synth.resources("AWS::IAM::Role").get(synth.id("AWS::IAM::Role", "OperatorRole")));
        assertEquals(List.of(ON_CALL, BREAK_GLASS).stream().map(arn -> Map.of("Action", "sts:AssumeRole", "Effect", "Allow",
                "Principal", Map.of("AWS", arn))).toList(), at(role, "AssumeRolePolicyDocument", "Statement"));
        List<Map<String, Object>> statements = OncepayStackTest.operatorStatements(synth);
        assertEquals(1, statements.size());
        assertEquals("execute-api:Invoke", statements.get(0).get("Action"));
        assertEquals(DeploymentSettings.ADMIN_ROUTES.size(), ((List<?>) statements.get(0).get("Resource")).size());
        OncepayStackTest.assertNoTrustedHeader(synth);
        OncepayStackTest.routes(synth).forEach((route, properties) -> assertEquals(
                route.contains(" /admin/") ? "AWS_IAM" : route.contains(" /webhooks/") ? "NONE" : "JWT",
                properties.get("AuthorizationType"), route));
    }

    @Test
    void alarmsLinkToTheRunbookGiven() {
        assertEquals(new TreeSet<>(OncepayStackTest.ALARMS), OncepayStackTest.alarmIds(synth));
        OncepayStackTest.assertRunbookLinks(synth, RUNBOOK);
    }

    /** Without the document the stack still synthesizes: it names the document, says it is not attached, attaches nothing. */
    @Test
    void aMissingOpenApiDocumentIsReferencedNotAttached() {
        Map<String, Object> outputs = at(synth.json, "Outputs");
        assertEquals(OncepayStack.OPENAPI_PATH, at(outputs, "OpenApiDocumentPath", "Value"));
        assertFalse(outputs.containsKey("OpenApiDocumentUrl"));
        Annotations.fromStack(synth.stack).hasWarning("/Oncepay", Match.stringLikeRegexp(".*no OpenAPI document at does/not/exist.yaml.*"));
    }
}
