package dev.oncepay.sim;

import java.net.URI;

/**
 * Where the simulator sends its events. {@code url} is used exactly as given (for oncepay that is
 * {@code .../webhooks/<providerId>}); {@code providerId} is the name oncepay knows this provider by
 * (design §4: {@code sim}) and is kept for tests that build that path themselves.
 */
public record WebhookTarget(URI url, String secret, String providerId) {

    public static final String DEFAULT_SECRET = "local-sim-secret";
    public static final String DEFAULT_PROVIDER_ID = "sim";
}
