package dev.oncepay.startup;

import dev.oncepay.provider.policy.Jitter;
import dev.oncepay.config.Secrets;
import dev.oncepay.provider.policy.FleetProtection;
import dev.oncepay.provider.ProviderGateway;
import dev.oncepay.provider.transport.ProviderHttp;
import io.quarkus.runtime.StartupEvent;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import java.util.Set;
import org.crac.Context;
import org.crac.Core;
import org.crac.Resource;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.jboss.logging.Logger;

/**
 * The function's SnapStart runtime hooks (org.crac, which the Lambda Java runtime calls around a
 * snapshot). Before the snapshot: {@link Priming}, so a restored sandbox answers its first request
 * with the path loaded. After a restore, what the snapshot froze and must not be shared or stale:
 * <ul>
 * <li>the jitter source is reseeded ({@link Jitter}): every sandbox restored from one snapshot
 * would otherwise draw the same waits;</li>
 * <li>the fleet breakers' copies (and the retry tokens earned) are dropped: they were read at
 * publish time, and the next call reads the item;</li>
 * <li>the Secrets Manager secrets are read again ({@link Secrets#reload()}): a key or signing
 * secret rotated since the snapshot is used, one that was removed no longer is. If they cannot be
 * read, the ones of the snapshot stay (one WARN line): refusing every request would be worse.</li>
 * </ul>
 * Nothing else needs refreshing: the clock is the system's (no cached instant), payment ids, lease
 * owners and probe ids are {@code UUID.randomUUID()} drawn at each use from {@code SecureRandom}
 * (on Linux NativePRNG, which mixes {@code /dev/urandom}, reseeded in a restored VM, into every
 * draw), and deadlines are taken per call. Connections: priming's provider calls go to a loopback
 * provider that closes each connection; the provider's HTTP client is dropped after a restore
 * ({@link ProviderHttp#forgetConnections()}); the store's (the SDK's url-connection client) reuses
 * a pooled connection only within its keep-alive lifetime, by the wall clock, and probes it before
 * each request: no pooled connection of the snapshot is ever reused.
 *
 * <p>At startup the provider's HTTP client, in a function that calls providers
 * ({@link ProviderGateway#callsProviders}; not the webhook), is built in the background
 * ({@link ProviderHttp#buildInBackground()}): loading and linking the REST client then runs beside
 * the first request (or priming) instead of inside it.
 *
 * <p>The CRaC context holds its resources weakly: the bean (application scoped, so the container
 * holds it) registers itself, and a static field keeps it reachable besides.
 */
@ApplicationScoped
public class SnapStartHooks implements Resource {
    private static final Logger LOG = Logger.getLogger(SnapStartHooks.class);
    /** The registered hooks: the global context would let them be collected. */
    private static volatile SnapStartHooks registered;

    private final Priming priming;
    private final FleetProtection fleet;
    private final Secrets secrets;
    private final ProviderHttp providerHttp;
    private final boolean primeAtInit;
    private final boolean callsProviders;

    SnapStartHooks(Priming priming, FleetProtection fleet, Secrets secrets, ProviderHttp providerHttp,
            PrimingConfig config,
            @ConfigProperty(name = "quarkus.funqy.export", defaultValue = "charge") String function) {
        this.priming = priming;
        this.fleet = fleet;
        this.secrets = secrets;
        this.providerHttp = providerHttp;
        this.primeAtInit = config.atInit();
        this.callsProviders = ProviderGateway.callsProviders(function);
    }

    void start(@Observes StartupEvent start) {
        // Beside the rest of init and the first request (or priming), not inside it.
        if (callsProviders) {
            providerHttp.buildInBackground();
        }
        registered = this;
        Core.getGlobalContext().register(this);
        if (primeAtInit) {
            priming.run("at init");
        }
    }

    @Override
    public void beforeCheckpoint(Context<? extends Resource> context) {
        priming.run("before checkpoint");
    }

    @Override
    public void afterRestore(Context<? extends Resource> context) {
        Jitter.reseed();
        providerHttp.forgetConnections();
        Set<String> forgotten = fleet.forgetReads();
        String reloaded;
        try {
            Set<String> names = secrets.reload();
            reloaded = names.isEmpty() ? "no secrets to reload" : "secrets reloaded " + names;
        } catch (RuntimeException e) {
            // The message names the secret and the AWS error, never a value (SecretsManagerReader).
            LOG.warnf("after restore: secrets not reloaded, the snapshot's stay in use: %s", e.getMessage());
            reloaded = "secrets not reloaded";
        }
        LOG.infof("after restore: jitter reseeded, provider connections dropped, %d breaker copies dropped, %s", forgotten.size(), reloaded);
    }

    /** Whether these are the hooks registered with the CRaC context (for tests). */
    boolean registered() {
        return registered == this;
    }
}
