package dev.oncepay.provider;

/** The provider asked us to wait longer than a synchronous charge can: give up, nothing was executed. */
public class ThrottledProviderFault extends ProviderFault {
    public ThrottledProviderFault(String detail) {
        super(detail, false, null);
    }
}
