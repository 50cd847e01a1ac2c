package dev.oncepay.local;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class LocalRunOptionsTest {

    @Test
    void devModeServesChargeFromTheDevJvmInsteadOfSandboxes() {
        assertEquals(0, LocalRunOptions.parse(List.of(), Map.of()).devPort(), "no dev mode unless asked");
        LocalRunOptions o = LocalRunOptions.parse(List.of("--sandboxes", "charge=3,webhook=2", "--dev-port", "19301",
                "--dev-env", "target/x.env"), Map.of());
        assertEquals(19301, o.devPort());
        assertEquals(Path.of("target/x.env"), o.devEnvironment());
        assertEquals(Map.of("charge", 0, "webhook", 2, "reconcile", 1, "charge-worker", 5, "event-delivery", 2), o.sandboxes(),
                "the dev-mode JVM is charge's one execution environment");
    }

    @Test
    void defaultsMatchTheDesign() {
        LocalRunOptions o = LocalRunOptions.parse(List.of(), Map.of());
        assertEquals(8080, o.apiPort());
        assertEquals(8090, o.simPort());
        assertEquals(8000, o.dynamoPort(), "the store fault proxy, in front of dynalite");
        assertEquals(0, o.dynalitePort(), "dynalite on any free port behind it");
        assertEquals(7, LocalRunOptions.parse(List.of("--store-seed", "7"), Map.of()).storeSeed());
        assertEquals(Map.of("charge", 2, "webhook", 1, "reconcile", 1, "charge-worker", 5, "event-delivery", 2), o.sandboxes());
        assertEquals(Duration.ofSeconds(28), o.timeout("charge"));
        assertEquals(Duration.ofSeconds(20), o.timeout("webhook"));
        assertEquals(Duration.ofSeconds(90), o.timeout("reconcile"));
        assertEquals(Duration.ofSeconds(30), o.timeout("charge-worker"));
        assertEquals(Duration.ofSeconds(20), o.timeout("event-delivery"));
        assertEquals(9324, o.queuePort(), "ElasticMQ's own");
        assertEquals(Duration.ofSeconds(180), o.queueVisibility(), "six times the worker's timeout, as infra/");
        assertEquals(1, o.queueBatchSize());
        assertEquals(5, o.queueConcurrency());
        assertEquals(Set.of(), o.respondAsyncTenants(), "every tenant answered at once unless it asks");
        assertEquals(Duration.ofSeconds(29), o.integrationTimeout("charge"), "a second more, at most 29 s");
        assertEquals(Duration.ofSeconds(21), o.integrationTimeout("webhook"));
        assertEquals(Duration.ofMillis(500),
                LocalRunOptions.parse(List.of("--integration-timeout", "500ms"), Map.of()).integrationTimeout("charge"));
        assertEquals(Duration.ofSeconds(60), o.reconcileEvery());
        assertEquals(Path.of("oncepay-functions/target/function.zip"), o.app());
        assertEquals("local-sim-secret", o.webhookSecret());
        assertNull(o.dynamoPath());
        assertEquals("sim", o.provider(), "the generic PSP stays the default");
        assertEquals(Map.of(), o.tenantProviders());
        assertNull(o.providerUrl(), "the simulator");
        assertEquals("whsec_local_stripe_secret", o.stripeWebhookSecret());
        assertEquals("sk_test_oncepay_local", o.stripeApiKey());
        assertEquals("rk_test_abc", LocalRunOptions.parse(List.of(), Map.of("ONCEPAY_LOCAL_STRIPE_API_KEY", "rk_test_abc"))
                .stripeApiKey());
        assertEquals(LocalRunOptions.Cds.AUTO, o.cds());
    }

    @Test
    void theQueuesAreSetFromFlagsAndTheWorkerRunsWhatItsMappingsMayRunAtOnce() {
        LocalRunOptions o = LocalRunOptions.parse(List.of("--queue-port", "19324", "--queue-visibility", "45s",
                "--queue-batch-size", "3", "--queue-concurrency", "2", "--respond-async", "merchant-q",
                "--respond-async=merchant-r, org:9"), Map.of("ONCEPAY_LOCAL_RESPOND_ASYNC", "merchant-p"));
        assertEquals(19324, o.queuePort());
        assertEquals(Duration.ofSeconds(45), o.queueVisibility());
        assertEquals(3, o.queueBatchSize());
        assertEquals(2, o.queueConcurrency());
        assertEquals(Set.of("merchant-p", "merchant-q", "merchant-r", "org:9"), o.respondAsyncTenants());
        assertEquals(2, o.sandboxCount("charge-worker"), "one account's mapping, at most 2 at once");
        assertEquals(6, LocalRunOptions.parse(List.of("--queue-concurrency", "2", "--tenant-provider",
                "merchant-b=stripe,merchant-c=stripe2"), Map.of()).sandboxCount("charge-worker"), "three accounts' mappings");
        assertEquals(10, LocalRunOptions.parse(List.of("--tenant-provider", "merchant-b=stripe"), Map.of())
                .sandboxCount("charge-worker"));
        assertEquals(1, LocalRunOptions.parse(List.of("--sandboxes", "charge-worker=1", "--queue-concurrency", "4"), Map.of())
                .sandboxCount("charge-worker"), "named, the count is taken as it is");
        assertEquals(0, LocalRunOptions.parse(List.of("--queue-concurrency", "4"),
                Map.of("ONCEPAY_LOCAL_SANDBOXES", "charge-worker=0")).sandboxCount("charge-worker"));
        LocalRunOptions drill = LocalRunOptions.parse(List.of("--queue-visibility", "5s", "--timeout", "charge-worker=5s"),
                Map.of());
        assertEquals(Duration.ofSeconds(5), drill.queueVisibility(), "a drill shortens both");
        assertTrue(LocalRunOptions.usage().contains("--queue-visibility D"));
        assertTrue(LocalRunOptions.usage().contains("--respond-async T"));
    }

    @Test
    void eventsRunUnlessTurnedOffWithTheirQueueMappingAndMerchantEndpoint() {
        LocalRunOptions o = LocalRunOptions.parse(List.of(), Map.of());
        assertTrue(o.events());
        assertEquals(9420, o.merchantPort());
        assertEquals("local-merchant-secret", o.merchantSecret());
        assertEquals(2, o.eventConcurrency(), "AWS's least: two JVMs deliver twenty events at once");
        assertEquals(2, o.sandboxCount("event-delivery"), "as many as its mapping may run at once");
        assertEquals(Duration.ofSeconds(120), o.eventVisibility(), "six times event-delivery's timeout, as infra/");
        assertEquals(List.of("merchant-a", "merchant-b", "merchant-c"), o.merchantTenants());

        LocalRunOptions more = LocalRunOptions.parse(List.of("--merchant-port", "19420", "--merchant-secret", "s3cret",
                "--event-concurrency", "3", "--event-visibility", "20s", "--timeout", "event-delivery=20s",
                "--event-tenant", "merchant-z", "--tenant-provider", "merchant-s=stripe", "--respond-async", "org:9"),
                Map.of("ONCEPAY_LOCAL_EVENT_TENANT", "merchant-e"));
        assertEquals(19420, more.merchantPort());
        assertEquals("s3cret", more.merchantSecret());
        assertEquals(3, more.sandboxCount("event-delivery"));
        assertEquals(Duration.ofSeconds(20), more.eventVisibility());
        assertEquals(List.of("merchant-a", "merchant-b", "merchant-c", "merchant-e", "merchant-s", "merchant-z"),
                more.merchantTenants(), "every tenant named, but org:9: its id cannot end a URL path as it is");
        assertEquals(1, LocalRunOptions.parse(List.of("--sandboxes", "event-delivery=1"), Map.of())
                .sandboxCount("event-delivery"), "named, the count is taken as it is");

        for (LocalRunOptions off : List.of(LocalRunOptions.parse(List.of("--no-events"), Map.of()),
                LocalRunOptions.parse(List.of(), Map.of("ONCEPAY_LOCAL_NO_EVENTS", "true")))) {
            assertEquals(false, off.events());
            assertEquals(0, off.sandboxCount("event-delivery"));
            assertEquals(List.of(), off.merchantTenants());
        }
        assertTrue(LocalRunOptions.parse(List.of(), Map.of("ONCEPAY_LOCAL_NO_EVENTS", "false")).events());
        assertTrue(LocalRunOptions.usage().contains("--no-events"));
        assertTrue(LocalRunOptions.usage().contains("--merchant-port N"));
        assertTrue(message("--event-visibility", "10s").contains("--event-visibility 10s is shorter than event-delivery's"
                + " timeout (20 s)"));
        assertTrue(message("--event-concurrency", "1").contains("must be 2..16"));
        assertTrue(message("--event-tenant", "org:9").contains("must match [A-Za-z0-9_-]{1,64} to have an endpoint"));
        assertTrue(message("--merchant-secret", " ").contains("must not be empty"));
    }

    @Test
    void classDataSharingIsAutoOrOffFromTheFlagOrTheEnvironment() {
        assertEquals(LocalRunOptions.Cds.OFF, LocalRunOptions.parse(List.of("--cds", "off"), Map.of()).cds());
        assertEquals(LocalRunOptions.Cds.OFF, LocalRunOptions.parse(List.of(), Map.of("ONCEPAY_LOCAL_CDS", "OFF")).cds());
        assertEquals(LocalRunOptions.Cds.AUTO,
                LocalRunOptions.parse(List.of("--cds=auto"), Map.of("ONCEPAY_LOCAL_CDS", "off")).cds(), "the flag wins");
        assertThrows(LocalRunOptions.UsageException.class, () -> LocalRunOptions.parse(List.of("--cds", "on"), Map.of()));
        assertTrue(LocalRunOptions.usage().contains("--cds auto|off"));
    }

    @Test
    void providersAreChosenForTheDefaultAccountAndPerTenant() {
        LocalRunOptions o = LocalRunOptions.parse(List.of("--provider", "Stripe", "--tenant-provider", "merchant-b=sim",
                "--tenant-provider=merchant-c=stripe,merchant_d=sim", "--provider-url", "http://127.0.0.1:9999/",
                "--stripe-webhook-secret", "whsec_other"), Map.of());
        assertEquals("stripe", o.provider());
        assertEquals(Map.of("merchant-b", "sim", "merchant-c", "stripe", "merchant_d", "sim"), o.tenantProviders());
        assertEquals("http://127.0.0.1:9999", o.providerUrl());
        assertEquals("whsec_other", o.stripeWebhookSecret());
        assertEquals("stripe", LocalRunOptions.parse(List.of(), Map.of("ONCEPAY_LOCAL_PROVIDER", "stripe")).provider());
        assertEquals(Map.of("merchant-a", "stripe"), LocalRunOptions.parse(List.of(),
                Map.of("ONCEPAY_LOCAL_TENANT_PROVIDER", "merchant-a=stripe")).tenantProviders());
    }

    @Test
    void theOrderGuardIsTurnedOffPerTenant() {
        assertEquals(Set.of(), LocalRunOptions.parse(List.of(), Map.of()).unguardedTenants(), "every order guarded unless told");
        assertEquals(Set.of("merchant-instalments", "merchant-topups", "org:7"), LocalRunOptions.parse(List.of(
                "--unguarded-tenant", "merchant-instalments", "--unguarded-tenant=merchant-topups, org:7"), Map.of()).unguardedTenants());
        assertEquals(Set.of("merchant-x", "merchant-y"), LocalRunOptions.parse(List.of("--unguarded-tenant", "merchant-y"),
                Map.of("ONCEPAY_LOCAL_UNGUARDED_TENANT", "merchant-x")).unguardedTenants(), "the flag adds to the environment's");
        assertTrue(LocalRunOptions.usage().contains("--unguarded-tenant T"));
    }

    @Test
    void flagsOverrideTheEnvironment() {
        LocalRunOptions o = LocalRunOptions.parse(
                List.of("--api-port", "9080", "--sandboxes=charge=4", "--timeout", "reconcile=2m",
                        "--reconcile-every", "10s", "--env", "QUARKUS_LOG_LEVEL=DEBUG", "--env", "A=b=c"),
                Map.of("ONCEPAY_LOCAL_API_PORT", "7080", "ONCEPAY_LOCAL_SIM_PORT", "7090", "PATH", "/bin"));
        assertEquals(9080, o.apiPort(), "flag wins");
        assertEquals(7090, o.simPort(), "env applies");
        assertEquals(4, o.sandboxCount("charge"));
        assertEquals(1, o.sandboxCount("webhook"), "unnamed functions keep their default");
        assertEquals(Duration.ofMinutes(2), o.timeout("reconcile"));
        assertEquals(Duration.ofSeconds(10), o.reconcileEvery());
        assertEquals(Map.of("QUARKUS_LOG_LEVEL", "DEBUG", "A", "b=c"), o.env());
    }

    @Test
    void durationsReadLikeAPersonWritesThem() {
        assertEquals(Duration.ofMillis(500), LocalRunOptions.duration("500ms"));
        assertEquals(Duration.ofSeconds(10), LocalRunOptions.duration("10s"));
        assertEquals(Duration.ofSeconds(10), LocalRunOptions.duration("10"));
        assertEquals(Duration.ofMinutes(2), LocalRunOptions.duration("2m"));
        assertEquals(Duration.ofHours(1), LocalRunOptions.duration("1h"));
        assertEquals(Duration.ofSeconds(90), LocalRunOptions.duration("PT90S"));
        assertEquals(Duration.ZERO, LocalRunOptions.parse(List.of("--reconcile-every", "off"), Map.of()).reconcileEvery());
    }

    @Test
    void mistakesAreNamed() {
        assertTrue(message("--nope", "1").contains("unknown option --nope"));
        assertTrue(message("--api-port", "x").contains("not a number"));
        assertTrue(message("--api-port", "70000").contains("not a port"));
        assertTrue(message("--sandboxes", "charg=2").contains("unknown function"));
        assertTrue(message("--queue-port", "0").contains("not a port"));
        assertTrue(message("--queue-visibility", "10s").contains("--queue-visibility 10s is shorter than charge-worker's"
                + " timeout (30 s): Lambda refuses such an event-source mapping"));
        assertTrue(message("--queue-visibility", "1500ms").contains("whole seconds"));
        assertTrue(message("--queue-visibility", "13h").contains("1s to 12h"));
        assertTrue(message("--queue-batch-size", "11").contains("must be 1..10"));
        assertTrue(message("--queue-batch-size", "0").contains("must be 1..10"));
        assertTrue(message("--queue-concurrency", "1").contains("must be 2..16"), "AWS's least is 2");
        assertTrue(message("--respond-async", "merchant.a").contains("tenant 'merchant.a' must match"));
        assertTrue(message("--reconcile-every", "soon").contains("not a duration"));
        assertTrue(message("--table", "ab").contains("3-255"));
        assertTrue(message("--api-port").contains("needs a value"));
        assertTrue(message("--provider", "paypal").contains("unknown provider 'paypal' (known: sim, stripe)"));
        assertTrue(message("--tenant-provider", "merchant-a").contains("needs TENANT=PROVIDER"));
        assertTrue(message("--tenant-provider", "merchant-a=").contains("needs TENANT=PROVIDER"));
        assertTrue(message("--tenant-provider", "=stripe").contains("needs TENANT=PROVIDER"));
        assertTrue(message("--tenant-provider", "merchant-a=adyen").contains("unknown provider 'adyen'"));
        assertTrue(message("--tenant-provider", "merchant.a=stripe").contains("tenant 'merchant.a' must match [A-Za-z0-9_@:|-]{1,128}"));
        assertTrue(message("--unguarded-tenant", "merchant-a,merchant.b").contains("tenant 'merchant.b' must match"));
        assertTrue(message("--provider-url", "127.0.0.1:8090").contains("not an http(s) URL"));
        assertTrue(message("--stripe-webhook-secret", " ").contains("must not be empty"));
        assertTrue(message("--stripe-api-key", "sk_live_abc").contains("never a live one"));
        assertTrue(message("--stripe-api-key", "local-sim-key").contains("takes a Stripe test key"));
        assertNull(assertThrows(LocalRunOptions.UsageException.class,
                () -> LocalRunOptions.parse(List.of("--help"), Map.of())).getMessage(), "--help is not an error");
    }

    private static String message(String... args) {
        return assertThrows(LocalRunOptions.UsageException.class, () -> LocalRunOptions.parse(List.of(args), Map.of()))
                .getMessage();
    }
}
