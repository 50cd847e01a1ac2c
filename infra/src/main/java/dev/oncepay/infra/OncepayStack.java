package dev.oncepay.infra;

import dev.oncepay.config.DeploymentSettings;
import dev.oncepay.config.Metrics;
import dev.oncepay.store.Table;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import software.amazon.awscdk.Annotations;
import software.amazon.awscdk.CfnOutput;
import software.amazon.awscdk.CfnParameter;
import software.amazon.awscdk.Duration;
import software.amazon.awscdk.Fn;
import software.amazon.awscdk.RemovalPolicy;
import software.amazon.awscdk.Stack;
import software.amazon.awscdk.StackProps;
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
import software.amazon.awscdk.services.iam.Effect;
import software.amazon.awscdk.services.iam.PolicyStatement;
import software.amazon.awscdk.services.lambda.Architecture;
import software.amazon.awscdk.services.lambda.Code;
import software.amazon.awscdk.services.lambda.Function;
import software.amazon.awscdk.services.lambda.Runtime;
import software.amazon.awscdk.services.lambda.destinations.SqsDestination;
import software.amazon.awscdk.services.logs.LogGroup;
import software.amazon.awscdk.services.secretsmanager.ISecret;
import software.amazon.awscdk.services.secretsmanager.Secret;
import software.amazon.awscdk.services.sns.Topic;
import software.amazon.awscdk.services.sqs.Queue;
import software.amazon.awscdk.services.sqs.QueueEncryption;
import software.constructs.Construct;

/**
 * oncepay on AWS: the table, the three functions from one function.zip, the HTTP API, the
 * reconcile schedule, the secrets (two per provider account, split by function), and the alarms. Names of table attributes, environment
 * variables and metrics come from the application's own constants ({@link Table},
 * {@link DeploymentSettings}, {@link Metrics}), compiled into this build from {@code ../src}.
 */
public class OncepayStack extends Stack {
    /** DynamoDB item actions the functions use (no Scan, no batch or transaction APIs). */
    public static final List<String> ITEM_ACTIONS = List.of(
            "dynamodb:GetItem", "dynamodb:PutItem", "dynamodb:UpdateItem", "dynamodb:DeleteItem");
    /** Only reconcile reads the sweep index, and only with Query. */
    public static final List<String> INDEX_ACTIONS = List.of("dynamodb:Query");
    public static final String SECRET_ACTION = "secretsmanager:GetSecretValue";

