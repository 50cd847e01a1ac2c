package dev.oncepay.infra;

import dev.oncepay.contract.DeploymentSettings;
import dev.oncepay.contract.Metrics;
import dev.oncepay.contract.SamTemplate;
import dev.oncepay.contract.Table;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import software.amazon.awscdk.Annotations;
import software.amazon.awscdk.Aws;
import software.amazon.awscdk.CfnOutput;
import software.amazon.awscdk.CfnParameter;
import software.amazon.awscdk.Duration;
import software.amazon.awscdk.Fn;
import software.amazon.awscdk.RemovalPolicy;
import software.amazon.awscdk.Stack;
import software.amazon.awscdk.StackProps;
import software.amazon.awscdk.aws_apigatewayv2_authorizers.HttpIamAuthorizer;
import software.amazon.awscdk.aws_apigatewayv2_authorizers.HttpJwtAuthorizer;
import software.amazon.awscdk.aws_apigatewayv2_authorizers.HttpJwtAuthorizerProps;
import software.amazon.awscdk.aws_apigatewayv2_integrations.HttpLambdaIntegration;
import software.amazon.awscdk.aws_apigatewayv2_integrations.HttpLambdaIntegrationProps;
import software.amazon.awscdk.services.apigatewayv2.AddRoutesOptions;
import software.amazon.awscdk.services.apigatewayv2.HttpApi;
import software.amazon.awscdk.services.apigatewayv2.HttpMethod;
import software.amazon.awscdk.services.apigatewayv2.HttpNoneAuthorizer;
import software.amazon.awscdk.services.apigatewayv2.IHttpRouteAuthorizer;
import software.amazon.awscdk.services.apigatewayv2.PayloadFormatVersion;
import software.amazon.awscdk.services.cloudwatch.Alarm;
import software.amazon.awscdk.services.cloudwatch.ComparisonOperator;
import software.amazon.awscdk.services.cloudwatch.IMetric;
import software.amazon.awscdk.services.cloudwatch.MathExpression;
import software.amazon.awscdk.services.cloudwatch.Metric;
import software.amazon.awscdk.services.cloudwatch.MetricOptions;
import software.amazon.awscdk.services.cloudwatch.TreatMissingData;
import software.amazon.awscdk.services.cloudwatch.actions.SnsAction;
import software.amazon.awscdk.services.dynamodb.Attribute;
import software.amazon.awscdk.services.dynamodb.AttributeType;
import software.amazon.awscdk.services.dynamodb.BillingMode;
import software.amazon.awscdk.services.dynamodb.GlobalSecondaryIndexProps;
import software.amazon.awscdk.services.dynamodb.PointInTimeRecoverySpecification;
import software.amazon.awscdk.services.dynamodb.ProjectionType;
import software.amazon.awscdk.services.events.Rule;
import software.amazon.awscdk.services.events.Schedule;
import software.amazon.awscdk.services.events.targets.LambdaFunction;
import software.amazon.awscdk.services.iam.AccountRootPrincipal;
import software.amazon.awscdk.services.iam.ArnPrincipal;
import software.amazon.awscdk.services.iam.CompositePrincipal;
import software.amazon.awscdk.services.iam.Effect;
import software.amazon.awscdk.services.iam.IPrincipal;
import software.amazon.awscdk.services.iam.PolicyStatement;
import software.amazon.awscdk.services.iam.Role;
import software.amazon.awscdk.services.lambda.Alias;
import software.amazon.awscdk.services.lambda.Architecture;
import software.amazon.awscdk.services.lambda.Code;
import software.amazon.awscdk.services.lambda.Function;
import software.amazon.awscdk.services.lambda.Runtime;
import software.amazon.awscdk.services.lambda.SnapStartConf;
import software.amazon.awscdk.services.lambda.VersionOptions;
import software.amazon.awscdk.services.lambda.destinations.SqsDestination;
import software.amazon.awscdk.services.lambda.eventsources.SqsEventSource;
import software.amazon.awscdk.services.lambda.eventsources.SqsEventSourceProps;
import software.amazon.awscdk.services.logs.LogGroup;
import software.amazon.awscdk.services.s3.assets.Asset;
import software.amazon.awscdk.services.secretsmanager.ISecret;
import software.amazon.awscdk.services.secretsmanager.Secret;
import software.amazon.awscdk.services.secretsmanager.SecretStringGenerator;
import software.amazon.awscdk.services.sns.Topic;
import software.amazon.awscdk.services.sqs.DeadLetterQueue;
import software.amazon.awscdk.services.sqs.Queue;
import software.amazon.awscdk.services.sqs.QueueEncryption;
import software.constructs.Construct;

/**
 * oncepay on AWS: the table, the functions from one function.zip (each invoked through its
 * {@value #LIVE_ALIAS} alias; SnapStart on the JVM variant), the HTTP API (public,
 * webhook and operator routes) and the operator role, the reconcile schedule, the secrets (two per
 * provider account, split by function, and one per merchant endpoint), the charge queues (one per
 * provider account, which the charge worker consumes), the event queue (which event-delivery
 * consumes), the alarms and the dashboard. Names of table attributes, environment
 * variables and metrics come from the application's own constants ({@link Table},
 * {@link DeploymentSettings}, {@link Metrics}), compiled into this build from {@code ../src}.
 */
