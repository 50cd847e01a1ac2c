package dev.oncepay.config;

import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;
import org.eclipse.microprofile.config.spi.ConfigSource;

/**
 * The properties of this function's Secrets Manager secrets ({@link SecretsManagerConfigSourceFactory}),
 * as a configuration source that can read them again: a SnapStart snapshot freezes what was read at
 * init, and a restored sandbox must sign and call with the secrets of now (a rotation since the
 * snapshot). {@link #reload()} swaps the whole set at once, so a reader sees the old set or the new
 * one, never a mix. Values are never logged or quoted.
 */
public final class SecretsConfigSource implements ConfigSource {
    private final Supplier<Map<String, String>> read;
    private volatile Map<String, String> properties;

    /** {@code read} reads and checks the secrets (each call afresh); it is called once here. */
    SecretsConfigSource(Supplier<Map<String, String>> read) {
        this.read = read;
        this.properties = Map.copyOf(read.get());
    }

    /**
     * Reads the secrets again and puts them in place of the previous ones.
     *
     * @return the names of the properties it holds now (never values)
     * @throws IllegalStateException if a secret cannot be read or is refused; the previous set stays
     */
    public Set<String> reload() {
        Map<String, String> fresh = Map.copyOf(read.get());
        properties = fresh;
        return fresh.keySet();
    }

    @Override
    public Map<String, String> getProperties() {
        return properties;
    }

    @Override
    public Set<String> getPropertyNames() {
        return properties.keySet();
    }

    @Override
    public String getValue(String propertyName) {
        return properties.get(propertyName);
    }

    @Override
    public String getName() {
        return SecretsManagerConfigSourceFactory.SOURCE_NAME;
    }

    @Override
    public int getOrdinal() {
        return SecretsManagerConfigSourceFactory.ORDINAL;
    }
}
