package dev.oncepay.infra;

import static dev.oncepay.infra.Synth.at;
import static dev.oncepay.infra.Synth.props;
import static dev.oncepay.infra.Synth.ref;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import dev.oncepay.contract.DeploymentSettings;
import dev.oncepay.contract.SamTemplate;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The SAM templates that oncepay-functions' package phase writes ({@link SamTemplate}) run each
 * function as the stack the CDK app synthesizes with default settings does, runtime by runtime:
 * the same handler, runtime, memory, timeout, reserved concurrency and environment, the same
 * routes with the same integration timeouts, the same schedule, the same charge and event queues
 * and their mappings.
 */
class SamTemplateTest {
    /** The SAM parameter that stands in for each variable whose value is a resource of the stack. */
    private static final Map<String, String> STAND_INS = Map.of(
            DeploymentSettings.ENV_TABLE, SamTemplate.TABLE_NAME,
            DeploymentSettings.ENV_OPERATOR_ROLE_NAME, SamTemplate.OPERATOR_ROLE_NAME);
    /** How the stack's logical ids of the default account's resources begin. */
    private static final String DEFAULT_ACCOUNT_SCOPE = "Account" + DeploymentSettings.DEFAULT_ACCOUNT;

    @TempDir
    static Path dir;
    static Synth nativeStack;
    static Synth jvmStack;

    @BeforeAll
    static void synthesize() throws Exception {
        String openApi = Synth.openApiDocument(dir).toString();
        nativeStack = new Synth(Map.of("oncepay:functionZip", Synth.zip(dir, true).toString(),
                "oncepay:openApiDocument", openApi));
        jvmStack = new Synth(Map.of("oncepay:runtime", OncepaySettings.JVM,
                "oncepay:functionZip", Synth.zip(dir, false).toString(), "oncepay:openApiDocument", openApi));
    }

    @ParameterizedTest(name = "native {0}")
    @ValueSource(booleans = {true, false})
    void theWrittenYamlIsTheTemplate(boolean nativeRuntime) throws Exception {
        SamTemplate.main(new String[] {dir.toString()});
        String yaml = Files.readString(dir.resolve(nativeRuntime ? SamTemplate.NATIVE_FILE : SamTemplate.JVM_FILE));

        Map<String, Object> read = new YAMLMapper().readValue(yaml, new TypeReference<>() { });

        assertEquals(SamTemplate.template(nativeRuntime), read);
        assertEquals(SamTemplate.yaml(nativeRuntime), yaml);
    }

    @ParameterizedTest(name = "native {0}")
    @ValueSource(booleans = {true, false})
    void eachFunctionRunsAsTheStackRunsIt(boolean nativeRuntime) {
        Map<String, Map<String, Object>> stack = functions(nativeRuntime ? nativeStack : jvmStack);
        Map<String, Map<String, Object>> sam = samFunctions(nativeRuntime);
        assertEquals(stack.keySet(), sam.keySet());
        for (String name : DeploymentSettings.FUNCTIONS) {
            Map<String, Object> deployed = stack.get(name);
            Map<String, Object> local = sam.get(name);
            // The stack's logical id of the function starts with the template's (CDK appends a hash).
            String stackId = (nativeRuntime ? nativeStack : jvmStack).id(OncepayStackTest.FUNCTION, SamTemplate.logicalId(name));
            assertEquals(deployed, props((nativeRuntime ? nativeStack : jvmStack).resources(OncepayStackTest.FUNCTION).get(stackId)));
            for (String property : List.of("Runtime", "Handler", "MemorySize", "Timeout", "Architectures",
                    "ReservedConcurrentExecutions")) {
                assertEquals(deployed.get(property), local.get(property), name + " " + property);
            }
            assertEquals(SamTemplate.CODE_URI, local.get("CodeUri"), name);
        }
    }