public class OncepayStack extends Stack {
    /** DynamoDB item actions the functions use (no Scan, no batch or transaction APIs). */
    public static final List<String> ITEM_ACTIONS = List.of(
            "dynamodb:GetItem", "dynamodb:PutItem", "dynamodb:UpdateItem", "dynamodb:DeleteItem");
    /**
     * The charge function alone also reads items in batches: before a wallet's markers are pruned,
     * whether each operation's own item exists (one BatchGetItem instead of one GetItem each).
     */
    public static final String BATCH_READ_ACTION = "dynamodb:BatchGetItem";
    /**
     * Indexes are only queried: reconcile the sweep, attention and outbox indexes, charge attention
     * (the operator's listing), wallet entries (the older pages of {@code GET /wallets/{walletId}})
     * and deliveries (an endpoint's deliveries, listed or re-delivered since a time).
     */
    public static final List<String> INDEX_ACTIONS = List.of("dynamodb:Query");
    /** Where the OpenAPI document lives in the repository. */
    public static final String OPENAPI_PATH = "oncepay-functions/src/main/resources/openapi/oncepay.yaml";
    public static final String SECRET_ACTION = "secretsmanager:GetSecretValue";
    /**
     * The alias that API Gateway and EventBridge invoke: the version this deploy published. A
     * qualified target, so a SnapStart snapshot serves every request ($LATEST has none), and
     * one wiring for both runtimes.
     */
    public static final String LIVE_ALIAS = "live";

    private final software.amazon.awscdk.services.dynamodb.Table table;
    private final Map<String, Function> functions = new LinkedHashMap<>();
    private final Map<String, Alias> aliases = new LinkedHashMap<>();
    private final List<LogGroup> logGroups = new ArrayList<>();

