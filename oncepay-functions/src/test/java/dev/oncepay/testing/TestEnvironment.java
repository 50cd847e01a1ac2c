package dev.oncepay.testing;

import dev.oncepay.testkit.Dynalite;
import dev.oncepay.testkit.StoreFaultProxy;

import dev.oncepay.sim.PspSimulator;
import dev.oncepay.contract.TableSchema;
import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;
import java.net.URI;
import java.util.Map;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * Everything a function test talks to, for real: dynalite (DynamoDB API over HTTP), the PSP
 * simulator (HTTP), and the Lambda mock event server port. Started once per JVM and shared by
 * every Quarkus application the test run boots.
 *
 * <p>The functions reach dynalite through the {@link StoreFaultProxy} (healthy unless a test sets
 * faults, and then resets them); the test's own {@link #dynamo()} client goes to dynalite directly,
 * so checks of what is stored never meet an injected fault.
 */
public class TestEnvironment implements QuarkusTestResourceLifecycleManager {
    public static final String TABLE = "oncepay-test";
    private static Dynalite dynalite;
    private static StoreFaultProxy storeProxy;
    private static PspSimulator simulator;
    private static DynamoDbClient dynamo;

    @Override
    public synchronized Map<String, String> start() {
        startShared();
        return Map.of(
                "quarkus.dynamodb.endpoint-override", storeProxy.endpoint(),
                "quarkus.dynamodb.aws.region", "us-east-1",
                "quarkus.dynamodb.aws.credentials.type", "static",
                "quarkus.dynamodb.aws.credentials.static-provider.access-key-id", "test",
                "quarkus.dynamodb.aws.credentials.static-provider.secret-access-key", "test",
                "oncepay.table", TABLE,
                "oncepay.provider.url", simulator.baseUrl());
    }

    @Override
    public void stop() {
        // Shared across applications; the JVM's exit ends them (dynalite via shutdown hook).
    }

    private static synchronized void startShared() {
        if (dynalite != null) {
            return;
        }
        dynalite = Dynalite.start();
        storeProxy = StoreFaultProxy.start(dynalite.endpoint(), 0);
        simulator = PspSimulator.start(0);
        dynamo = DynamoDbClient.builder()
                .endpointOverride(URI.create(dynalite.endpoint()))
                .region(Region.US_EAST_1)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("test", "test")))
                .build();
        TableSchema.createIfMissing(dynamo, TABLE);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            simulator.close();
            storeProxy.close();
            dynalite.close();
        }));
    }

    public static PspSimulator simulator() {
        return simulator;
    }

    /** The fault layer between the functions and dynalite; a test that sets faults resets them. */
    public static StoreFaultProxy storeProxy() {
        return storeProxy;
    }

    /** A client of the test's own, outside the application, for checking what is stored. */
    public static DynamoDbClient dynamo() {
        return dynamo;
    }

    /**
     * The mock event server's invocation URL. It is a dev service started at build time, so its
     * port (0 = free) is published in the application's config rather than set from here.
     */
    public static String lambdaEndpoint() {
        String api = org.eclipse.microprofile.config.ConfigProvider.getConfig()
                .getValue("quarkus-internal.aws-lambda.test-api", String.class);
        return (api.startsWith("http") ? api : "http://" + api);
    }
}
