package dev.oncepay.config;

import io.smallrye.config.WithDefault;
import java.util.Map;
import java.util.Optional;

/**
 * The order guard ({@code oncepay.orders.*}): at most one successful charge per (tenant, order
 * reference), on unless a tenant turns it off. Merchants that charge one reference several times
 * on purpose (instalments, top-ups) set {@code oncepay.orders.tenants.<tenant>.once-per-reference=false}.
 */
public interface OrdersConfig {

    /** The guard for tenants without a setting of their own. */
    @WithDefault("true")
    boolean oncePerReference();

    /** Per-tenant settings, by tenant id. */
    Map<String, TenantOrders> tenants();

    /** One tenant's order settings. */
    interface TenantOrders {
        /** Overrides {@link OrdersConfig#oncePerReference()} for this tenant. */
        Optional<Boolean> oncePerReference();
    }
}