    /**
     * The same variables; a literal value equal, a parameter of the stack the
     * same-named parameter, with the same default; a resource of the stack (the table, the
     * secrets, the operator role) its stand-in parameter.
     */
    @ParameterizedTest(name = "native {0}")
    @ValueSource(booleans = {true, false})
    void eachFunctionHasTheStacksEnvironment(boolean nativeRuntime) {
        Synth synth = nativeRuntime ? nativeStack : jvmStack;
        Map<String, Object> stackParameters = at(synth.json, "Parameters");
        Map<String, Object> samParameters = at(SamTemplate.template(nativeRuntime), "Parameters");
        Map<String, Map<String, Object>> stack = functions(synth);
        Map<String, Map<String, Object>> sam = samFunctions(nativeRuntime);
        for (String name : DeploymentSettings.FUNCTIONS) {
            Map<String, Object> deployed = at(stack.get(name), "Environment", "Variables");
            Map<String, Object> local = at(sam.get(name), "Environment", "Variables");
            assertEquals(new TreeSet<>(deployed.keySet()), new TreeSet<>(local.keySet()), name);
            deployed.forEach((variable, value) -> {
                Object samValue = local.get(variable);
                if (value instanceof String literal) {
                    assertEquals(literal, samValue, name + " " + variable);
                } else if (value instanceof Map<?, ?> reference && stackParameters.containsKey(reference.get("Ref"))) {
                    String parameter = (String) reference.get("Ref");
                    assertEquals(ref(parameter), samValue, name + " " + variable);
                    Object stackDefault = at(stackParameters, parameter, "Default");
                    if (stackDefault != null) {
                        assertEquals(stackDefault, at(samParameters, parameter, "Default"), parameter);
                    }
                } else if (value instanceof Map<?, ?> reference && synth.resources("AWS::SQS::Queue").containsKey(reference.get("Ref"))) {
                    // A queue of the stack: the template's own, the default account's charge queue or the event queue.
                    Map<Object, String> samQueues = Map.of(
                            synth.id("AWS::SQS::Queue", DEFAULT_ACCOUNT_SCOPE + SamTemplate.CHARGE_QUEUE), SamTemplate.CHARGE_QUEUE,
                            synth.id("AWS::SQS::Queue", SamTemplate.EVENT_QUEUE), SamTemplate.EVENT_QUEUE);
                    assertTrue(samQueues.containsKey(reference.get("Ref")), name + " " + variable + ": " + reference);
                    assertEquals(ref(samQueues.get(reference.get("Ref"))), samValue, name + " " + variable);
                } else {
                    assertEquals(ref(standIn(name, variable)), samValue, name + " " + variable + " (the stack's " + value + ")");
                }
            });
        }
        Map<String, Object> samResources = at(SamTemplate.template(nativeRuntime), "Resources");
        for (Map<String, Object> function : sam.values()) {
            Map<String, Object> env = at(function, "Environment", "Variables");
            env.values().stream().filter(Map.class::isInstance).map(reference -> ((Map<?, ?>) reference).get("Ref")).forEach(
                    name -> assertTrue(samParameters.containsKey(name) || samResources.containsKey(name), "undeclared: " + name));
        }
    }

    private static String standIn(String function, String variable) {
        if (variable.equals(DeploymentSettings.ENV_SECRET_ARNS)) {
            return function.equals(DeploymentSettings.FUNCTION_WEBHOOK) ? SamTemplate.SIGNING_SECRET_ARNS
                    : SamTemplate.API_KEY_SECRET_ARNS;
        }
        String standIn = STAND_INS.get(variable);
        assertTrue(standIn != null, variable + " is a resource of the stack without a stand-in parameter");
        return standIn;
    }

