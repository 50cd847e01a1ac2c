package dev.oncepay.config;

import io.smallrye.config.WithDefault;
import java.util.Optional;

/** Where a request's tenant comes from ({@code oncepay.tenant.*}). */
public interface TenantConfig {

    /** JWT claim (or Lambda-authorizer context key) that carries the tenant id. */
    @WithDefault("tenant_id")
    String claim();

    /**
     * Local runs only: header that stands in for the authorizer. Empty in production, where
     * a client-supplied tenant would let one merchant act as another.
     */
    Optional<String> trustedHeader();
}
