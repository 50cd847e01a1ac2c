package dev.oncepay.infra;

import static dev.oncepay.infra.Synth.at;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.oncepay.config.DeploymentSettings;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import software.amazon.awscdk.assertions.Annotations;
import software.amazon.awscdk.assertions.Match;

/** The choices a deployer makes by context, all in one second synthesis. */
class OncepayVariantsTest {
    private static final String SECRET_ARN = "arn:aws:secretsmanager:eu-west-1:123456789012:secret:oncepay-AbCdEf";
    static Synth synth;

    @BeforeAll
    static void synthesize() {
        synth = new Synth(Map.of(
                "oncepay:runtime", "jvm",
                "oncepay:placeholderCode", "true",
                "oncepay:functionZip", "does/not/exist.zip",
                "oncepay:architecture", "arm64",
                "oncepay:secretArn", SECRET_ARN,
                "oncepay:reconcileRateMinutes", "5",
                "oncepay:chargeConcurrency", "none",
                "oncepay:logRetentionDays", "90"));
    }

    @Test
    void theJvmVariantRunsJava21WithTheFunqyHandler() {
        for (Map<String, Object> function : synth.properties("AWS::Lambda::Function")) {
            assertEquals("java21", function.get("Runtime"));
            assertEquals(DeploymentSettings.JVM_HANDLER, function.get("Handler"));
            assertEquals(1024, function.get("MemorySize"));
            assertEquals(List.of("arm64"), function.get("Architectures"));
            Map<String, Object> env = at(function, "Environment", "Variables");
            assertFalse(env.containsKey(DeploymentSettings.ENV_DISABLE_SIGNAL_HANDLERS));
        }
    }

    @Test
    void anExistingSecretIsUsedAndOnlyItMayBeRead() {
        assertTrue(synth.resources("AWS::SecretsManager::Secret").isEmpty());
        for (Map<String, Object> function : synth.properties("AWS::Lambda::Function")) {
            assertEquals(SECRET_ARN, at(function, "Environment", "Variables", DeploymentSettings.ENV_SECRET_ARN));
        }
        synth.template.hasResourceProperties("AWS::IAM::Policy", Map.of("PolicyDocument", Map.of("Statement",
                Match.arrayWith(List.of(Map.of("Action", OncepayStack.SECRET_ACTION, "Effect", "Allow",
                        "Resource", SECRET_ARN))))));
    }

    @Test
    void contextTunesScheduleConcurrencyAndRetention() {
        assertEquals("rate(5 minutes)", synth.only("AWS::Events::Rule").get("ScheduleExpression"));
        for (Map<String, Object> function : synth.properties("AWS::Lambda::Function")) {
            String name = at(function, "Environment", "Variables", DeploymentSettings.ENV_FUNQY_EXPORT);
            assertEquals(!name.equals(DeploymentSettings.FUNCTION_CHARGE), function.containsKey("ReservedConcurrentExecutions"), name);
        }
        synth.properties("AWS::Logs::LogGroup").forEach(g -> assertEquals(90, g.get("RetentionInDays")));
    }

    @Test
    void placeholderCodeIsFlagged() {
        Annotations.fromStack(synth.stack).hasWarning("/Oncepay", Match.stringLikeRegexp(".*placeholder code.*"));
    }
}
