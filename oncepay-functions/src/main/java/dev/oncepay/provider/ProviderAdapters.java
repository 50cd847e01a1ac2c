package dev.oncepay.provider;

import dev.oncepay.provider.spi.ProviderAdapter;
import io.quarkus.arc.All;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.stream.Collectors;

/** The provider adapters this build has, by provider id. */
@ApplicationScoped
public class ProviderAdapters {
    private final Map<String, ProviderAdapter> byId;

    public ProviderAdapters(@All List<ProviderAdapter> adapters) {
        this.byId = adapters.stream().collect(Collectors.toMap(ProviderAdapter::id, Function.identity(), (a, b) -> {
            throw new IllegalStateException("two adapters for provider " + a.id());
        }, TreeMap::new));
    }

    public boolean knows(String providerId) {
        return byId.containsKey(providerId);
    }

    public List<String> ids() {
        return List.copyOf(byId.keySet());
    }

    /** @throws IllegalStateException for a provider without an adapter (configuration is checked at startup) */
    public ProviderAdapter of(String providerId) {
        ProviderAdapter adapter = byId.get(providerId);
        if (adapter == null) {
            throw new IllegalStateException("no adapter for provider " + providerId);
        }
        return adapter;
    }
}
