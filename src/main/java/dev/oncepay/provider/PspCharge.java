package dev.oncepay.provider;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;

/** A charge as the PSP reports it. {@code status}: {@code succeeded | declined | failed}. */
@JsonIgnoreProperties(ignoreUnknown = true)
public record PspCharge(String id, String status, String reference, Long amount, String currency, String declineCode) {
}