    public OncepayStack(Construct scope, String id, StackProps props, OncepaySettings settings) {
        super(scope, id, props);

        // Per-environment values: parameters, so one synthesized template serves every stage.
        CfnParameter jwtIssuer = CfnParameter.Builder.create(this, "JwtIssuer")
                .type("String")
                .description("Issuer (iss) of the JWTs that callers of /payments present, e.g. https://auth.example.com/")
                .allowedPattern("^https://\\S+$")
                .build();
        CfnParameter jwtAudience = CfnParameter.Builder.create(this, "JwtAudience")
                .type("CommaDelimitedList")
                .description("Accepted audiences (aud or client_id) of those JWTs, comma-separated")
                .build();
        CfnParameter providerUrl = CfnParameter.Builder.create(this, "ProviderUrl")
                .type("String")
                .description("Base URL of the payment provider's REST API")
                .allowedPattern("^https://\\S+$")
                .build();
        CfnParameter providerId = CfnParameter.Builder.create(this, "ProviderId")
                .type("String")
                .description("The provider's id: webhooks arrive at /webhooks/<id>; its secrets are "
                        + DeploymentSettings.WEBHOOK_SECRETS_PREFIX + "<id>." + DeploymentSettings.DEFAULT_ACCOUNT
                        + " in the default account's signing secret")
                .allowedPattern("^[A-Za-z0-9_-]{1,64}$")
                .build();
        CfnParameter tenantClaim = CfnParameter.Builder.create(this, "TenantClaim")
                .type("String")
                .description("The JWT claim that carries the tenant (merchant) id")
                .defaultValue(DeploymentSettings.DEFAULT_TENANT_CLAIM)
                .build();

        table = software.amazon.awscdk.services.dynamodb.Table.Builder.create(this, "Table")
                .partitionKey(Attribute.builder().name(Table.PK).type(AttributeType.STRING).build())
                .billingMode(BillingMode.PAY_PER_REQUEST)
                .pointInTimeRecoverySpecification(PointInTimeRecoverySpecification.builder()
                        .pointInTimeRecoveryEnabled(true).build())
                // DynamoDB deletes expired items lazily; the code compares expiresAt itself.
                .timeToLiveAttribute(Table.EXPIRES_AT)
                .deletionProtection(true)
                .removalPolicy(RemovalPolicy.RETAIN)
                .build();
        table.addGlobalSecondaryIndex(GlobalSecondaryIndexProps.builder()
                .indexName(Table.SWEEP_INDEX)
                .partitionKey(Attribute.builder().name(Table.SWEEP_SHARD).type(AttributeType.STRING).build())
                .sortKey(Attribute.builder().name(Table.NEXT_CHECK_AT).type(AttributeType.NUMBER).build())
                .projectionType(ProjectionType.KEYS_ONLY)
                .build());
        // What an operator lists (never the history); sparse: only PENDING, UNKNOWN and NEEDS_REVIEW payments.
        table.addGlobalSecondaryIndex(GlobalSecondaryIndexProps.builder()
                .indexName(Table.ATTENTION_INDEX)
                .partitionKey(Attribute.builder().name(Table.ATTENTION_KEY).type(AttributeType.STRING).build())
                .sortKey(Attribute.builder().name(Table.CREATED_AT_MS).type(AttributeType.NUMBER).build())
                .projectionType(ProjectionType.INCLUDE)
                .nonKeyAttributes(Table.ATTENTION_PROJECTION)
                .build());
        // A wallet's entries by seq; sparse: only applied wallet operations carry the keys.
        table.addGlobalSecondaryIndex(GlobalSecondaryIndexProps.builder()
                .indexName(Table.WALLET_INDEX)
                .partitionKey(Attribute.builder().name(Table.WALLET).type(AttributeType.STRING).build())
                .sortKey(Attribute.builder().name(Table.WALLET_SEQ).type(AttributeType.NUMBER).build())
                .projectionType(ProjectionType.ALL)
                .build());
        // Events written but not yet relayed; sparse: only items carrying an unrelayed event.
        table.addGlobalSecondaryIndex(GlobalSecondaryIndexProps.builder()
                .indexName(Table.OUTBOX_INDEX)
                .partitionKey(Attribute.builder().name(Table.OUTBOX_SHARD).type(AttributeType.STRING).build())
                .sortKey(Attribute.builder().name(Table.OUTBOX_AT).type(AttributeType.NUMBER).build())
                .projectionType(ProjectionType.KEYS_ONLY)
                .build());
        if (settings.deliveriesIndex()) {
            // An endpoint's delivery records by event time; only delivery records carry the keys.
            table.addGlobalSecondaryIndex(GlobalSecondaryIndexProps.builder()
                    .indexName(Table.DELIVERY_INDEX)
                    .partitionKey(Attribute.builder().name(Table.DELIVERY_ENDPOINT).type(AttributeType.STRING).build())
                    .sortKey(Attribute.builder().name(Table.EVENT_AT_MS).type(AttributeType.NUMBER).build())
                    .projectionType(ProjectionType.ALL)
                    .build());
        }

        // Secrets live in Secrets Manager, two per provider account: its API key, which only charge, the
        // charge worker and reconcile may read, and its webhook signing secrets (oncepay.webhook.secrets.<provider>.<account>),
        // which only the internet-facing webhook function may read. The environment carries only their ARNs.
        List<ISecret> apiKeySecrets = new ArrayList<>();
        List<ISecret> signingSecrets = new ArrayList<>();
        // Each account has its charge queue too. Charge queues a charge on its account's queue, the worker
        // puts one back there with a delay: both get the default account's queue by its variable, the
        // others' in the routing.
        List<ChargeQueue> chargeQueues = new ArrayList<>();
        Map<String, String> queueUrlProperties = new TreeMap<>();
        Construct defaultAccount = new Construct(this, "Account-" + DeploymentSettings.DEFAULT_ACCOUNT);
        ChargeQueue defaultChargeQueue = new ChargeQueue(defaultAccount, DeploymentSettings.DEFAULT_ACCOUNT,
                settings.queueConcurrency());
        chargeQueues.add(defaultChargeQueue);
        apiKeySecrets.add(secret(defaultAccount, "ApiKeySecret", settings.apiKeySecretArn(),
                DeploymentSettings.PROVIDER_API_KEY_PROPERTY,
                "oncepay API key of the default provider account, for charge, the charge worker and reconcile: set to {\""
                        + DeploymentSettings.PROVIDER_API_KEY_PROPERTY + "\": \"...\"}" + PLACEHOLDER));
        String defaultSigningProperty = signingSecretsProperty(providerId.getValueAsString(), DeploymentSettings.DEFAULT_ACCOUNT);
        signingSecrets.add(secret(defaultAccount, "SigningSecret", settings.signingSecretArn(), defaultSigningProperty,
                "oncepay webhook signing secrets of the default provider account, for the webhook function: set to {\""
                        + defaultSigningProperty + "\": [\"current\", \"previous\"]}" + PLACEHOLDER));
        for (ProviderAccountSettings account : settings.accounts()) {
            Construct accountScope = new Construct(this, "Account-" + account.name());
            ChargeQueue chargeQueue = new ChargeQueue(accountScope, account.name(), account.queueConcurrency());
            chargeQueues.add(chargeQueue);
            queueUrlProperties.put(DeploymentSettings.PROVIDER_ACCOUNTS_PREFIX + account.name() + "."
                    + DeploymentSettings.ACCOUNT_QUEUE_URL, chargeQueue.queue.getQueueUrl());
            apiKeySecrets.add(secret(accountScope, "ApiKeySecret", account.apiKeySecretArn(),
                    DeploymentSettings.PROVIDER_ACCOUNTS_PREFIX + account.name() + "." + DeploymentSettings.ACCOUNT_API_KEY,
                    "oncepay API key of provider account " + account.name() + ", for charge, the charge worker and reconcile: set to {\""
                            + DeploymentSettings.PROVIDER_ACCOUNTS_PREFIX + account.name() + "."
                            + DeploymentSettings.ACCOUNT_API_KEY + "\": \"...\"}" + PLACEHOLDER));
            String signingProperty = signingSecretsProperty(account.provider(), account.name());
            signingSecrets.add(secret(accountScope, "SigningSecret", account.signingSecretArn(), signingProperty,
                    "oncepay webhook signing secrets of provider account " + account.name()
                            + ", for the webhook function: set to {\"" + signingProperty + "\": [\"current\", \"previous\"]}"
                            + PLACEHOLDER));
        }
        // One signing secret per merchant endpoint, which only event-delivery may read: the functions that
        // relay events learn the endpoints' URLs and types, never how their deliveries are signed.
        List<ISecret> endpointSecrets = new ArrayList<>();
        Construct endpointsScope = new Construct(this, "EventEndpoints");
        for (EventEndpointSettings endpoint : settings.eventEndpoints()) {
            Construct tenantScope = endpointsScope.getNode().tryFindChild(endpoint.tenant()) instanceof Construct found
                    ? found : new Construct(endpointsScope, endpoint.tenant());
            endpointSecrets.add(secret(new Construct(tenantScope, endpoint.name()), "SigningSecret", endpoint.secretArn(),
                    endpoint.secretsProperty(), "oncepay signing secrets of merchant endpoint '" + endpoint.name()
                            + "' of tenant '" + endpoint.tenant() + "', for event-delivery: {\""
                            + endpoint.secretsProperty() + "\": \"newest,previous\"}. Created with one random secret:"
                            + " give it to the merchant; to rotate, put \"new,old\", then \"new\" once the merchant"
                            + " verifies with it"));
        }
        EventQueue eventQueue = new EventQueue(this, settings.eventConcurrency());

        Queue reconcileFailures = deadLetterQueue(this, "ReconcileDeadLetters").build();

        Code code = FunctionCode.of(settings);
        if (FunctionCode.isPlaceholder(settings)) {
            Annotations.of(this).addWarningV2("oncepay:placeholderCode", FunctionCode.PLACEHOLDER_MESSAGE);
        }
        Map<String, String> environment = new LinkedHashMap<>();
        environment.put(DeploymentSettings.ENV_TABLE, table.getTableName());
        environment.put(DeploymentSettings.ENV_PROVIDER_URL, providerUrl.getValueAsString());
        environment.put(DeploymentSettings.ENV_PROVIDER_ID, providerId.getValueAsString());
        environment.put(DeploymentSettings.ENV_TENANT_CLAIM, tenantClaim.getValueAsString());
        environment.put(DeploymentSettings.ENV_AWS_RETRY_MODE, DeploymentSettings.AWS_RETRY_MODE);
        environment.put(DeploymentSettings.ENV_AWS_MAX_ATTEMPTS, Integer.toString(DeploymentSettings.AWS_MAX_ATTEMPTS));
        if (settings.isNative()) {
            environment.put(DeploymentSettings.ENV_DISABLE_SIGNAL_HANDLERS, "true");
        }

        String eventEndpoints = settings.eventEndpointProperties().isEmpty() ? null
                : toJsonString(settings.eventEndpointProperties());

        for (String name : DeploymentSettings.FUNCTIONS) {
            Map<String, String> env = new LinkedHashMap<>(environment);
            env.put(DeploymentSettings.ENV_FUNQY_EXPORT, name);
            boolean callsProviders = OncepaySettings.callsProviders(name);
            List<ISecret> secrets = switch (name) {
                case DeploymentSettings.FUNCTION_WEBHOOK -> signingSecrets;
                case DeploymentSettings.FUNCTION_EVENT_DELIVERY -> endpointSecrets;
                default -> apiKeySecrets;
            };
            if (!secrets.isEmpty()) {
                env.put(DeploymentSettings.ENV_SECRET_ARNS,
                        Fn.join(",", secrets.stream().map(ISecret::getSecretArn).toList()));
            }
            if (EventQueue.SENDERS.contains(name)) {
                env.put(DeploymentSettings.ENV_EVENT_QUEUE_URL, eventQueue.queue.getQueueUrl());
            }
            if (eventEndpoints != null) {
                env.put(DeploymentSettings.ENV_EVENT_ENDPOINTS, eventEndpoints);
            }
            Map<String, String> plain = new TreeMap<>(settings.plainProperties(name));
            if (ChargeQueue.SENDERS.contains(name)) {
                env.put(DeploymentSettings.ENV_PROVIDER_QUEUE_URL, defaultChargeQueue.queue.getQueueUrl());
                plain.putAll(queueUrlProperties);
            }
            if (!plain.isEmpty()) {
                // The queues' URLs are tokens until deploy: the stack writes them into the JSON.
                env.put(DeploymentSettings.ENV_PROVIDER_ROUTING, toJsonString(plain));
            }
            // The queue-fed functions take no HTTP request: a message carries its tenant, no token's claim does.
            if (name.equals(DeploymentSettings.FUNCTION_CHARGE_WORKER) || name.equals(DeploymentSettings.FUNCTION_EVENT_DELIVERY)) {
                env.remove(DeploymentSettings.ENV_TENANT_CLAIM);
            }
            // Charge, the worker and reconcile count the same calls in flight, so they must agree on the cap.
            if (callsProviders) {
                settings.providerMaxInFlight().ifPresent(cap ->
                        env.put(DeploymentSettings.ENV_CHARGE_MAX_IN_FLIGHT, Integer.toString(cap)));
            }
            // The ids the SAM templates give these functions too (ChargeWorker for charge-worker).
            String construct = SamTemplate.resourceName(name);
            LogGroup logs = LogGroup.Builder.create(this, construct + "Logs")
                    .retention(settings.logRetention())
                    .build();
            Function.Builder function = Function.Builder.create(this, construct + "Function")
                    .description("oncepay " + name)
                    .runtime(settings.isNative() ? Runtime.PROVIDED_AL2023 : Runtime.JAVA_21)
                    .handler(settings.isNative() ? DeploymentSettings.NATIVE_HANDLER : DeploymentSettings.JVM_HANDLER)
                    .code(code)
                    .architecture(settings.arm64() ? Architecture.ARM_64 : Architecture.X86_64)
                    .memorySize(settings.memoryMb(name))
                    .timeout(Duration.seconds(DeploymentSettings.timeoutSeconds(name)))
                    .environment(env)
                    .logGroup(logs);
            // Reserved concurrency is the function's, shared by all its versions: the alias keeps the bulkhead.
            settings.reservedConcurrency(name).ifPresent(function::reservedConcurrentExecutions);
            if (!settings.isNative()) {
                // Init (and the app's priming) runs once per published version, into a snapshot that
                // sandboxes restore from. Not for provided.al2023: Lambda has no SnapStart for custom runtimes.
                function.snapStart(SnapStartConf.ON_PUBLISHED_VERSIONS);
            }
            // The version's logical id is a hash of the function's version-locked properties (code asset
            // hash, environment, memory, runtime, SnapStart...): a deploy that changes any of them
            // publishes a new version (and snapshot) and moves the alias to it; otherwise nothing moves.
            // Old versions are kept: requests still running on one finish there, and rolling back is
            // one `aws lambda update-alias` (see infra/README.md, "SnapStart, versions and the live alias").
            function.currentVersionOptions(VersionOptions.builder()
                    .description("oncepay " + name + ", published by the stack's deploy")
                    .removalPolicy(RemovalPolicy.RETAIN)
                    .build());
            Function fn = function.build();
            Annotations.of(fn).acknowledgeWarning("@aws-cdk/aws-lambda:addPermissionsToVersionOrAlias",
                    "every invoke permission is on the live alias (API Gateway, EventBridge)");
            if (!settings.isNative()) {
                Annotations.of(fn).acknowledgeWarning("@aws-cdk/aws-lambda:snapStartRequirePublish",
                        "each deploy publishes the version the live alias points at");
            }
            Alias.Builder live = Alias.Builder.create(fn, "LiveAlias")
                    .aliasName(LIVE_ALIAS)
                    .description("What API Gateway, EventBridge and the queues invoke: the version of the latest deploy")
                    .version(fn.getCurrentVersion());
            if (name.equals(DeploymentSettings.FUNCTION_RECONCILE)) {
                // Its invocations are asynchronous (EventBridge, through the alias, so configured on the
                // alias): one retry, then the dead-letter queue.
                live.retryAttempts(1)
                        .maxEventAge(Duration.minutes(5))
                        .onFailure(new SqsDestination(reconcileFailures));
            }
            aliases.put(name, live.build());
            List<String> itemActions = new ArrayList<>(ITEM_ACTIONS);
            if (name.equals(DeploymentSettings.FUNCTION_CHARGE)) {
                itemActions.add(BATCH_READ_ACTION);
            }
            fn.addToRolePolicy(PolicyStatement.Builder.create()
                    .effect(Effect.ALLOW)
                    .actions(itemActions)
                    .resources(List.of(table.getTableArn()))
                    .build());
            List<String> indexes = switch (name) {
                case DeploymentSettings.FUNCTION_RECONCILE -> List.of(Table.SWEEP_INDEX, Table.ATTENTION_INDEX, Table.OUTBOX_INDEX);
                case DeploymentSettings.FUNCTION_CHARGE -> List.of(Table.ATTENTION_INDEX, Table.WALLET_INDEX, Table.DELIVERY_INDEX);
                default -> List.of();
            };
            if (!indexes.isEmpty()) {
                fn.addToRolePolicy(PolicyStatement.Builder.create()
                        .effect(Effect.ALLOW)
                        .actions(INDEX_ACTIONS)
                        .resources(indexes.stream().map(index -> table.getTableArn() + "/index/" + index).toList())
                        .build());
            }
            if (!secrets.isEmpty()) {
                fn.addToRolePolicy(PolicyStatement.Builder.create()
                        .effect(Effect.ALLOW)
                        .actions(List.of(SECRET_ACTION))
                        .resources(secrets.stream().map(ISecret::getSecretArn).toList())
                        .build());
            }
            functions.put(name, fn);
            logGroups.add(logs);
        }

        // The HTTP API: /payments behind the JWT authorizer, webhooks authenticated by their signature,
        // /admin behind IAM (SigV4), so a merchant's token never reaches it.
        HttpApi api = HttpApi.Builder.create(this, "Api")
                .apiName(getStackName())
                .description("oncepay payments API, provider webhooks and operator API; described by "
                        + OPENAPI_PATH + " (OpenAPI 3.1)")
                .build();
        HttpJwtAuthorizer jwt = new HttpJwtAuthorizer("JwtAuthorizer", jwtIssuer.getValueAsString(),
                HttpJwtAuthorizerProps.builder()
                        .jwtAudience(jwtAudience.getValueAsList())
                        .identitySource(List.of("$request.header.Authorization"))
                        .build());
        HttpLambdaIntegration charge = integration(DeploymentSettings.FUNCTION_CHARGE);
        for (String merchantRoute : DeploymentSettings.MERCHANT_ROUTES) {
            route(api, merchantRoute, charge, jwt);
        }
        route(api, DeploymentSettings.WEBHOOK_ROUTE, integration(DeploymentSettings.FUNCTION_WEBHOOK),
                new HttpNoneAuthorizer());
        HttpIamAuthorizer iam = new HttpIamAuthorizer();
        for (String adminRoute : DeploymentSettings.ADMIN_ROUTES) {
            route(api, adminRoute, charge, iam);
        }
        Role operator = operatorRole(settings, api);
        // IAM lets any principal allowed execute-api:Invoke through (HTTP APIs have no resource
        // policy); the function itself accepts only this role's sessions.
        functions.get(DeploymentSettings.FUNCTION_CHARGE).addEnvironment(DeploymentSettings.ENV_OPERATOR_ROLE_NAME,
                operator.getRoleName());

        for (ChargeQueue chargeQueue : chargeQueues) {
            chargeQueue.queue.grantSendMessages(functions.get(DeploymentSettings.FUNCTION_CHARGE));
            chargeQueue.feed(alias(DeploymentSettings.FUNCTION_CHARGE_WORKER));
        }
        eventQueue.feed(alias(DeploymentSettings.FUNCTION_EVENT_DELIVERY));
        EventQueue.SENDERS.forEach(sender -> eventQueue.queue.grantSendMessages(functions.get(sender)));

        Rule.Builder.create(this, "ReconcileSchedule")
                .description("Runs oncepay reconcile")
                .schedule(Schedule.rate(Duration.minutes(settings.reconcileRateMinutes())))
                .targets(List.of(LambdaFunction.Builder.create(alias(DeploymentSettings.FUNCTION_RECONCILE))
                        .deadLetterQueue(reconcileFailures)
                        .retryAttempts(2)
                        .maxEventAge(Duration.minutes(5))
                        .build()))
                .build();

        Topic alarms = Topic.Builder.create(this, "Alarms").displayName("oncepay alarms").build();
        List<Alarm> watching = alarms(settings, api, reconcileFailures, chargeQueues, eventQueue, new SnsAction(alarms));
        OperationsDashboard.create(this, getStackName(), api, functions, logGroups, watching, chargeQueues, eventQueue, settings);

        CfnOutput.Builder.create(this, "ApiUrl").value(api.getApiEndpoint()).build();
        CfnOutput.Builder.create(this, "TableName").value(table.getTableName()).build();
        CfnOutput.Builder.create(this, "AlarmTopicArn").value(alarms.getTopicArn())
                .description("Subscribe on-call to this topic").build();
        CfnOutput.Builder.create(this, "ReconcileDeadLetterQueueUrl").value(reconcileFailures.getQueueUrl()).build();
        CfnOutput.Builder.create(this, "EventDeadLetterQueueUrl").value(eventQueue.deadLetters.getQueueUrl()).build();
        CfnOutput.Builder.create(this, "OperatorRoleArn").value(operator.getRoleArn())
                .description("Assume this role to call /admin/* (SigV4, service execute-api)").build();
        openApiDocument(settings);
    }

