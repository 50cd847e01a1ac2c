package dev.oncepay.provider.spi;

/**
 * The request may have reached the provider but no answer came back (read timeout, reset after
 * send). Never retried blindly: the payment becomes UNKNOWN and reconcile asks the provider.
 */
public class IndeterminateProviderFault extends ProviderFault {
    public IndeterminateProviderFault(String detail, Throwable cause) {
        super(detail, true, cause);
    }
}
