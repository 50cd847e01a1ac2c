package dev.oncepay.testing;

import dev.oncepay.contract.DeploymentSettings;
import dev.oncepay.testkit.Dynalite;
import dev.oncepay.testkit.ElasticMq;
import dev.oncepay.testkit.StoreFaultProxy;

import dev.oncepay.sim.PspSimulator;
import dev.oncepay.sim.merchant.MerchantEndpoint;
import dev.oncepay.contract.TableSchema;
import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;
import java.net.URI;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.QueueAttributeName;

/**
 * Everything a function test talks to, for real: dynalite (DynamoDB API over HTTP), ElasticMQ (the
 * SQS API over HTTP: the charge queues of the default and the Stripe test account, each with its
 * dead-letter queue, and the merchant event queue with its own), the PSP simulator (HTTP), the
 * merchant endpoint of the events' test tenant {@value #EVENTS_TENANT} (HTTP, verifying with the
 * secrets application.properties gives that tenant's endpoints), and the Lambda mock event server
 * port. Started once per JVM and shared by every Quarkus application the test run boots.
 *
 * <p>The functions reach dynalite through the {@link StoreFaultProxy} (healthy unless a test sets
 * faults, and then resets them), and ElasticMQ through a proxy of its own ({@link #queueProxy()}:
 * SQS's JSON protocol names its operations as DynamoDB's does, so scripted faults such as a lost
 * {@code SendMessage} answer work alike); the test's own clients go to both directly, so checks of
 * what is stored or queued never meet an injected fault.
 */
public class TestEnvironment implements QuarkusTestResourceLifecycleManager {
    public static final String TABLE = "oncepay-test";
    private static Dynalite dynalite;
    private static StoreFaultProxy storeProxy;
    private static PspSimulator simulator;
    private static DynamoDbClient dynamo;
    /** The accounts with a charge queue: the default one and the Stripe test account. */
    public static final List<String> QUEUED_ACCOUNTS = List.of(DeploymentSettings.DEFAULT_ACCOUNT, "stripe-test");
    private static ElasticMq elasticMq;
    private static StoreFaultProxy queueProxy;
    private static SqsClient sqs;
    private static MerchantEndpoint merchant;
    /** The only tenant with merchant endpoints in the tests, so no other test's writes relay events. */
    public static final String EVENTS_TENANT = "merchant-events";
    /** Its endpoints: {@code orders} wants every event, {@code refunds} the refunds'. */
    public static final String ORDERS_ENDPOINT = "orders";
    public static final String REFUNDS_ENDPOINT = "refunds";
    /** The signing secrets application.properties gives them, newest first. */
    public static final List<String> ORDERS_SECRETS = List.of("whsec_orders_next", "whsec_orders");
    public static final List<String> REFUNDS_SECRETS = List.of("whsec_refunds");