    /**
     * The role that alone may call the operator routes: execute-api:Invoke on exactly their ARNs
     * (any stage), assumable by the principals {@code oncepay:operatorPrincipals} names, or by
     * whoever the account's IAM administrators allow (the account root).
     */
    private Role operatorRole(OncepaySettings settings, HttpApi api) {
        IPrincipal trusted = settings.operatorPrincipals().isEmpty() ? new AccountRootPrincipal()
                : new CompositePrincipal(settings.operatorPrincipals().stream().map(ArnPrincipal::new).toArray(IPrincipal[]::new));
        Role role = Role.Builder.create(this, "OperatorRole")
                .description("oncepay operator: may call the operator API (" + String.join(", ", DeploymentSettings.ADMIN_ROUTES) + ")")
                .assumedBy(trusted)
                .build();
        role.addToPolicy(PolicyStatement.Builder.create()
                .effect(Effect.ALLOW)
                .actions(List.of("execute-api:Invoke"))
                .resources(DeploymentSettings.ADMIN_ROUTES.stream().map(r -> routeArn(api, r)).toList())
                .build());
        return role;
    }

    /** {@code arn:…:execute-api:<region>:<account>:<api>/<any stage>/<METHOD>/<path, each {parameter} as *>}. */
    private static String routeArn(HttpApi api, String route) {
        String[] methodAndPath = route.split(" ");
        return "arn:" + Aws.PARTITION + ":execute-api:" + Aws.REGION + ":" + Aws.ACCOUNT_ID + ":" + api.getApiId()
                + "/*/" + methodAndPath[0] + methodAndPath[1].replaceAll("\\{[^}]+}", "*");
    }

