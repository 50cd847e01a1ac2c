package dev.oncepay.store;

import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.localstack.LocalStackContainer;
import org.testcontainers.utility.DockerImageName;

/**
 * The store contract on LocalStack's DynamoDB, started by Testcontainers where a Docker engine is
 * reachable; without one every test is skipped with {@link DockerEngineReachable#SKIPPED} as the
 * reason, in the console and in the surefire report. The image is pinned: {@value #DEFAULT_IMAGE}
 * is the last LocalStack image that starts without an account; another (for example a newer one
 * with {@code LOCALSTACK_AUTH_TOKEN} set, which is passed through) with
 * {@code -Doncepay.localstack.image=...}.
 */
@ExtendWith(LocalStackStoreContractTest.DockerEngineReachable.class)
class LocalStackStoreContractTest extends StoreContract {
    static final String DEFAULT_IMAGE = "localstack/localstack:4.14.0";
    static final String IMAGE = System.getProperty("oncepay.localstack.image", DEFAULT_IMAGE);

    private LocalStackContainer localstack;

    @Override
    protected StoreEndpoint startStore() {
        // Created here, not in a static field: the container's constructor asks the Docker engine for its socket.
        localstack = new LocalStackContainer(DockerImageName.parse(IMAGE)).withServices("dynamodb");
        String token = System.getenv("LOCALSTACK_AUTH_TOKEN");
        if (token != null && !token.isBlank()) {
            localstack.withEnv("LOCALSTACK_AUTH_TOKEN", token);
        }
        localstack.start();
        return new StoreEndpoint(localstack.getEndpoint(), localstack.getRegion(), localstack.getAccessKey(),
                localstack.getSecretKey());
    }

    @Override
    protected void stopStore() {
        if (localstack != null) {
            localstack.stop();
        }
    }

    /**
     * LocalStack serves DynamoDB with DynamoDB Local, which returns the old item since 2.2.0, like
     * AWS; {@code storeReturnsTheOldItemOnConditionFailureIfAndOnlyIfDeclared} checks it.
     */
    @Override
    protected boolean returnsOldItemOnConditionFailure() {
        return true;
    }

    /**
     * Runs the class only where Testcontainers reaches a Docker engine. JUnit evaluates it for the
     * class first, so a skip is decided (and said on the console) once, before any container is built.
     */
    static final class DockerEngineReachable implements ExecutionCondition {
        static final String SKIPPED = "skipped: no Docker engine reachable (LocalStack needs one); "
                + "the same contract runs against dynalite (DynaliteStoreContractTest)";

        @Override
        public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
            if (DockerClientFactory.instance().isDockerAvailable()) {
                return ConditionEvaluationResult.enabled("a Docker engine is reachable: the contract runs on " + IMAGE);
            }
            // Surefire's console prints a skipped test's count, not its reason: say it here too.
            System.out.println(context.getDisplayName() + " " + SKIPPED);
            return ConditionEvaluationResult.disabled(SKIPPED);
        }
    }
}