    private final software.amazon.awscdk.services.dynamodb.Table table;
    private final Map<String, Function> functions = new LinkedHashMap<>();

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
                        + DeploymentSettings.WEBHOOK_SECRETS_PREFIX + "<id> in the default account's signing secret")
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

        // Secrets live in Secrets Manager, two per provider account: its API key, which only charge
        // and reconcile may read, and its webhook signing secrets, which only the internet-facing
        // webhook function may read. The environment carries only their ARNs.
        List<ISecret> apiKeySecrets = new ArrayList<>();
        List<ISecret> signingSecrets = new ArrayList<>();
        Construct defaultAccount = new Construct(this, "Account-" + DeploymentSettings.DEFAULT_ACCOUNT);
        apiKeySecrets.add(secret(defaultAccount, "ApiKeySecret", settings.apiKeySecretArn(),
                "oncepay API key of the default provider account, for charge and reconcile: set to {\""
                        + DeploymentSettings.PROVIDER_API_KEY_PROPERTY + "\": \"...\"}"));
        signingSecrets.add(secret(defaultAccount, "SigningSecret", settings.signingSecretArn(),
                "oncepay webhook signing secrets of the default provider account, for the webhook function: set to {\""
                        + DeploymentSettings.WEBHOOK_SECRETS_PREFIX + providerId.getValueAsString() + "\": [\"current\", \"previous\"]}"));
        for (ProviderAccountSettings account : settings.accounts()) {
            Construct accountScope = new Construct(this, "Account-" + account.name());
            apiKeySecrets.add(secret(accountScope, "ApiKeySecret", account.apiKeySecretArn(),
                    "oncepay API key of provider account " + account.name() + ", for charge and reconcile: set to {\""
                            + DeploymentSettings.PROVIDER_ACCOUNTS_PREFIX + account.name() + "."
                            + DeploymentSettings.ACCOUNT_API_KEY + "\": \"...\"}"));
            signingSecrets.add(secret(accountScope, "SigningSecret", account.signingSecretArn(),
                    "oncepay webhook signing secrets of provider account " + account.name()
                            + ", for the webhook function: set to {\"" + DeploymentSettings.WEBHOOK_SECRETS_PREFIX
                            + account.provider() + "\": [\"current\", \"previous\"]}"));
        }

        Queue reconcileFailures = Queue.Builder.create(this, "ReconcileDeadLetters")
                .retentionPeriod(Duration.days(14))
                .encryption(QueueEncryption.SQS_MANAGED)
                .enforceSsl(true)
                .build();

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

        for (String name : List.of(DeploymentSettings.FUNCTION_CHARGE, DeploymentSettings.FUNCTION_WEBHOOK,
                DeploymentSettings.FUNCTION_RECONCILE)) {
            Map<String, String> env = new LinkedHashMap<>(environment);
            env.put(DeploymentSettings.ENV_FUNQY_EXPORT, name);
            boolean callsProviders = !name.equals(DeploymentSettings.FUNCTION_WEBHOOK);
            List<ISecret> secrets = callsProviders ? apiKeySecrets : signingSecrets;
            env.put(DeploymentSettings.ENV_SECRET_ARNS,
                    Fn.join(",", secrets.stream().map(ISecret::getSecretArn).toList()));
            if (callsProviders && !settings.routingProperties().isEmpty()) {
                env.put(DeploymentSettings.ENV_PROVIDER_ROUTING, json(settings.routingProperties()));
            }
            // Charge and reconcile count the same calls in flight, so they must agree on the cap.
            if (callsProviders) {
                settings.providerMaxInFlight().ifPresent(cap ->
                        env.put(DeploymentSettings.ENV_CHARGE_MAX_IN_FLIGHT, Integer.toString(cap)));
            }
            String construct = Character.toUpperCase(name.charAt(0)) + name.substring(1);
            LogGroup logs = LogGroup.Builder.create(this, construct + "Logs")
                    .retention(settings.logRetention())
                    .build();
            Function.Builder function = Function.Builder.create(this, construct + "Function")
                    .description("oncepay " + name)
                    .runtime(settings.isNative() ? Runtime.PROVIDED_AL2023 : Runtime.JAVA_21)
                    .handler(settings.isNative() ? DeploymentSettings.NATIVE_HANDLER : DeploymentSettings.JVM_HANDLER)
                    .code(code)
                    .architecture(settings.arm64() ? Architecture.ARM_64 : Architecture.X86_64)
                    .memorySize(settings.memoryMb())
                    .timeout(Duration.seconds(OncepaySettings.timeoutSeconds(name)))
                    .environment(env)
                    .logGroup(logs);
            settings.reservedConcurrency(name).ifPresent(function::reservedConcurrentExecutions);
            if (name.equals(DeploymentSettings.FUNCTION_RECONCILE)) {
                // Its invocations are asynchronous (EventBridge): one retry, then the dead-letter queue.
                function.retryAttempts(1)
                        .maxEventAge(Duration.minutes(5))
                        .onFailure(new SqsDestination(reconcileFailures));
            }
            Function fn = function.build();
            fn.addToRolePolicy(PolicyStatement.Builder.create()
                    .effect(Effect.ALLOW)
                    .actions(ITEM_ACTIONS)
                    .resources(List.of(table.getTableArn()))
                    .build());
            if (name.equals(DeploymentSettings.FUNCTION_RECONCILE)) {
                fn.addToRolePolicy(PolicyStatement.Builder.create()
                        .effect(Effect.ALLOW)
                        .actions(INDEX_ACTIONS)
                        .resources(List.of(table.getTableArn() + "/index/" + Table.SWEEP_INDEX))
                        .build());
            }
            fn.addToRolePolicy(PolicyStatement.Builder.create()
                    .effect(Effect.ALLOW)
                    .actions(List.of(SECRET_ACTION))
                    .resources(secrets.stream().map(ISecret::getSecretArn).toList())
                    .build());
            functions.put(name, fn);
        }

        // The HTTP API: /payments behind the JWT authorizer, webhooks authenticated by their signature.
        HttpApi api = HttpApi.Builder.create(this, "Api")
                .apiName(getStackName())
                .description("oncepay payments API and provider webhooks")
                .build();
        HttpJwtAuthorizer jwt = new HttpJwtAuthorizer("JwtAuthorizer", jwtIssuer.getValueAsString(),
                HttpJwtAuthorizerProps.builder()
                        .jwtAudience(jwtAudience.getValueAsList())
                        .identitySource(List.of("$request.header.Authorization"))
                        .build());
        HttpLambdaIntegration charge = integration(DeploymentSettings.FUNCTION_CHARGE);
        route(api, HttpMethod.POST, "/payments", charge, jwt);
        route(api, HttpMethod.GET, "/payments/{id}", charge, jwt);
        route(api, HttpMethod.POST, "/webhooks/{provider}", integration(DeploymentSettings.FUNCTION_WEBHOOK),
                new HttpNoneAuthorizer());

        Rule.Builder.create(this, "ReconcileSchedule")
                .description("Runs oncepay reconcile")
                .schedule(Schedule.rate(Duration.minutes(settings.reconcileRateMinutes())))
                .targets(List.of(LambdaFunction.Builder.create(function(DeploymentSettings.FUNCTION_RECONCILE))
                        .deadLetterQueue(reconcileFailures)
                        .retryAttempts(2)
                        .maxEventAge(Duration.minutes(5))
                        .build()))
                .build();

        Topic alarms = Topic.Builder.create(this, "Alarms").displayName("oncepay alarms").build();
        alarms(settings, api, reconcileFailures, new SnsAction(alarms));

        CfnOutput.Builder.create(this, "ApiUrl").value(api.getApiEndpoint()).build();
        CfnOutput.Builder.create(this, "TableName").value(table.getTableName()).build();
        CfnOutput.Builder.create(this, "AlarmTopicArn").value(alarms.getTopicArn())
                .description("Subscribe on-call to this topic").build();
        CfnOutput.Builder.create(this, "ReconcileDeadLetterQueueUrl").value(reconcileFailures.getQueueUrl()).build();
    }

    /** An existing secret by its complete ARN, or a new one (kept when the stack is deleted), with its ARN as an output. */
    private static ISecret secret(Construct scope, String id, Optional<String> existing, String description) {
        ISecret secret = existing
                .map(arn -> Secret.fromSecretCompleteArn(scope, id, arn))
                .orElseGet(() -> Secret.Builder.create(scope, id)
                        .description(description + "; the functions refuse to start until it is")
                        .removalPolicy(RemovalPolicy.RETAIN)
                        .build());
        CfnOutput.Builder.create(scope, id + "Arn").value(secret.getSecretArn()).description(description).build();
        return secret;
    }

    private static String json(Map<String, String> properties) {
        try {
            return new ObjectMapper().writeValueAsString(properties);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    public Function function(String name) {
        return functions.get(name);
    }

    private HttpLambdaIntegration integration(String name) {
        return new HttpLambdaIntegration(Character.toUpperCase(name.charAt(0)) + name.substring(1) + "Integration",
                function(name), HttpLambdaIntegrationProps.builder()
                        .payloadFormatVersion(PayloadFormatVersion.VERSION_2_0)
                        .timeout(Duration.seconds(OncepaySettings.integrationTimeoutSeconds(name)))
                        .build());
    }

    private static void route(HttpApi api, HttpMethod method, String path, HttpLambdaIntegration integration,
            IHttpRouteAuthorizer authorizer) {
        api.addRoutes(AddRoutesOptions.builder()
                .path(path)
                .methods(List.of(method))
                .integration(integration)
                .authorizer(authorizer)
                .build());
    }

    private void alarms(OncepaySettings settings, HttpApi api, Queue reconcileFailures, SnsAction notify) {
        MetricOptions perMinute = MetricOptions.builder().period(Duration.minutes(1)).statistic("Sum").build();
        alarm("ServerErrorRateAlarm", "More than " + settings.alarmServerErrorPercent() + "% of API requests answered 5xx",
                MathExpression.Builder.create()
                        .expression("IF(requests > 0, 100 * errors / requests, 0)")
                        .usingMetrics(Map.of("errors", api.metricServerError(perMinute), "requests", api.metricCount(perMinute)))
                        .label("5xx rate (%)")
                        .period(Duration.minutes(1))
                        .build(),
                settings.alarmServerErrorPercent(), 5, 3, notify);
        alarm("UnknownBacklogAlarm", "Payments with an unknown outcome are piling up: is reconcile settling them?",
                custom(Metrics.UNKNOWN_BACKLOG, "Maximum", 5), settings.alarmUnknownBacklog(), 2, 2, notify);
        alarm("UnknownOldestAgeAlarm", "A payment's outcome has been unknown for over "
                + settings.alarmUnknownAgeMinutes() + " minutes",
                custom(Metrics.UNKNOWN_OLDEST_AGE, "Maximum", 5), settings.alarmUnknownAgeMinutes() * 60.0, 1, 1, notify);
        alarm("NeedsReviewAlarm", "A payment needs manual review (conflicting provider facts, or reconcile gave up)",
                custom(Metrics.NEEDS_REVIEW, "Sum", 5), 1, 1, 1, notify);
        alarm("BreakerOpenAlarm", "Provider calls are refused by an open circuit breaker",
                custom(Metrics.BREAKER_OPEN, "Sum", 1), 1, 1, 1, notify);
        alarm("BreakerStoreFailedAlarm", "A fleet breaker's own item in the table could not be read or written, so "
                + "provider protection is failing open (calls go through unguarded): check DynamoDB throttling and errors "
                + "and the functions' logs",
                custom(Metrics.BREAKER_STORE_FAILED, "Sum", 5), 1, 1, 1, notify);
        alarm("RetryBudgetSpentAlarm", "Provider faults go unretried because the fleet's retry budget is spent: "
                + "a provider account is failing; check the breaker transitions in the logs and the provider's status",
                custom(Metrics.RETRY_BUDGET_SPENT, "Sum", 1), 1, 3, 2, notify);
        alarm("ProviderAtCapacityAlarm", "Provider calls are refused by the bulkhead (charges answer 503 "
                + "provider-at-capacity, reconcile defers): a provider account is slow enough to fill its share of "
                + "in-flight calls (oncepay:providerMaxInFlight); check its latency and status",
                custom(Metrics.PROVIDER_AT_CAPACITY, "Sum", 1), 1, 3, 2, notify);
        alarm("ReconcileDeadLettersAlarm", "A reconcile run failed after its retry (see the dead-letter queue)",
                reconcileFailures.metricApproximateNumberOfMessagesVisible(MetricOptions.builder()
                        .period(Duration.minutes(5)).statistic("Maximum").build()), 1, 1, 1, notify);
    }

    private static Metric custom(String name, String statistic, int periodMinutes) {
        return Metric.Builder.create()
                .namespace(Metrics.NAMESPACE)
                .metricName(name)
                .statistic(statistic)
                .period(Duration.minutes(periodMinutes))
                .build();
    }

    private void alarm(String id, String description, IMetric metric, double threshold, int evaluationPeriods,
            int datapointsToAlarm, SnsAction notify) {
        Alarm alarm = Alarm.Builder.create(this, id)
                .alarmDescription(description)
                .metric(metric)
                .threshold(threshold)
                .comparisonOperator(ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD)
                .evaluationPeriods(evaluationPeriods)
                .datapointsToAlarm(datapointsToAlarm)
                // The app emits these only when it has something to say; silence is not trouble.
                .treatMissingData(TreatMissingData.NOT_BREACHING)
                .build();
        alarm.addAlarmAction(notify);
    }
}