    /**
     * API Gateway's HTTP APIs cannot import a document without replacing the routes defined here, so
     * the document is referenced (an output naming it) and, when the file is there, attached as an
     * asset uploaded with the stack (no Docker needed), its S3 URL an output.
     */
    private void openApiDocument(OncepaySettings settings) {
        CfnOutput.Builder.create(this, "OpenApiDocumentPath").value(OPENAPI_PATH)
                .description("The API's OpenAPI 3.1 document, in the oncepay repository").build();
        if (!Files.isRegularFile(settings.openApiDocument())) {
            Annotations.of(this).addWarningV2("oncepay:openApiDocument", "no OpenAPI document at "
                    + settings.openApiDocument() + ": the stack references " + OPENAPI_PATH + " but does not attach it");
            return;
        }
        Asset document = Asset.Builder.create(this, "OpenApiDocument")
                .path(settings.openApiDocument().toString())
                .build();
        CfnOutput.Builder.create(this, "OpenApiDocumentUrl").value(document.getS3ObjectUrl())
                .description("The API's OpenAPI 3.1 document as deployed with this stack").build();
    }

    /**
     * The property that holds an account's signing secrets: bound to the account, so an event signed
     * with them applies to that account's payments only.
     */
    static String signingSecretsProperty(String provider, String account) {
        return DeploymentSettings.WEBHOOK_SECRETS_PREFIX + provider + "." + account;
    }