    @Override
    public synchronized Map<String, String> start() {
        startShared();
        Map<String, String> config = new HashMap<>(Map.of(
                "quarkus.dynamodb.endpoint-override", storeProxy.endpoint(),
                "quarkus.dynamodb.aws.region", "us-east-1",
                "quarkus.dynamodb.aws.credentials.type", "static",
                "quarkus.dynamodb.aws.credentials.static-provider.access-key-id", "test",
                "quarkus.dynamodb.aws.credentials.static-provider.secret-access-key", "test",
                "oncepay.table", TABLE,
                "oncepay.provider.url", simulator.baseUrl(),
                "oncepay.queue.endpoint-override", queueProxy.endpoint(),
                "oncepay.provider.queue-url", queueUrl(DeploymentSettings.DEFAULT_ACCOUNT)));
        // The Stripe test account exists in the test profile only (application.properties); the
        // packaged function of the *IT tests runs without it.
        config.put("%test.oncepay.provider.accounts.stripe-test.queue-url", queueUrl("stripe-test"));
        config.put("%test.oncepay.events.queue-url", eventQueueUrl());
        config.put("%test." + DeploymentSettings.EVENT_ENDPOINTS_PREFIX + EVENTS_TENANT + "." + ORDERS_ENDPOINT + "."
                + DeploymentSettings.ENDPOINT_URL, merchant.url(ORDERS_ENDPOINT));
        config.put("%test." + DeploymentSettings.EVENT_ENDPOINTS_PREFIX + EVENTS_TENANT + "." + REFUNDS_ENDPOINT + "."
                + DeploymentSettings.ENDPOINT_URL, merchant.url(REFUNDS_ENDPOINT));
        return config;
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
        elasticMq = ElasticMq.start(0);
        queueProxy = StoreFaultProxy.start(elasticMq.endpoint(), 0);
        sqs = SqsClient.builder()
                .endpointOverride(URI.create(elasticMq.endpoint()))
                .region(Region.US_EAST_1)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("test", "test")))
                .build();
        for (String account : QUEUED_ACCOUNTS) {
            String dlq = sqs.createQueue(b -> b.queueName(DeploymentSettings.chargeDeadLetterQueueName(account)))
                    .queueUrl();
            String dlqArn = sqs.getQueueAttributes(b -> b.queueUrl(dlq).attributeNames(QueueAttributeName.QUEUE_ARN))
                    .attributes().get(QueueAttributeName.QUEUE_ARN);
            sqs.createQueue(b -> b.queueName(DeploymentSettings.chargeQueueName(account)).attributes(Map.of(
                    QueueAttributeName.VISIBILITY_TIMEOUT, Integer.toString(QUEUE_VISIBILITY_SECONDS),
                    QueueAttributeName.REDRIVE_POLICY, "{\"deadLetterTargetArn\":\"" + dlqArn
                            + "\",\"maxReceiveCount\":\"" + DeploymentSettings.CHARGE_QUEUE_MAX_RECEIVES + "\"}")));
        }
        String eventDlq = sqs.createQueue(b -> b.queueName(DeploymentSettings.EVENT_DEAD_LETTER_QUEUE_NAME)).queueUrl();
        String eventDlqArn = sqs.getQueueAttributes(b -> b.queueUrl(eventDlq).attributeNames(QueueAttributeName.QUEUE_ARN))
                .attributes().get(QueueAttributeName.QUEUE_ARN);
        sqs.createQueue(b -> b.queueName(DeploymentSettings.EVENT_QUEUE_NAME).attributes(Map.of(
                QueueAttributeName.VISIBILITY_TIMEOUT, Integer.toString(QUEUE_VISIBILITY_SECONDS),
                QueueAttributeName.REDRIVE_POLICY, "{\"deadLetterTargetArn\":\"" + eventDlqArn
                        + "\",\"maxReceiveCount\":\"" + DeploymentSettings.EVENT_QUEUE_MAX_RECEIVES + "\"}")));
        merchant = MerchantEndpoint.start(0, Map.of(ORDERS_ENDPOINT, ORDERS_SECRETS, REFUNDS_ENDPOINT, REFUNDS_SECRETS));
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            merchant.close();
            simulator.close();
            storeProxy.close();
            dynalite.close();
            queueProxy.close();
            elasticMq.close();
        }));
    }

    /**
     * The test queues' visibility timeout: longer than any test's worker run, so a message is never
     * handed out twice by accident; a test that needs it again ends its visibility itself.
     */
    public static final int QUEUE_VISIBILITY_SECONDS = 60;

    /** The charge queue URL of {@code account} (or, with the suffix of its name, its dead-letter queue). */
    public static String queueUrl(String queueName) {
        String name = queueName.startsWith("oncepay-charges-") ? queueName : DeploymentSettings.chargeQueueName(queueName);
        return elasticMq.endpoint() + "/000000000000/" + name;
    }

    /** The merchant event queue's URL in ElasticMQ (the test's own clients; the functions go through {@link #queueProxy()}). */
    public static String eventQueueUrl() {
        return elasticMq.endpoint() + "/000000000000/" + DeploymentSettings.EVENT_QUEUE_NAME;
    }

    public static String eventDeadLetterQueueUrl() {
        return elasticMq.endpoint() + "/000000000000/" + DeploymentSettings.EVENT_DEAD_LETTER_QUEUE_NAME;
    }

    /** The merchant backend of {@value #EVENTS_TENANT}: its endpoints' deliveries arrive here. */
    public static MerchantEndpoint merchant() {
        return merchant;
    }

    /** A client of the test's own to ElasticMQ, outside the application. */
    public static SqsClient sqs() {
        return sqs;
    }

    /** The fault layer between the functions and ElasticMQ; a test that sets faults resets them. */
    public static StoreFaultProxy queueProxy() {
        return queueProxy;
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
