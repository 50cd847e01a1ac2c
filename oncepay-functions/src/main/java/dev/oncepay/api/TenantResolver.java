package dev.oncepay.api;

import dev.oncepay.config.OncepayConfig;
import dev.oncepay.http.HttpApiEvent;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.Map;
import java.util.Optional;

/**
 * Finds the tenant of a request in the trusted authorizer context (JWT claim or Lambda
 * authorizer key). A client header is honoured only when a local run configured one.
 */
@ApplicationScoped
public class TenantResolver {
    private static final int MAX_LENGTH = 128;

    private final String claim;
    private final Optional<String> trustedHeader;

    public TenantResolver(OncepayConfig config) {
        this.claim = config.tenant().claim();
        this.trustedHeader = config.tenant().trustedHeader().filter(h -> !h.isBlank());
    }

    public String tenantOf(HttpApiEvent event) {
        String tenant = fromAuthorizer(event);
        if (tenant == null && trustedHeader.isPresent()) {
            tenant = event.header(trustedHeader.get());
        }
        if (tenant == null || tenant.isBlank()) {
            throw new UnauthenticatedException("the request carries no tenant in its authorizer context");
        }
        if (tenant.length() > MAX_LENGTH || !tenant.chars().allMatch(c -> c > 0x20 && c < 0x7f)) {
            throw new UnauthenticatedException("the tenant in the authorizer context is malformed");
        }
        return tenant;
    }

    private String fromAuthorizer(HttpApiEvent event) {
        if (event.requestContext() == null || event.requestContext().authorizer() == null) {
            return null;
        }
        HttpApiEvent.Authorizer authorizer = event.requestContext().authorizer();
        if (authorizer.jwt() != null) {
            String value = asString(authorizer.jwt().claims(), claim);
            if (value != null) {
                return value;
            }
        }
        return asString(authorizer.lambda(), claim);
    }

    private static String asString(Map<String, Object> map, String key) {
        Object value = map == null ? null : map.get(key);
        return value == null ? null : value.toString();
    }
}