    /** How a provider account's secret description ends: what the generated value is good for. */
    private static final String PLACEHOLDER = "; until then it holds a random placeholder, which the provider refuses"
            + " and no webhook matches";

    /**
     * An existing secret by its complete ARN, or a new one (kept when the stack is deleted) holding
     * {@code {"<property>": "<random>"}}: the JSON shape the functions accept, so their init (which
     * SnapStart runs when a version is published) passes on the first deploy. Its ARN is an output.
     */
    private static ISecret secret(Construct scope, String id, Optional<String> existing, String property,
            String description) {
        ISecret secret = existing
                .map(arn -> Secret.fromSecretCompleteArn(scope, id, arn))
                .orElseGet(() -> Secret.Builder.create(scope, id)
                        .description(description)
                        .generateSecretString(SecretStringGenerator.builder()
                                .secretStringTemplate("{}")
                                .generateStringKey(property)
                                .excludePunctuation(true)
                                .passwordLength(48)
                                .build())
                        .removalPolicy(RemovalPolicy.RETAIN)
                        .build());
        CfnOutput.Builder.create(scope, id + "Arn").value(secret.getSecretArn()).description(description).build();
        return secret;
    }

    /** The {@value #LIVE_ALIAS} alias of a function: what the API and the schedule invoke. */
    private Alias alias(String name) {
        return aliases.get(name);
    }

    /** The route's integration invokes the alias, and the gateway's permission is on the alias alone. */
    private HttpLambdaIntegration integration(String name) {
        return new HttpLambdaIntegration(SamTemplate.resourceName(name) + "Integration",
                alias(name), HttpLambdaIntegrationProps.builder()
                        .payloadFormatVersion(PayloadFormatVersion.VERSION_2_0)
                        .timeout(Duration.seconds(DeploymentSettings.integrationTimeoutSeconds(name)))
                        .build());
    }

    /** @param routeKey method and path, e.g. {@code GET /payments/{id}} */
    private static void route(HttpApi api, String routeKey, HttpLambdaIntegration integration,
            IHttpRouteAuthorizer authorizer) {
        String[] methodAndPath = routeKey.split(" ");
        api.addRoutes(AddRoutesOptions.builder()
                .path(methodAndPath[1])
                .methods(List.of(HttpMethod.valueOf(methodAndPath[0])))
                .integration(integration)
                .authorizer(authorizer)
                .build());
    }

