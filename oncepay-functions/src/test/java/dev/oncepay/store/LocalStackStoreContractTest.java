package dev.oncepay.store;

import org.testcontainers.junit.jupiter.Testcontainers;
import org.testcontainers.localstack.LocalStackContainer;
import org.testcontainers.utility.DockerImageName;

/**
 * The store contract on LocalStack's DynamoDB, where Docker exists (skipped otherwise). The image
 * can be overridden with {@code -Doncepay.localstack.image=...}; {@code LOCALSTACK_AUTH_TOKEN} is
 * passed through when set, as newer LocalStack images require one.
 */
@Testcontainers(disabledWithoutDocker = true)
class LocalStackStoreContractTest extends StoreContract {
    static final String IMAGE = System.getProperty("oncepay.localstack.image", "localstack/localstack:4");

    private LocalStackContainer localstack;

    @Override
    protected StoreEndpoint startStore() {
        // Created here, not in a static @Container field, so a run without Docker never builds it.
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

    /** LocalStack's DynamoDB (DynamoDB Local 2.2+) returns the old item, like AWS. */
    @Override
    protected boolean returnsOldItemOnConditionFailure() {
        return true;
    }
}
