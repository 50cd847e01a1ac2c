package dev.oncepay.provider;

import dev.oncepay.store.Attr;
import dev.oncepay.testing.TestEnvironment;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

/** Closes the fleet breakers between tests: their items go, and the sandbox forgets what it read. */
@ApplicationScoped
public class FleetBreakers {
    @Inject
    FleetBreaker breaker;

    /** Every breaker this application used is closed, with a full retry budget, for every function alike. */
    public void resetAll() {
        for (String pk : breaker.forgetReads()) {
            TestEnvironment.dynamo().deleteItem(b -> b.tableName(TestEnvironment.TABLE).key(Attr.key(pk)));
        }
    }
}