    /**
     * Charge and webhook serve the stack's routes (payload 2.0, the integration's timeout); reconcile
     * runs on its schedule; the worker and event-delivery on their queues (eachQueueFedFunctionTakesUpItsQueueAsTheStackDoes).
     */
    @ParameterizedTest(name = "native {0}")
    @ValueSource(booleans = {true, false})
    void theRoutesAndTheScheduleAreTheStacks(boolean nativeRuntime) {
        Synth synth = nativeRuntime ? nativeStack : jvmStack;
        Map<String, String> deployedRoutes = new TreeMap<>();
        Map<String, Object> integrations = new TreeMap<>();
        synth.resources("AWS::ApiGatewayV2::Integration").forEach((id, integration) -> integrations.put(id, props(integration)));
        for (Map<String, Object> route : synth.properties("AWS::ApiGatewayV2::Route")) {
            String integrationId = at(route, "Target", "Fn::Join", 1, 1, "Ref");
            Map<String, Object> integration = at(integrations, integrationId);
            deployedRoutes.put((String) route.get("RouteKey"), functionOf(synth, integration.get("IntegrationUri"))
                    + " " + integration.get("PayloadFormatVersion") + " " + integration.get("TimeoutInMillis"));
        }
        Map<String, String> samRoutes = new TreeMap<>();
        String schedule = null;
        for (Map.Entry<String, Map<String, Object>> function : samFunctions(nativeRuntime).entrySet()) {
            Map<String, Map<String, Object>> events = at(function.getValue(), "Events");
            for (Map<String, Object> event : events.values()) {
                Map<String, Object> properties = at(event, "Properties");
                if (event.get("Type").equals("Schedule")) {
                    assertEquals(DeploymentSettings.FUNCTION_RECONCILE, function.getKey());
                    schedule = (String) properties.get("Schedule");
                } else if (event.get("Type").equals("SQS")) {
                    assertTrue(Set.of(DeploymentSettings.FUNCTION_CHARGE_WORKER, DeploymentSettings.FUNCTION_EVENT_DELIVERY)
                            .contains(function.getKey()), function.getKey());
                } else {
                    assertEquals("HttpApi", event.get("Type"));
                    samRoutes.put(properties.get("Method") + " " + properties.get("Path"), function.getKey() + " "
                            + properties.get("PayloadFormatVersion") + " " + properties.get("TimeoutInMillis"));
                }
            }
        }
        assertEquals(deployedRoutes, samRoutes);

        Map<String, Object> rule = synth.only("AWS::Events::Rule");
        assertEquals(DeploymentSettings.FUNCTION_RECONCILE, functionOf(synth, at(rule, "Targets", 0, "Arn")));
        assertEquals(rule.get("ScheduleExpression"), schedule);
    }

    /**
     * The default account's charge queue and the event queue, and their dead-letter queues, are the
     * stack's, and the worker's and event-delivery's SQS events take them up as the stack's
     * event-source mappings do: batch size, batching window, failures reported per message, maximum
     * concurrency.
     */
    @ParameterizedTest(name = "native {0}")
    @ValueSource(booleans = {true, false})
    void eachQueueFedFunctionTakesUpItsQueueAsTheStackDoes(boolean nativeRuntime) {
        Synth synth = nativeRuntime ? nativeStack : jvmStack;
        assertTakesUpItsQueue(synth, nativeRuntime, DeploymentSettings.FUNCTION_CHARGE_WORKER, DEFAULT_ACCOUNT_SCOPE,
                SamTemplate.CHARGE_QUEUE, SamTemplate.CHARGE_DEAD_LETTERS);
        assertTakesUpItsQueue(synth, nativeRuntime, DeploymentSettings.FUNCTION_EVENT_DELIVERY, "",
                SamTemplate.EVENT_QUEUE, SamTemplate.EVENT_DEAD_LETTERS);
        assertEquals(2, synth.resources("AWS::Lambda::EventSourceMapping").size());
    }

