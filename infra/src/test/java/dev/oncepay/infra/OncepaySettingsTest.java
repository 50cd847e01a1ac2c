package dev.oncepay.infra;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.oncepay.contract.DeploymentSettings;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awscdk.services.logs.RetentionDays;

/** Reading context and checking the function.zip, without synthesizing. */
class OncepaySettingsTest {
    private static final String ARN = "arn:aws:secretsmanager:eu-west-1:123456789012:secret:oncepay/stripe-eu/api-key-AbCdEf";
    @TempDir
    Path dir;

    @Test
    void defaults() {
        OncepaySettings settings = OncepaySettings.from(name -> null);
        assertEquals(OncepaySettings.NATIVE, settings.runtime());
        assertEquals(Path.of("../oncepay-functions/target/function.zip"), settings.functionZip());
        assertEquals(256, settings.memoryMb(DeploymentSettings.FUNCTION_CHARGE));
        assertEquals(Optional.of(50), settings.chargeConcurrency());
        assertEquals(1, settings.reconcileRateMinutes());
        assertEquals(RetentionDays.ONE_MONTH, settings.logRetention());
        assertEquals(Optional.empty(), settings.apiKeySecretArn());
        assertEquals(Optional.empty(), settings.signingSecretArn());
        assertEquals(List.of(), settings.accounts());
        assertEquals(Map.of(), settings.routingProperties());
        assertEquals(Set.of(), settings.ordersUnguarded());
        assertTrue(settings.ordersGuardedByDefault());
        assertEquals(Map.of(), settings.plainProperties(DeploymentSettings.FUNCTION_CHARGE), "every order guarded, as the app's default");
        assertEquals(List.of(), settings.operatorPrincipals(), "the account root");
        assertEquals(OncepaySettings.DEFAULT_RUNBOOK_URL, settings.runbookUrl());
        assertEquals(Path.of(OncepaySettings.DEFAULT_OPENAPI_DOCUMENT), settings.openApiDocument());
        assertEquals(15, settings.alarmPendingAgeMinutes());
        assertEquals(5, settings.alarmChargeQueueAgeMinutes());
        assertEquals(Map.of(DeploymentSettings.DEFAULT_ACCOUNT, DeploymentSettings.CHARGE_QUEUE_MAX_CONCURRENCY),
                settings.chargeQueueConcurrency());
        assertEquals(Optional.of(DeploymentSettings.CHARGE_QUEUE_MAX_CONCURRENCY),
                settings.reservedConcurrency(DeploymentSettings.FUNCTION_CHARGE_WORKER));
        assertEquals(Set.of(), settings.respondAsyncTenants());
        assertFalse(settings.respondAsyncByDefault());
        assertEquals(DeploymentSettings.EVENT_QUEUE_MAX_CONCURRENCY, settings.eventConcurrency());
        assertEquals(Optional.of(DeploymentSettings.EVENT_QUEUE_MAX_CONCURRENCY),
                settings.reservedConcurrency(DeploymentSettings.FUNCTION_EVENT_DELIVERY));
        assertEquals(List.of(), settings.eventEndpoints());
        assertEquals(Map.of(), settings.eventEndpointProperties());
        assertEquals(30, settings.alarmEventQueueAgeMinutes());
        assertTrue(settings.deliveriesIndex());
    }

