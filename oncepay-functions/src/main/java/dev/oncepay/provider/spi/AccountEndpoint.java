package dev.oncepay.provider.spi;

import dev.oncepay.payment.ProviderAccount;
import java.net.URI;

/**
 * Where and as whom a provider account is called. The API key comes from configuration (in
 * production from Secrets Manager) and is never logged: {@link #toString()} leaves it out.
 */
public record AccountEndpoint(ProviderAccount account, URI baseUrl, String apiKey) {

    @Override
    public String toString() {
        return account + " at " + baseUrl;
    }
}
