package dev.oncepay.local;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.oncepay.contract.DeploymentSettings;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The merchant events of the local run, as each function's environment: the event queue ({@value
 * DeploymentSettings#ENV_EVENT_QUEUE_URL}) and every tenant's endpoint {@value
 * LocalRunOptions#MERCHANT_ENDPOINT_ID} at the merchant endpoint, {@code
 * http://127.0.0.1:<merchant port>/merchant/<tenant>} ({@value DeploymentSettings#ENV_EVENT_ENDPOINTS},
 * URL only: every event type), to every function, as {@code infra/} deploys them; plain {@code http}
 * allowed ({@value DeploymentSettings#EVENTS_ALLOW_HTTP}, never in production). The endpoints'
 * signing secret goes to event-delivery only, as the webhook secrets go to webhook only.
 */
final class LocalEvents {
    private static final ObjectMapper JSON = new ObjectMapper();

    private LocalEvents() {
    }

    /**
     * The events part of {@code function}'s environment; empty when the run relays no events.
     *
     * @param queueUrl the event queue's URL
     */
    static Map<String, String> environment(String function, LocalRunOptions options, String queueUrl) {
        Map<String, String> env = new LinkedHashMap<>();
        if (!options.events()) {
            return env;
        }
        env.put(DeploymentSettings.ENV_EVENT_QUEUE_URL, queueUrl);
        ObjectNode endpoints = JSON.createObjectNode();
        for (String tenant : options.merchantTenants()) {
            endpoints.put(DeploymentSettings.endpointProperty(tenant, LocalRunOptions.MERCHANT_ENDPOINT_ID,
                    DeploymentSettings.ENDPOINT_URL), endpointUrl(options, tenant));
        }
        env.put(DeploymentSettings.ENV_EVENT_ENDPOINTS, endpoints.toString());
        env.put(variable(DeploymentSettings.EVENTS_ALLOW_HTTP), "true");
        if (function.equals(DeploymentSettings.FUNCTION_EVENT_DELIVERY)) {
            for (String tenant : options.merchantTenants()) {
                env.put(secretsVariable(tenant, LocalRunOptions.MERCHANT_ENDPOINT_ID), options.merchantSecret());
            }
        }
        return env;
    }

    /** Where {@code tenant}'s endpoint receives its events: the merchant endpoint, under the tenant's own path. */
    static String endpointUrl(LocalRunOptions options, String tenant) {
        return merchantUrl(options) + "/merchant/" + tenant;
    }

    static String merchantUrl(LocalRunOptions options) {
        return "http://127.0.0.1:" + options.merchantPort();
    }

    /** The merchant endpoint's secrets, by its endpoint id (the tenant: the last segment of its URL). */
    static Map<String, List<String>> merchantSecrets(LocalRunOptions options) {
        Map<String, List<String>> secrets = new LinkedHashMap<>();
        options.merchantTenants().forEach(tenant -> secrets.put(tenant, List.of(options.merchantSecret())));
        return secrets;
    }

    /**
     * {@code oncepay.events.endpoints."<tenant>"."<endpoint>".secrets} as an environment variable:
     * each quoted key between double underscores, as MicroProfile Config maps a variable back to a
     * quoted key ({@code ONCEPAY_EVENTS_ENDPOINTS__MERCHANT_A___ORDERS__SECRETS}).
     */
    static String secretsVariable(String tenant, String endpoint) {
        return variable(DeploymentSettings.endpointProperty(tenant, endpoint, DeploymentSettings.ENDPOINT_SECRETS));
    }

    /** A property's environment variable: every character but letters and digits an underscore, upper case. */
    private static String variable(String property) {
        return property.replaceAll("[^A-Za-z0-9]", "_").toUpperCase(Locale.ROOT);
    }
}