    /** As -c text (comma-separated, or a JSON array) or as a cdk.json list. */
    @Test
    void operatorPrincipalsAreIamArns() {
        List<String> two = List.of("arn:aws:iam::123456789012:role/on-call", "arn:aws:iam::123456789012:user/ops");
        assertEquals(two, settings(Map.of("oncepay:operatorPrincipals", String.join(", ", two))).operatorPrincipals());
        assertEquals(two, settings(Map.of("oncepay:operatorPrincipals",
                "[\"" + two.get(0) + "\", \"" + two.get(1) + "\"]")).operatorPrincipals());
        assertEquals(two, settings(Map.of("oncepay:operatorPrincipals", two)).operatorPrincipals());
        assertEquals(List.of("arn:aws-cn:iam::123456789012:root"),
                settings(Map.of("oncepay:operatorPrincipals", "arn:aws-cn:iam::123456789012:root")).operatorPrincipals());
        for (Object bad : List.of("on-call", "*", "arn:aws:iam::*:root", "arn:aws:s3:::bucket", List.of(42),
                "{\"role\": \"arn:aws:iam::123456789012:role/on-call\"}")) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> settings(Map.of("oncepay:operatorPrincipals", bad)), bad.toString());
            assertTrue(e.getMessage().contains("operatorPrincipals"), e.getMessage());
        }
    }

    /** The alarms append "#runbook-<alarm>"; a URL with a fragment already, or not https, would break the links. */
    @Test
    void runbookUrlIsAnHttpsUrlWithoutFragment() {
        assertEquals("https://wiki.example.com/runbook", settings(Map.of("oncepay:runbookUrl", "https://wiki.example.com/runbook")).runbookUrl());
        for (String bad : List.of("http://wiki.example.com/runbook", "https://example.com/README.md#runbook", "README.md",
                "https://example.com/a b")) {
            assertThrows(IllegalArgumentException.class, () -> settings(Map.of("oncepay:runbookUrl", bad)), bad);
        }
        assertThrows(IllegalArgumentException.class, () -> settings(Map.of("oncepay:alarmPendingAgeMinutes", "0")));
    }

    @Test
    void rejectsWhatCannotBeDeployed() {
        assertThrows(IllegalArgumentException.class, () -> settings(Map.of("oncepay:runtime", "graal")));
        assertThrows(IllegalArgumentException.class, () -> settings(Map.of("oncepay:architecture", "riscv")));
        assertThrows(IllegalArgumentException.class, () -> settings(Map.of("oncepay:logRetentionDays", "42")));
        assertThrows(IllegalArgumentException.class, () -> settings(Map.of("oncepay:chargeConcurrency", "0")));
        assertThrows(IllegalArgumentException.class, () -> settings(Map.of("oncepay:memoryMb", "64")));
    }

    /**
     * Each function has its own memory (charge, webhook, reconcile, charge worker, event delivery);
     * {@code memoryMb} sets them all, and a function's own key wins over it. Lambda's range is checked for each.
     */
    @Test
    void memoryIsPerFunctionWithOneKeyForAll() {
        OncepaySettings jvm = settings(Map.of("oncepay:runtime", "jvm"));
        assertEquals(List.of(1024, 768, 1024, 1024, 768), memory(jvm));
        assertEquals(List.of(256, 256, 256, 256, 256), memory(settings(Map.of())), "native");
        assertEquals(List.of(2048, 2048, 2048, 2048, 2048), memory(settings(Map.of("oncepay:runtime", "jvm", "oncepay:memoryMb", "2048"))));
        assertEquals(List.of(1769, 2048, 2048, 2048, 2048), memory(settings(Map.of("oncepay:runtime", "jvm", "oncepay:memoryMb", "2048",
                "oncepay:chargeMemoryMb", "1769"))));
        assertEquals(List.of(1024, 512, 1024, 1024, 768), memory(settings(Map.of("oncepay:runtime", "jvm", "oncepay:webhookMemoryMb", "512"))));
        assertEquals(List.of(1024, 768, 1024, 1536, 768), memory(settings(Map.of("oncepay:runtime", "jvm",
                "oncepay:chargeWorkerMemoryMb", "1536"))));
        assertEquals(List.of(1024, 768, 1024, 1024, 512), memory(settings(Map.of("oncepay:runtime", "jvm",
                "oncepay:eventDeliveryMemoryMb", "512"))));
        assertEquals(List.of(128, 10240, 256, 256, 256), memory(settings(Map.of("oncepay:chargeMemoryMb", "128",
                "oncepay:webhookMemoryMb", "10240"))), "the range's ends");
        for (Map.Entry<String, String> bad : List.of(Map.entry("oncepay:memoryMb", "127"), Map.entry("oncepay:chargeMemoryMb", "10241"),
                Map.entry("oncepay:webhookMemoryMb", "64"), Map.entry("oncepay:reconcileMemoryMb", "0"),
                Map.entry("oncepay:chargeWorkerMemoryMb", "100"), Map.entry("oncepay:eventDeliveryMemoryMb", "100"))) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> settings(Map.of(bad.getKey(), bad.getValue())),
                    bad.toString());
            assertTrue(e.getMessage().contains("128..10240"), e.getMessage());
        }
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> settings(Map.of("oncepay:reconcileMemoryMb", "20000")));
        assertTrue(e.getMessage().startsWith("oncepay:reconcileMemoryMb"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> settings(Map.of("oncepay:chargeWorkerMemoryMb", "20000")));
        assertTrue(e.getMessage().startsWith("oncepay:chargeWorkerMemoryMb"), e.getMessage());
    }

    private static List<Integer> memory(OncepaySettings settings) {
        return DeploymentSettings.FUNCTIONS.stream().map(settings::memoryMb).toList();
    }

    /**
     * The bulkhead leaves half the charge sandboxes to other accounts unless told otherwise; with
     * one account, a fifth to requests that need no provider.
     */
    @Test
    void providerMaxInFlightDefaultsToAShareOfTheChargeSandboxes() {
        assertEquals(Optional.of(40), settings(Map.of()).providerMaxInFlight());
        assertEquals(Optional.of(5), settings(Map.of("oncepay:chargeConcurrency", "7")).providerMaxInFlight());
        assertEquals(Optional.of(1), settings(Map.of("oncepay:chargeConcurrency", "2")).providerMaxInFlight());
        assertEquals(Optional.of(1), settings(Map.of("oncepay:chargeConcurrency", "1")).providerMaxInFlight());
        String second = "[{\"name\":\"stripe-eu\",\"provider\":\"stripe\",\"url\":\"https://api.stripe.com\"}]";
        assertEquals(Optional.of(25), settings(Map.of("oncepay:accounts", second)).providerMaxInFlight());
        assertEquals(Optional.of(3), settings(Map.of("oncepay:accounts", second, "oncepay:chargeConcurrency", "7"))
                .providerMaxInFlight());
        // Unreserved charge: nothing to take half of, so the application's own default applies.
        assertEquals(Optional.empty(), settings(Map.of("oncepay:chargeConcurrency", "none")).providerMaxInFlight());
    }

    @Test
    void providerMaxInFlightMayBeGiven() {
        assertEquals(Optional.of(10), settings(Map.of("oncepay:providerMaxInFlight", "10")).providerMaxInFlight());
        assertEquals(Optional.of(49), settings(Map.of("oncepay:providerMaxInFlight", "49")).providerMaxInFlight());
        assertEquals(Optional.of(40), settings(Map.of("oncepay:chargeConcurrency", "none",
                "oncepay:providerMaxInFlight", "40")).providerMaxInFlight());
        assertEquals(Optional.of(5), settings(Map.of("oncepay:chargeConcurrency", "6",
                "oncepay:providerMaxInFlight", "5")).providerMaxInFlight());
    }

    /** Below one nothing is ever called; at or above charge's sandboxes one slow account can hold them all. */
    @Test
    void providerMaxInFlightMustLeaveChargeSandboxesToOthers() {
        Map<Map<String, Object>, String> refused = new LinkedHashMap<>();
        refused.put(Map.of("oncepay:providerMaxInFlight", "0"), "at least 1");
        refused.put(Map.of("oncepay:providerMaxInFlight", "-3"), "at least 1");
        refused.put(Map.of("oncepay:chargeConcurrency", "none", "oncepay:providerMaxInFlight", "0"), "at least 1");
        refused.put(Map.of("oncepay:providerMaxInFlight", "50"), "below oncepay:chargeConcurrency (50)");
        refused.put(Map.of("oncepay:providerMaxInFlight", "80"), "below oncepay:chargeConcurrency (50)");
        refused.put(Map.of("oncepay:chargeConcurrency", "10", "oncepay:providerMaxInFlight", "10"),
                "below oncepay:chargeConcurrency (10)");
        refused.put(Map.of("oncepay:chargeConcurrency", "2", "oncepay:providerMaxInFlight", "2"),
                "below oncepay:chargeConcurrency (2)");
        refused.forEach((context, problem) -> {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> settings(context),
                    context.toString());
            assertTrue(e.getMessage().contains("oncepay:providerMaxInFlight") && e.getMessage().contains(problem),
                    e.getMessage());
        });
        assertThrows(NumberFormatException.class, () -> settings(Map.of("oncepay:providerMaxInFlight", "many")));
    }

    /** From {@code -c} a context value is a string; from {@code cdk.json} a structure. Both read alike. */
    @Test
    void accountsAndTenantsComeAsJsonTextOrAsStructure() {
        String accounts = "[{\"name\": \"stripe-eu\", \"provider\": \"stripe\", \"url\": \"https://api.stripe.com\","
                + " \"apiKeySecretArn\": \"" + ARN + "\"}]";
        OncepaySettings fromText = settings(Map.of("oncepay:accounts", accounts,
                "oncepay:tenants", "{\"Merchant-A\": \"stripe-eu\", \"b\": \"default\"}"));
        OncepaySettings fromStructure = settings(Map.of(
                "oncepay:accounts", List.of(Map.of("name", "stripe-eu", "provider", "stripe", "url", "https://api.stripe.com",
                        "apiKeySecretArn", ARN)),
                "oncepay:tenants", Map.of("Merchant-A", "stripe-eu", "b", "default")));

        ProviderAccountSettings stripe = new ProviderAccountSettings("stripe-eu", "stripe", "https://api.stripe.com",
                Optional.of(ARN), Optional.empty(), Optional.empty(), DeploymentSettings.CHARGE_QUEUE_MAX_CONCURRENCY);
        for (OncepaySettings settings : List.of(fromText, fromStructure)) {
            assertEquals(List.of(stripe), settings.accounts());
            assertEquals(Map.of("oncepay.provider.tenants.Merchant-A", "stripe-eu", "oncepay.provider.tenants.b", "default",
                    "oncepay.provider.accounts.stripe-eu.provider", "stripe",
                    "oncepay.provider.accounts.stripe-eu.url", "https://api.stripe.com"), settings.routingProperties());
        }
    }

    /** An account whose lookups trail its charges declares it; the sweep and the operator's resolution wait that long. */
    @Test
    void anAccountsLookupLagGoesToTheProviderRouting() {
        OncepaySettings settings = settings(Map.of("oncepay:accounts", "[{\"name\": \"psp-slow\", \"provider\": \"psp\","
                + " \"url\": \"https://psp.example\", \"lookupLag\": \"PT15M\"}]"));
        assertEquals(Optional.of("PT15M"), settings.accounts().get(0).lookupLag());
        assertEquals("PT15M", settings.routingProperties().get("oncepay.provider.accounts.psp-slow.lookup-lag"));
    }

    /** As -c text (comma-separated, or a JSON array) or as a cdk.json list; only charge binds orders, so only charge is told. */
    @Test
    void unguardedTenantsReachChargeOnly() {
        Map<String, String> unguarded = Map.of("oncepay.orders.tenants.merchant-instalments.once-per-reference", "false",
                "oncepay.orders.tenants.Org:7.once-per-reference", "false");
        for (Object value : List.of("merchant-instalments, Org:7", "[\"merchant-instalments\", \"Org:7\"]",
                List.of("Org:7", "merchant-instalments", "Org:7"))) {
            OncepaySettings settings = settings(Map.of("oncepay:ordersUnguarded", value));
            assertEquals(Set.of("merchant-instalments", "Org:7"), settings.ordersUnguarded(), value.toString());
            assertEquals(unguarded, settings.plainProperties(DeploymentSettings.FUNCTION_CHARGE), value.toString());
            assertEquals(Map.of(), settings.plainProperties(DeploymentSettings.FUNCTION_RECONCILE), value.toString());
            assertEquals(Map.of(), settings.plainProperties(DeploymentSettings.FUNCTION_WEBHOOK), value.toString());
        }
        assertEquals(Map.of("oncepay.orders.once-per-reference", "false"),
                settings(Map.of("oncepay:ordersGuardedByDefault", "false")).plainProperties(DeploymentSettings.FUNCTION_CHARGE));
        assertEquals(Map.of(), settings(Map.of("oncepay:ordersGuardedByDefault", true)).plainProperties(DeploymentSettings.FUNCTION_CHARGE),
                "true is the app's default: nothing to say");
    }

    @Test
    void rejectsOrderSettingsThatAreNotTenantsOrBooleans() {
        Map<Map<String, Object>, String> refused = new LinkedHashMap<>();
        refused.put(Map.of("oncepay:ordersUnguarded", "merchant-a, a.b"), "oncepay:ordersUnguarded: 'a.b' is not a tenant id");
        refused.put(Map.of("oncepay:ordersUnguarded", "[\"merchant a\"]"), "oncepay:ordersUnguarded: 'merchant a' is not a tenant id");
        refused.put(Map.of("oncepay:ordersUnguarded", List.of(7)), "oncepay:ordersUnguarded: 7 is not a string");
        refused.put(Map.of("oncepay:ordersUnguarded", Map.of("merchant-a", false)), "oncepay:ordersUnguarded must be a list");
        refused.put(Map.of("oncepay:ordersUnguarded", "[\"merchant-a\""), "oncepay:ordersUnguarded is not valid JSON");
        refused.put(Map.of("oncepay:ordersGuardedByDefault", "no"), "oncepay:ordersGuardedByDefault must be true or false");
        refused.put(Map.of("oncepay:ordersGuardedByDefault", "TRUE"), "oncepay:ordersGuardedByDefault must be true or false");
        refused.forEach((context, problem) -> {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> settings(context), context.toString());
            assertTrue(e.getMessage().startsWith(problem), e.getMessage());
        });
    }

    @Test
    void rejectsAccountsAndTenantsThatCannotWork() {
        String valid = "\"provider\": \"stripe\", \"url\": \"https://api.stripe.com\"";
        Map<String, String> refused = new LinkedHashMap<>();
        refused.put("[{\"name\": \"default\", " + valid + "}]", "default account");
        refused.put("[{\"name\": \"a\", " + valid + "}, {\"name\": \"a\", " + valid + "}]", "twice");
        refused.put("[{\"name\": \"a.b\", " + valid + "}]", "name");
        refused.put("[{\"name\": \"a\", \"provider\": \"stripe\", \"url\": \"http://api.stripe.com\"}]", "https");
        refused.put("[{\"name\": \"a\", \"url\": \"https://api.stripe.com\"}]", "provider");
        refused.put("[{\"name\": \"a\", " + valid + ", \"apiKeySecretArn\": \"oncepay/a\"}]", "complete");
        refused.put("[{\"name\": \"a\", " + valid + ", \"apiKey\": \"sk_live\"}]", "unknown: [apiKey]");
        refused.put("[{\"name\": \"a\", " + valid + ", \"lookupLag\": \"15 minutes\"}]", "lookupLag");
        refused.put("[{\"name\": \"a\", " + valid + ", \"lookupLag\": \"-PT1M\"}]", "lookupLag");
        refused.put("{\"name\": \"a\"}", "array");
        refused.put("[{\"name\": ", "not valid JSON");
        refused.forEach((accounts, problem) -> {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> settings(Map.of("oncepay:accounts", accounts)), accounts);
            assertTrue(e.getMessage().contains(problem), e.getMessage());
        });
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> settings(Map.of("oncepay:tenants", "{\"t\": \"nowhere\"}")));
        assertTrue(e.getMessage().contains("'nowhere'"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> settings(Map.of("oncepay:tenants", "{\"a.b\": \"default\"}")));
        assertTrue(e.getMessage().contains("'a.b'"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> settings(Map.of("oncepay:apiKeySecretArn", "oncepay")));
        assertTrue(e.getMessage().contains("apiKeySecretArn"), e.getMessage());
    }

    /**
     * Each account's queue concurrency, the default account's by its own key, as -c text or a
     * cdk.json structure; the worker reserves their sum, unless told to reserve none.
     */
    @Test
    void eachAccountsQueueConcurrencyAddsUpToTheWorkersReservation() {
        String accounts = "[{\"name\": \"stripe-eu\", \"provider\": \"stripe\", \"url\": \"https://api.stripe.com\","
                + " \"queueConcurrency\": 20}, {\"name\": \"acme\", \"provider\": \"sim\", \"url\": \"https://psp.acme.example\"}]";
        OncepaySettings fromText = settings(Map.of("oncepay:accounts", accounts, "oncepay:queueConcurrency", "2"));
        OncepaySettings fromStructure = settings(Map.of("oncepay:queueConcurrency", 2, "oncepay:accounts", List.of(
                Map.of("name", "stripe-eu", "provider", "stripe", "url", "https://api.stripe.com", "queueConcurrency", 20),
                Map.of("name", "acme", "provider", "sim", "url", "https://psp.acme.example"))));
        for (OncepaySettings settings : List.of(fromText, fromStructure)) {
            Map<String, Integer> concurrency = new LinkedHashMap<>();
            concurrency.put(DeploymentSettings.DEFAULT_ACCOUNT, 2);
            concurrency.put("stripe-eu", 20);
            concurrency.put("acme", DeploymentSettings.CHARGE_QUEUE_MAX_CONCURRENCY);
            assertEquals(concurrency, settings.chargeQueueConcurrency());
            assertEquals(List.copyOf(concurrency.keySet()), List.copyOf(settings.chargeQueueConcurrency().keySet()), "default first");
            assertEquals(Optional.of(27), settings.reservedConcurrency(DeploymentSettings.FUNCTION_CHARGE_WORKER));
        }
        assertEquals(Optional.empty(), settings(Map.of("oncepay:chargeWorkerConcurrency", "none"))
                .reservedConcurrency(DeploymentSettings.FUNCTION_CHARGE_WORKER));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> settings(Map.of("oncepay:chargeWorkerConcurrency", "12")));
        assertTrue(e.getMessage().startsWith("oncepay:chargeWorkerConcurrency is the sum of the accounts' queue concurrency")
                && e.getMessage().contains("not 12"), e.getMessage());
    }

    /** An event-source mapping's maximum concurrency is 2..1000: anything else is refused at synthesis, named. */
    @Test
    void queueConcurrencyMustBeWhatAnEventSourceMappingAllows() {
        String valid = "\"name\": \"stripe-eu\", \"provider\": \"stripe\", \"url\": \"https://api.stripe.com\"";
        assertEquals(1000, settings(Map.of("oncepay:accounts", "[{" + valid + ", \"queueConcurrency\": 1000}]"))
                .chargeQueueConcurrency().get("stripe-eu"));
        Map<Map<String, Object>, String> refused = new LinkedHashMap<>();
        refused.put(Map.of("oncepay:queueConcurrency", "1"), "oncepay:queueConcurrency must be within 2..1000");
        refused.put(Map.of("oncepay:queueConcurrency", "1001"), "oncepay:queueConcurrency must be within 2..1000");
        refused.put(Map.of("oncepay:accounts", "[{" + valid + ", \"queueConcurrency\": 0}]"),
                "oncepay:accounts: account 'stripe-eu': queueConcurrency must be within 2..1000");
        refused.put(Map.of("oncepay:accounts", "[{" + valid + ", \"queueConcurrency\": 5000}]"),
                "oncepay:accounts: account 'stripe-eu': queueConcurrency must be within 2..1000");
        refused.put(Map.of("oncepay:accounts", "[{" + valid + ", \"queueConcurrency\": \"5\"}]"),
                "oncepay:accounts: account 'stripe-eu': queueConcurrency must be a whole number");
        refused.put(Map.of("oncepay:accounts", "[{" + valid + ", \"queueConcurrency\": 2.5}]"),
                "oncepay:accounts: account 'stripe-eu': queueConcurrency must be a whole number");
        refused.forEach((context, problem) -> {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> settings(context), context.toString());
            assertTrue(e.getMessage().startsWith(problem), e.getMessage());
        });
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> settings(Map.of("oncepay:queueConcurrency", "1")));
        assertTrue(e.getMessage().contains("maximum concurrency of an SQS event-source mapping") && e.getMessage().endsWith("not 1"),
                e.getMessage());
    }

    /** An account's queues are named after it; SQS allows 80 characters, so its dead-letter queue's name must fit. */
    @Test
    void anAccountNameMustFitItsQueuesNames() {
        String longest = "a".repeat(60);
        String account = "\"provider\": \"stripe\", \"url\": \"https://api.stripe.com\"";
        assertEquals(80, DeploymentSettings.chargeDeadLetterQueueName(longest).length());
        assertEquals(List.of(longest), settings(Map.of("oncepay:accounts", "[{\"name\": \"" + longest + "\", " + account + "}]"))
                .accounts().stream().map(ProviderAccountSettings::name).toList());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> settings(Map.of("oncepay:accounts", "[{\"name\": \"" + longest + "b\", " + account + "}]")));
        assertTrue(e.getMessage().contains("too long for its dead-letter queue's name") && e.getMessage().contains("80"),
                e.getMessage());
    }

    /**
     * Which tenants' charges are queued when their request does not say: as -c text (comma-separated,
     * or a JSON array) or a cdk.json list, for charge only, the one function that takes requests.
     */
    @Test
    void respondAsyncTenantsReachChargeOnly() {
        Map<String, String> queued = Map.of("oncepay.queue.tenants.merchant-batch.respond-async", "true",
                "oncepay.queue.tenants.Org:7.respond-async", "true");
        for (Object value : List.of("merchant-batch, Org:7", "[\"merchant-batch\", \"Org:7\"]", List.of("Org:7", "merchant-batch"))) {
            OncepaySettings settings = settings(Map.of("oncepay:respondAsyncTenants", value));
            assertEquals(Set.of("merchant-batch", "Org:7"), settings.respondAsyncTenants(), value.toString());
            assertEquals(queued, settings.plainProperties(DeploymentSettings.FUNCTION_CHARGE), value.toString());
            for (String other : List.of(DeploymentSettings.FUNCTION_CHARGE_WORKER, DeploymentSettings.FUNCTION_RECONCILE,
                    DeploymentSettings.FUNCTION_WEBHOOK, DeploymentSettings.FUNCTION_EVENT_DELIVERY)) {
                assertEquals(Map.of(), settings.plainProperties(other), other);
            }
        }
        assertEquals(Map.of("oncepay.queue.respond-async", "true"),
                settings(Map.of("oncepay:respondAsyncByDefault", "true")).plainProperties(DeploymentSettings.FUNCTION_CHARGE));
        assertEquals(Map.of(), settings(Map.of("oncepay:respondAsyncByDefault", false)).plainProperties(DeploymentSettings.FUNCTION_CHARGE),
                "false is the app's default: nothing to say");
        Map<Map<String, Object>, String> refused = new LinkedHashMap<>();
        refused.put(Map.of("oncepay:respondAsyncTenants", "merchant-a, a.b"), "oncepay:respondAsyncTenants: 'a.b' is not a tenant id");
        refused.put(Map.of("oncepay:respondAsyncTenants", List.of(7)), "oncepay:respondAsyncTenants: 7 is not a string");
        refused.put(Map.of("oncepay:respondAsyncByDefault", "yes"), "oncepay:respondAsyncByDefault must be true or false");
        refused.forEach((context, problem) -> {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> settings(context), context.toString());
            assertTrue(e.getMessage().startsWith(problem), e.getMessage());
        });
        assertThrows(IllegalArgumentException.class, () -> settings(Map.of("oncepay:alarmChargeQueueAgeMinutes", "0")));
    }

    /**
     * Merchant endpoints as -c text or a cdk.json structure: sorted by tenant and endpoint, each url and
     * (when given) its types reaching the functions as flat properties; the secret only by its ARN.
     */
    @Test
    void eventEndpointsComeAsJsonTextOrAsStructure() {
        String text = "{\"merchant-b\": {\"orders\": {\"url\": \"https://b.example/hooks/oncepay\"}},"
                + " \"Org:7\": {\"ledger\": {\"url\": \"https://ledger.example:8443/in?src=oncepay\","
                + " \"types\": [\"refund.failed\", \"payment.succeeded\"], \"secretArn\": \"" + ARN + "\"},"
                + " \"alerts\": {\"url\": \"https://alerts.example/\", \"types\": [\"payment.needs_review\"]}}}";
        Map<String, Object> structure = Map.of(
                "merchant-b", Map.of("orders", Map.of("url", "https://b.example/hooks/oncepay")),
                "Org:7", Map.of(
                        "ledger", Map.of("url", "https://ledger.example:8443/in?src=oncepay",
                                "types", List.of("refund.failed", "payment.succeeded"), "secretArn", ARN),
                        "alerts", Map.of("url", "https://alerts.example/", "types", List.of("payment.needs_review"))));
        List<EventEndpointSettings> expected = List.of(
                new EventEndpointSettings("Org:7", "alerts", "https://alerts.example/", List.of("payment.needs_review"), Optional.empty()),
                new EventEndpointSettings("Org:7", "ledger", "https://ledger.example:8443/in?src=oncepay",
                        List.of("refund.failed", "payment.succeeded"), Optional.of(ARN)),
                new EventEndpointSettings("merchant-b", "orders", "https://b.example/hooks/oncepay", List.of(), Optional.empty()));
        for (Object value : List.of(text, structure)) {
            OncepaySettings settings = settings(Map.of("oncepay:eventEndpoints", value));
            assertEquals(expected, settings.eventEndpoints(), value.toString());
            assertEquals(Map.of(
                    "oncepay.events.endpoints.\"Org:7\".\"alerts\".url", "https://alerts.example/",
                    "oncepay.events.endpoints.\"Org:7\".\"alerts\".types", "payment.needs_review",
                    "oncepay.events.endpoints.\"Org:7\".\"ledger\".url", "https://ledger.example:8443/in?src=oncepay",
                    "oncepay.events.endpoints.\"Org:7\".\"ledger\".types", "refund.failed,payment.succeeded",
                    "oncepay.events.endpoints.\"merchant-b\".\"orders\".url", "https://b.example/hooks/oncepay"),
                    settings.eventEndpointProperties(), value.toString());
            assertEquals("oncepay.events.endpoints.\"Org:7\".\"ledger\".secrets", settings.eventEndpoints().get(1).secretsProperty());
            // Endpoints reach the functions by their own variable, not the provider routing.
            for (String function : DeploymentSettings.FUNCTIONS) {
                assertEquals(Map.of(), settings.plainProperties(function), function);
            }
        }
        assertEquals(8, EventEndpointSettings.TYPES.size());
    }

    /** A plain-http endpoint never deploys: synthesis stops, naming the tenant, the endpoint and the URL. */
    @Test
    void anEventEndpointMustBeHttps() {
        for (String url : List.of("http://b.example/hooks", "HTTP://b.example/hooks", "ftp://b.example", "b.example/hooks",
                "https://", "https:///path", "https://b.example/a b", "https://b.example/#frag")) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> settings(Map.of("oncepay:eventEndpoints",
                    Map.of("merchant-b", Map.of("orders", Map.of("url", url))))), url);
            assertTrue(e.getMessage().startsWith("oncepay:eventEndpoints: tenant 'merchant-b', endpoint 'orders': url must be an"
                    + " https:// URL") && e.getMessage().contains(url) && e.getMessage().contains(DeploymentSettings.EVENTS_ALLOW_HTTP),
                    e.getMessage());
        }
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> settings(Map.of("oncepay:eventEndpoints", "{\"merchant-b\": {\"orders\": {}}}")));
        assertTrue(e.getMessage().contains("url must be an https:// URL"), e.getMessage());
    }

    @Test
    void rejectsEventEndpointsThatCannotWork() {
        String url = "\"url\": \"https://b.example/hooks\"";
        Map<String, String> refused = new LinkedHashMap<>();
        refused.put("{\"a.b\": {\"orders\": {" + url + "}}}", "oncepay:eventEndpoints: tenant 'a.b' is not a tenant id");
        refused.put("{\"merchant-b\": {\"or.ders\": {" + url + "}}}",
                "oncepay:eventEndpoints: tenant 'merchant-b', endpoint 'or.ders': the endpoint id must match");
        refused.put("{\"merchant-b\": {\"orders\": {" + url + ", \"types\": [\"payment.settled\"]}}}",
                "oncepay:eventEndpoints: tenant 'merchant-b', endpoint 'orders': unknown event type 'payment.settled'");
        refused.put("{\"merchant-b\": {\"orders\": {" + url + ", \"types\": []}}}",
                "oncepay:eventEndpoints: tenant 'merchant-b', endpoint 'orders': types must be a non-empty JSON array");
        refused.put("{\"merchant-b\": {\"orders\": {" + url + ", \"types\": \"payment.failed\"}}}",
                "oncepay:eventEndpoints: tenant 'merchant-b', endpoint 'orders': types must be a non-empty JSON array");
        refused.put("{\"merchant-b\": {\"orders\": {" + url + ", \"types\": [\"payment.failed\", \"payment.failed\"]}}}",
                "oncepay:eventEndpoints: tenant 'merchant-b', endpoint 'orders': types lists a type twice");
        refused.put("{\"merchant-b\": {\"orders\": {" + url + ", \"types\": [7]}}}",
                "oncepay:eventEndpoints: tenant 'merchant-b', endpoint 'orders': types: 7 is not a string");
        refused.put("{\"merchant-b\": {\"orders\": {" + url + ", \"secret\": \"whsec_1\"}}}",
                "oncepay:eventEndpoints: tenant 'merchant-b', endpoint 'orders' must be an object of [url, types, secretArn]; unknown: [secret]");
        refused.put("{\"merchant-b\": {\"orders\": {" + url + ", \"secretArn\": \"oncepay/orders\"}}}",
                "oncepay:eventEndpoints: tenant 'merchant-b', endpoint 'orders': secretArn must be a complete Secrets Manager secret ARN");
        refused.put("{\"merchant-b\": {\"orders\": \"https://b.example/hooks\"}}",
                "oncepay:eventEndpoints: tenant 'merchant-b', endpoint 'orders' must be an object");
        refused.put("{\"merchant-b\": {}}", "oncepay:eventEndpoints must be a JSON object of tenant id");
        refused.put("[{\"merchant-b\": {}}]", "oncepay:eventEndpoints must be a JSON object of tenant id");
        refused.put("{\"merchant-b\": ", "oncepay:eventEndpoints is not valid JSON");
        refused.forEach((endpoints, problem) -> {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> settings(Map.of("oncepay:eventEndpoints", endpoints)), endpoints);
            assertTrue(e.getMessage().startsWith(problem), e.getMessage());
        });
    }

    /**
     * The event queue's concurrency is its mapping's maximum (2..1000), and event-delivery reserves
     * it, unless told to reserve none; the age alarm's threshold is at least a minute.
     */
    @Test
    void eventConcurrencyIsTheMappingsMaximumAndEventDeliverysReservation() {
        OncepaySettings settings = settings(Map.of("oncepay:eventConcurrency", "40"));
        assertEquals(40, settings.eventConcurrency());
        assertEquals(Optional.of(40), settings.reservedConcurrency(DeploymentSettings.FUNCTION_EVENT_DELIVERY));
        assertEquals(Optional.empty(), settings(Map.of("oncepay:eventDeliveryConcurrency", "none"))
                .reservedConcurrency(DeploymentSettings.FUNCTION_EVENT_DELIVERY));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> settings(Map.of("oncepay:eventDeliveryConcurrency", "12")));
        assertTrue(e.getMessage().startsWith("oncepay:eventDeliveryConcurrency is the event queue's concurrency (oncepay:eventConcurrency)")
                && e.getMessage().contains("not 12"), e.getMessage());
        for (String bad : List.of("1", "1001")) {
            e = assertThrows(IllegalArgumentException.class, () -> settings(Map.of("oncepay:eventConcurrency", bad)), bad);
            assertTrue(e.getMessage().startsWith("oncepay:eventConcurrency must be within 2..1000"), e.getMessage());
        }
        assertEquals(45, settings(Map.of("oncepay:alarmEventQueueAgeMinutes", "45")).alarmEventQueueAgeMinutes());
        assertThrows(IllegalArgumentException.class, () -> settings(Map.of("oncepay:alarmEventQueueAgeMinutes", "0")));
        assertFalse(settings(Map.of("oncepay:deliveriesIndex", "false")).deliveriesIndex());
        assertThrows(IllegalArgumentException.class, () -> settings(Map.of("oncepay:deliveriesIndex", "no")));
    }

    /** The one secret that held everything is split: a deployer upgrading is told what to give instead. */
    @Test
    void theOldSingleSecretIsRefusedWithWhatReplacesIt() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> settings(Map.of("oncepay:secretArn", ARN)));
        assertTrue(e.getMessage().contains("oncepay:apiKeySecretArn") && e.getMessage().contains("oncepay:signingSecretArn"),
                e.getMessage());
    }

    @Test
    void withoutAFunctionZipSynthesisSaysHowToGetOne() {
        OncepaySettings settings = settings(Map.of("oncepay:functionZip", dir.resolve("missing.zip").toString()));
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> FunctionCode.of(settings));
        assertTrue(e.getMessage().contains("./native-build.sh"), e.getMessage());
        assertTrue(e.getMessage().contains("oncepay:placeholderCode=true"), e.getMessage());
    }

    @Test
    void theZipMustMatchTheRuntime() throws Exception {
        Path jvmZip = Synth.zip(dir, false);
        Path nativeZip = Synth.zip(dir, true);

        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> FunctionCode.of(settings(Map.of("oncepay:functionZip", jvmZip.toString()))));
        assertTrue(e.getMessage().contains("JVM build"), e.getMessage());
        e = assertThrows(IllegalStateException.class, () -> FunctionCode.of(settings(
                Map.of("oncepay:functionZip", nativeZip.toString(), "oncepay:runtime", "jvm"))));
        assertTrue(e.getMessage().contains("native build"), e.getMessage());
    }

    private static OncepaySettings settings(Map<String, Object> context) {
        return OncepaySettings.from(context::get);
    }
}
