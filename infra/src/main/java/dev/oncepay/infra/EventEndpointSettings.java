package dev.oncepay.infra;

import dev.oncepay.contract.DeploymentSettings;
import java.net.URI;
import java.net.URISyntaxException;
import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * One merchant endpoint of a tenant ({@code oncepay:eventEndpoints}): where its events are
 * delivered, which types it wants, and the secret that signs them (an existing one, or created by
 * the stack).
 *
 * @param tenant    the tenant id
 * @param name      the endpoint id, unique within its tenant
 * @param url       an {@code https} URL: the stack never deploys a plain-http endpoint
 * @param types     the event types it wants, in the order given; empty: every type
 * @param secretArn the secret holding {@code oncepay.events.endpoints."<tenant>"."<endpoint>".secrets}; empty: created
 */
public record EventEndpointSettings(String tenant, String name, String url, List<String> types, Optional<String> secretArn) {
    /** The event types oncepay sends (ADR 0023). */
    public static final List<String> TYPES = DeploymentSettings.EVENT_TYPES;
    private static final Pattern TENANT = Pattern.compile(DeploymentSettings.TENANT_PATTERN);
    private static final Pattern NAME = Pattern.compile(DeploymentSettings.NAME_PATTERN);

    public EventEndpointSettings {
        types = List.copyOf(types);
        String what = OncepaySettings.PREFIX + "eventEndpoints: tenant '" + tenant + "'";
        if (tenant == null || !TENANT.matcher(tenant).matches()) {
            throw new IllegalArgumentException(what + " is not a tenant id (" + DeploymentSettings.TENANT_PATTERN + ")");
        }
        what += ", endpoint '" + name + "'";
        if (name == null || !NAME.matcher(name).matches()) {
            throw new IllegalArgumentException(what + ": the endpoint id must match " + DeploymentSettings.NAME_PATTERN);
        }
        if (!isHttpsUrl(url)) {
            throw new IllegalArgumentException(what + ": url must be an https:// URL with a host, not " + url
                    + " (events are signed, but only TLS keeps them private; "
                    + DeploymentSettings.EVENTS_ALLOW_HTTP + " is for local runs, never set by the stack)");
        }
        for (String type : types) {
            if (!TYPES.contains(type)) {
                throw new IllegalArgumentException(what + ": unknown event type '" + type + "'; known: " + TYPES);
            }
        }
        if (types.size() != types.stream().distinct().count()) {
            throw new IllegalArgumentException(what + ": types lists a type twice: " + types);
        }
        ProviderAccountSettings.requireSecretArn(what + ": secretArn", secretArn);
    }

    private static boolean isHttpsUrl(String url) {
        if (url == null || !url.startsWith("https://") || url.chars().anyMatch(Character::isWhitespace)) {
            return false;
        }
        try {
            URI uri = new URI(url);
            return uri.getHost() != null && uri.getFragment() == null;
        } catch (URISyntaxException notAUrl) {
            return false;
        }
    }

    /** Its URL's key in {@link DeploymentSettings#ENV_EVENT_ENDPOINTS}. */
    String urlProperty() {
        return DeploymentSettings.endpointProperty(tenant, name, DeploymentSettings.ENDPOINT_URL);
    }

    /** Its types' key in {@link DeploymentSettings#ENV_EVENT_ENDPOINTS}, present only when it names some. */
    String typesProperty() {
        return DeploymentSettings.endpointProperty(tenant, name, DeploymentSettings.ENDPOINT_TYPES);
    }

    /** The key of its signing secrets in the secret's JSON. */
    String secretsProperty() {
        return DeploymentSettings.endpointProperty(tenant, name, DeploymentSettings.ENDPOINT_SECRETS);
    }
}