    private List<Alarm> alarms(OncepaySettings settings, HttpApi api, Queue reconcileFailures, List<ChargeQueue> chargeQueues,
            EventQueue eventQueue, SnsAction notify) {
        AlarmSet alarms = new AlarmSet(settings.runbookUrl(), notify);
        MetricOptions perMinute = MetricOptions.builder().period(Duration.minutes(1)).statistic("Sum").build();
        alarms.add("ServerErrorRateAlarm", "More than " + settings.alarmServerErrorPercent() + "% of API requests answered 5xx",
                MathExpression.Builder.create()
                        .expression("IF(requests > 0, 100 * errors / requests, 0)")
                        .usingMetrics(Map.of("errors", api.metricServerError(perMinute), "requests", api.metricCount(perMinute)))
                        .label("5xx rate (%)")
                        .period(Duration.minutes(1))
                        .build(),
                settings.alarmServerErrorPercent(), 5, 3);
        alarms.add("UnknownBacklogAlarm", "Payments with an unknown outcome are piling up: is reconcile settling them?",
                custom(Metrics.UNKNOWN_BACKLOG, "Maximum", 5), settings.alarmUnknownBacklog(), 2, 2);
        alarms.add("UnknownOldestAgeAlarm", "A payment's outcome has been unknown for over "
                + settings.alarmUnknownAgeMinutes() + " minutes",
                custom(Metrics.UNKNOWN_OLDEST_AGE, "Maximum", 5), settings.alarmUnknownAgeMinutes() * 60.0, 1, 1);
        alarms.add("PendingOldestAgeAlarm", "A payment has been pending for over " + settings.alarmPendingAgeMinutes()
                + " minutes: the charge run that claimed it never recorded the provider's answer, and the sweep has not settled it",
                custom(Metrics.PENDING_OLDEST_AGE, "Maximum", 5), settings.alarmPendingAgeMinutes() * 60.0,
                ComparisonOperator.GREATER_THAN_THRESHOLD, 1, 1);
        // The gauge keeps the alarm on until an operator resolves the payment; the counter raises it
        // at the move itself, before the next sweep measures the index.
        alarms.add("NeedsReviewAlarm", "A payment waits in needs_review (conflicting provider facts, reconcile gave up, "
                + "or the provider rejected our request) until an operator resolves it",
                MathExpression.Builder.create()
                        .expression("MAX([FILL(waiting, 0), FILL(moved, 0)])")
                        .usingMetrics(Map.of("waiting", custom(Metrics.NEEDS_REVIEW_BACKLOG, "Maximum", 5),
                                "moved", custom(Metrics.NEEDS_REVIEW, "Sum", 5)))
                        .label("payments in review, or moved there")
                        .period(Duration.minutes(5))
                        .build(), 1, 1, 1);
        // The charge run cancels a declined PaymentIntent at once and the sweep retries with backoff
        // (1, 2, 4, 8 min): a cancel still pending in three 5-minute periods is not a passing hiccup.
        alarms.add("CancelPendingAlarm", "A declined Stripe PaymentIntent has stayed open for 15 minutes: its cancel "
                + "is not confirmed, so the shopper could still pay a payment oncepay answered failed",
                custom(Metrics.CANCEL_PENDING_BACKLOG, "Maximum", 5), 1, 3, 3);
        alarms.add("BreakerOpenAlarm", "Provider calls are refused by an open circuit breaker",
                custom(Metrics.BREAKER_OPEN, "Sum", 1), 1, 1, 1);
        alarms.add("BreakerStoreFailedAlarm", "A fleet breaker's items in the table could not be read or written, so "
                + "each sandbox decides from its own calls (provider protection fails open at a bounded rate): check "
                + "DynamoDB throttling and errors and the functions' logs",
                custom(Metrics.BREAKER_STORE_FAILED, "Sum", 5), 1, 1, 1);
        alarms.add("RetryBudgetSpentAlarm", "Provider faults go unretried because the fleet's retry budget is spent: "
                + "a provider account is failing; check the breaker transitions in the logs and the provider's status",
                custom(Metrics.RETRY_BUDGET_SPENT, "Sum", 1), 1, 3, 2);
        alarms.add("ProviderAtCapacityAlarm", "Provider calls are refused by the bulkhead (charges answer 503 "
                + "provider-at-capacity, reconcile defers): a provider account is slow enough to fill its share of "
                + "in-flight calls (oncepay:providerMaxInFlight); check its latency and status",
                custom(Metrics.PROVIDER_AT_CAPACITY, "Sum", 1), 1, 3, 2);
        alarms.add("ReconcileDeadLettersAlarm", "A reconcile run failed after its retry (see the dead-letter queue)",
                reconcileFailures.metricApproximateNumberOfMessagesVisible(MetricOptions.builder()
                        .period(Duration.minutes(5)).statistic("Maximum").build()), 1, 1, 1);
        MetricOptions fiveMinuteMaximum = MetricOptions.builder().period(Duration.minutes(5)).statistic("Maximum").build();
        for (ChargeQueue chargeQueue : chargeQueues) {
            // The worker's delayed copies are new messages: this is the wait since the latest send.
            alarms.add(chargeQueue.scope, "ChargeQueueAgeAlarm", "A queued charge of provider account " + chargeQueue.account
                            + " has waited over " + settings.alarmChargeQueueAgeMinutes() + " minutes for the charge"
                            + " worker (queue " + DeploymentSettings.chargeQueueName(chargeQueue.account) + ")",
                    chargeQueue.queue.metricApproximateAgeOfOldestMessage(fiveMinuteMaximum),
                    settings.alarmChargeQueueAgeMinutes() * 60.0, ComparisonOperator.GREATER_THAN_THRESHOLD, 1, 1);
            alarms.add(chargeQueue.scope, "ChargeDeadLettersAlarm", "A queued charge of provider account "
                            + chargeQueue.account + " was received " + DeploymentSettings.CHARGE_QUEUE_MAX_RECEIVES
                            + " times without the charge worker finishing it: it is in "
                            + DeploymentSettings.chargeDeadLetterQueueName(chargeQueue.account),
                    chargeQueue.deadLetters.metricApproximateNumberOfMessagesVisible(fiveMinuteMaximum),
                    1, ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD, 1, 1);
        }
        alarms.add("EventDeliveriesDeadAlarm", "A merchant event was not acknowledged within its "
                        + DeploymentSettings.EVENT_DELIVERY_HORIZON_SECONDS / 3600 + " hours of retries: its delivery is"
                        + " recorded dead and nothing retries it",
                custom(Metrics.EVENT_DELIVERY_DEAD, "Sum", 5), 1, 1, 1);
        alarms.add("EventDeadLettersAlarm", "A merchant event message was received " + DeploymentSettings.EVENT_QUEUE_MAX_RECEIVES
                        + " times without event-delivery finishing it: it is in " + DeploymentSettings.EVENT_DEAD_LETTER_QUEUE_NAME,
                eventQueue.deadLetters.metricApproximateNumberOfMessagesVisible(fiveMinuteMaximum), 1, 1, 1);
        // A delayed retry (at most SQS's 15 minutes) may count its delay: the threshold lies above it.
        alarms.add("EventQueueAgeAlarm", "A merchant event message has waited over " + settings.alarmEventQueueAgeMinutes()
                        + " minutes for event-delivery (queue " + DeploymentSettings.EVENT_QUEUE_NAME + ")",
                eventQueue.queue.metricApproximateAgeOfOldestMessage(fiveMinuteMaximum),
                settings.alarmEventQueueAgeMinutes() * 60.0, ComparisonOperator.GREATER_THAN_THRESHOLD, 1, 1);
        // Writers relay at once and each sweep relays what they left: a backlog through three periods means
        // the event queue refuses the sends.
        alarms.add("OutboxBacklogAlarm", "Merchant events written with their payment or refund have not reached the"
                        + " event queue for 15 minutes: sends to " + DeploymentSettings.EVENT_QUEUE_NAME + " fail",
                custom(Metrics.OUTBOX_BACKLOG, "Maximum", 5), 1, 3, 3);
        return alarms.all;
    }

