package dev.oncepay.provider.spi;

/** What a cancel of a declined charge that stayed open established. */
public enum CancelOutcome {
    /** The provider says the charge is canceled: nobody can complete it any more. */
    CANCELED,
    /** The provider refused the cancel because the charge succeeded meanwhile: a conflicting fact. */
    LOST_TO_SUCCESS,
    /** No answer, or the charge is in a state the provider did not cancel yet: ask again later. */
    NOT_CANCELED
}
