package dev.oncepay.store;

import dev.oncepay.testkit.Dynalite;
import java.net.URI;

/** The store contract on dynalite, the DynamoDB-compatible server every build has. */
class DynaliteStoreContractTest extends StoreContract {
    private Dynalite dynalite;

    @Override
    protected StoreEndpoint startStore() {
        dynalite = Dynalite.start();
        return new StoreEndpoint(URI.create(dynalite.endpoint()), "us-east-1", "test", "test");
    }

    @Override
    protected void stopStore() {
        if (dynalite != null) {
            dynalite.close();
        }
    }

    /** dynalite ignores ReturnValuesOnConditionCheckFailure: the claim falls back to a consistent read. */
    @Override
    protected boolean returnsOldItemOnConditionFailure() {
        return false;
    }
}