    /**
     * A dead-letter queue: it keeps a message as long as SQS can for on-call to read, encrypted with
     * SQS's own key (no KMS grants needed), reachable over TLS only.
     */
    static Queue.Builder deadLetterQueue(Construct scope, String id) {
        return Queue.Builder.create(scope, id)
                .retentionPeriod(Duration.seconds(DeploymentSettings.DEAD_LETTER_RETENTION_SECONDS))
                .encryption(QueueEncryption.SQS_MANAGED)
                .enforceSsl(true);
    }

    /**
     * A queue that feeds a function: encrypted and TLS-only as the dead-letter queues, its messages
     * moved to {@code deadLetters} after {@code maxReceives} receives.
     */
    static Queue feedingQueue(Construct scope, String id, String name, int visibilityTimeoutSeconds, int retentionSeconds,
            Queue deadLetters, int maxReceives) {
        return Queue.Builder.create(scope, id)
                .queueName(name)
                .visibilityTimeout(Duration.seconds(visibilityTimeoutSeconds))
                .retentionPeriod(Duration.seconds(retentionSeconds))
                .encryption(QueueEncryption.SQS_MANAGED)
                .enforceSsl(true)
                .deadLetterQueue(DeadLetterQueue.builder().queue(deadLetters).maxReceiveCount(maxReceives).build())
                .build();
    }

    /**
     * An event-source mapping on {@code queue}: no batching window (a message goes out as it comes),
     * failures reported per message, at most {@code maxConcurrency} invocations at once.
     */
    static SqsEventSource mapping(Queue queue, int batchSize, int maxConcurrency) {
        return new SqsEventSource(queue, SqsEventSourceProps.builder()
                .batchSize(batchSize)
                .maxBatchingWindow(Duration.seconds(0))
                .reportBatchItemFailures(true)
                .maxConcurrency(maxConcurrency)
                .build());
    }

    static Metric custom(String name, String statistic, int periodMinutes) {
        return Metric.Builder.create()
                .namespace(Metrics.NAMESPACE)
                .metricName(name)
                .statistic(statistic)
                .period(Duration.minutes(periodMinutes))
                .build();
    }

    /** The runbook section of an alarm: docs/runbook.md's {@code ### Runbook: <id>} heading, as GitHub anchors it. */
    static String runbookLink(String runbookUrl, String alarmId) {
        return runbookUrl + "#runbook-" + alarmId.toLowerCase(Locale.ROOT);
    }

    /** The stack's alarms: each notifies on-call and its description ends with its runbook link. */
    private final class AlarmSet {
        private final String runbookUrl;
        private final SnsAction notify;
        private final List<Alarm> all = new ArrayList<>();

        AlarmSet(String runbookUrl, SnsAction notify) {
            this.runbookUrl = runbookUrl;
            this.notify = notify;
        }

        void add(String id, String description, IMetric metric, double threshold, int evaluationPeriods,
                int datapointsToAlarm) {
            add(id, description, metric, threshold, ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
                    evaluationPeriods, datapointsToAlarm);
        }

        void add(String id, String description, IMetric metric, double threshold, ComparisonOperator comparison,
                int evaluationPeriods, int datapointsToAlarm) {
            add(OncepayStack.this, id, description, metric, threshold, comparison, evaluationPeriods, datapointsToAlarm);
        }

        /**
         * @param scope where the alarm lives: alarms alike, one per provider account, share their id (and so
         *              their runbook section) and are told apart by their account's construct
         */
        void add(Construct scope, String id, String description, IMetric metric, double threshold,
                ComparisonOperator comparison, int evaluationPeriods, int datapointsToAlarm) {
            Alarm alarm = Alarm.Builder.create(scope, id)
                    .alarmDescription(description + (description.endsWith("?") ? "" : ".")
                            + " Runbook: " + runbookLink(runbookUrl, id))
                    .metric(metric)
                    .threshold(threshold)
                    .comparisonOperator(comparison)
                    .evaluationPeriods(evaluationPeriods)
                    .datapointsToAlarm(datapointsToAlarm)
                    // The app emits these only when it has something to say; silence is not trouble.
                    .treatMissingData(TreatMissingData.NOT_BREACHING)
                    .build();
            alarm.addAlarmAction(notify);
            all.add(alarm);
        }
    }
}
