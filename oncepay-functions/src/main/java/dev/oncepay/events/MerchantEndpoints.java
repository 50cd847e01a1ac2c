package dev.oncepay.events;

import dev.oncepay.payment.MerchantEventType;

import dev.oncepay.config.EventsConfig;
import dev.oncepay.config.OncepayConfig;
import dev.oncepay.contract.DeploymentSettings;
import jakarta.enterprise.context.ApplicationScoped;
import java.net.URI;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Every tenant's endpoints, read and checked once: a plain-http URL (outside the local run and the
 * tests), an unknown event type or a malformed id stops the function at startup, naming the property.
 */
@ApplicationScoped
public class MerchantEndpoints {
    private static final Pattern NAME = Pattern.compile(DeploymentSettings.NAME_PATTERN);
    private static final Pattern TENANT = Pattern.compile(DeploymentSettings.TENANT_PATTERN);

    private final Map<String, List<MerchantEndpoint>> byTenant;
    private final boolean relaying;

    public MerchantEndpoints(OncepayConfig config) {
        EventsConfig events = config.events();
        this.relaying = events.queueUrl().isPresent();
        this.byTenant = read(events);
    }

    static Map<String, List<MerchantEndpoint>> read(EventsConfig events) {
        Map<String, List<MerchantEndpoint>> tenants = new java.util.TreeMap<>();
        events.endpoints().forEach((tenant, endpoints) -> {
            List<MerchantEndpoint> list = new ArrayList<>();
            endpoints.forEach((id, endpoint) -> list.add(endpoint(tenant, id, endpoint, events.allowHttp())));
            tenants.put(tenant, List.copyOf(list));
        });
        return Map.copyOf(tenants);
    }

    private static MerchantEndpoint endpoint(String tenant, String id, EventsConfig.Endpoint endpoint, boolean allowHttp) {
        String property = DeploymentSettings.endpointProperty(tenant, id, DeploymentSettings.ENDPOINT_URL);
        if (!TENANT.matcher(tenant).matches() || !NAME.matcher(id).matches()) {
            throw new IllegalStateException(property + ": the tenant must match " + DeploymentSettings.TENANT_PATTERN
                    + " and the endpoint " + DeploymentSettings.NAME_PATTERN);
        }
        URI url;
        try {
            url = URI.create(endpoint.url().trim());
        } catch (IllegalArgumentException malformed) {
            throw new IllegalStateException(property + " is not a URL");
        }
        boolean https = "https".equalsIgnoreCase(url.getScheme());
        boolean http = "http".equalsIgnoreCase(url.getScheme());
        if (url.getHost() == null || !(https || (http && allowHttp))) {
            throw new IllegalStateException(property + " must be an absolute https URL"
                    + (http ? " (plain http only with " + DeploymentSettings.EVENTS_ALLOW_HTTP + "=true, never in production)" : ""));
        }
        Set<MerchantEventType> types = EnumSet.noneOf(MerchantEventType.class);
        if (endpoint.types().isEmpty()) {
            types.addAll(EnumSet.allOf(MerchantEventType.class));
        } else {
            for (String name : endpoint.types().get()) {
                types.add(MerchantEventType.ofWireName(name.trim()).orElseThrow(() -> new IllegalStateException(
                        DeploymentSettings.endpointProperty(tenant, id, DeploymentSettings.ENDPOINT_TYPES)
                                + " names an unknown event type: " + name.trim())));
            }
        }
        List<String> secrets = endpoint.secrets().orElse(List.of()).stream().map(String::trim)
                .filter(s -> !s.isEmpty()).toList();
        return new MerchantEndpoint(tenant, id, url, Set.copyOf(types), secrets);
    }

    /** The endpoints of {@code tenant} that want {@code type}; none when events are not relayed here. */
    public List<MerchantEndpoint> wanting(String tenant, MerchantEventType type) {
        if (!relaying) {
            return List.of();
        }
        return byTenant.getOrDefault(tenant, List.of()).stream().filter(e -> e.wants(type)).toList();
    }

    /** Whether an event of {@code type} for {@code tenant} goes anywhere: decides whether its write marks the outbox. */
    public boolean anyWants(String tenant, MerchantEventType type) {
        return !wanting(tenant, type).isEmpty();
    }

    public Optional<MerchantEndpoint> find(String tenant, String id) {
        return byTenant.getOrDefault(tenant, List.of()).stream().filter(e -> e.id().equals(id)).findFirst();
    }

    public List<MerchantEndpoint> of(String tenant) {
        return byTenant.getOrDefault(tenant, List.of());
    }

    /** Every endpoint of every tenant. */
    public List<MerchantEndpoint> all() {
        return byTenant.values().stream().flatMap(List::stream).toList();
    }
}