    /** @param scope how the stack's logical ids of the queues begin before the template's ids for them */
    private static void assertTakesUpItsQueue(Synth synth, boolean nativeRuntime, String function, String scope,
            String samQueue, String samDeadLetters) {
        Map<String, Object> samResources = at(SamTemplate.template(nativeRuntime), "Resources");
        String queue = synth.id("AWS::SQS::Queue", scope + samQueue);
        String deadLetters = synth.id("AWS::SQS::Queue", scope + samDeadLetters);
        Map<String, Object> deployedQueue = new TreeMap<>(props(synth.resources("AWS::SQS::Queue").get(queue)));
        // The stack's dead-letter queue, by the template's id for it.
        assertEquals(Map.of("Fn::GetAtt", List.of(deadLetters, "Arn")), at(deployedQueue, "RedrivePolicy", "deadLetterTargetArn"));
        Object maxReceives = at(deployedQueue, "RedrivePolicy", "maxReceiveCount");
        deployedQueue.put("RedrivePolicy", Map.of("deadLetterTargetArn", Map.of("Fn::GetAtt", List.of(samDeadLetters, "Arn")),
                "maxReceiveCount", maxReceives));
        assertEquals(Map.of("Type", "AWS::SQS::Queue", "Properties", deployedQueue), samResources.get(samQueue), function);
        assertEquals(Map.of("Type", "AWS::SQS::Queue", "Properties", props(synth.resources("AWS::SQS::Queue").get(deadLetters))),
                samResources.get(samDeadLetters), function);

        List<Map<String, Object>> mappings = synth.properties("AWS::Lambda::EventSourceMapping").stream()
                .filter(m -> Map.of("Fn::GetAtt", List.of(queue, "Arn")).equals(m.get("EventSourceArn"))).toList();
        assertEquals(1, mappings.size(), function);
        Map<String, Object> mapping = mappings.get(0);
        Map<String, Map<String, Object>> events = at(samFunctions(nativeRuntime).get(function), "Events");
        assertEquals(Map.of(samQueue, Map.of("Type", "SQS", "Properties", Map.of(
                "Queue", Map.of("Fn::GetAtt", List.of(samQueue, "Arn")),
                "BatchSize", mapping.get("BatchSize"),
                "MaximumBatchingWindowInSeconds", mapping.get("MaximumBatchingWindowInSeconds"),
                "FunctionResponseTypes", mapping.get("FunctionResponseTypes"),
                "ScalingConfig", mapping.get("ScalingConfig")))), events, function);
    }

    /** The function whose live alias a route's integration or the schedule's target invokes. */
    private static String functionOf(Synth synth, Object target) {
        for (String name : DeploymentSettings.FUNCTIONS) {
            if (ref(synth.id("AWS::Lambda::Alias", SamTemplate.logicalId(name) + "LiveAlias")).equals(target)) {
                return name;
            }
        }
        throw new AssertionError("no function's live alias: " + target);
    }

    /** The stack's functions by {@code QUARKUS_FUNQY_EXPORT}. */
    private static Map<String, Map<String, Object>> functions(Synth synth) {
        Map<String, Map<String, Object>> byName = new TreeMap<>();
        for (Map<String, Object> f : synth.properties(OncepayStackTest.FUNCTION)) {
            byName.put(at(f, "Environment", "Variables", DeploymentSettings.ENV_FUNQY_EXPORT), f);
        }
        return byName;
    }

    /** The SAM template's functions by name, each under the stack's logical id for it. */
    private static Map<String, Map<String, Object>> samFunctions(boolean nativeRuntime) {
        Map<String, Object> resources = at(SamTemplate.template(nativeRuntime), "Resources");
        Map<String, Map<String, Object>> byName = new TreeMap<>();
        for (String name : DeploymentSettings.FUNCTIONS) {
            String id = SamTemplate.logicalId(name);
            Map<String, Object> resource = at(resources, id);
            assertEquals("AWS::Serverless::Function", resource.get("Type"), id);
            byName.put(name, props(resource));
        }
        return byName;
    }
}
