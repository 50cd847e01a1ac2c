package dev.oncepay.provider.spi;

/** The provider refused our credentials ({@code 401}/{@code 403}): nothing was executed, and retrying will not help. */
public class CredentialsRefusedFault extends ProviderFault {
    public CredentialsRefusedFault(String detail) {
        super(detail, false, null);
    }
}
