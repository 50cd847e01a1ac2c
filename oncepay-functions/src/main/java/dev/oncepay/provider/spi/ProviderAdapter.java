package dev.oncepay.provider.spi;

import dev.oncepay.validation.FieldError;
import dev.oncepay.payment.Payment;
import dev.oncepay.payment.PaymentInstrument;
import dev.oncepay.payment.Refund;
import java.time.Duration;
import java.util.List;

/**
 * One payment provider's wire protocol, complete: what a charge request must carry for it, how a
 * charge and a lookup are sent, how its replies are classified and read, and its webhooks. One
 * application-scoped implementation per provider id ({@code sim}, {@code stripe}).
 *
 * <p>Adapters hold no policy: retries, deadlines, breakers ({@link ProviderCalls}), the state
 * machine and idempotency are one layer for every provider. An adapter performs exactly one HTTP
 * exchange per call and never retries; transport failures propagate as exceptions.
 */
public interface ProviderAdapter {

    /** The provider id: {@code ProviderAccount.provider()}, the {@code {provider}} of {@code /webhooks/{provider}}. */
    String id();

    /** What is wrong with the instrument for this provider (a missing or malformed token); empty if nothing. */
    List<FieldError> check(PaymentInstrument instrument);

    /** One charge attempt for {@code payment}, with its provider idempotency key, to {@code endpoint}. */
    ProviderReply sendCharge(AccountEndpoint endpoint, Payment payment);

    /** One lookup attempt: the provider's charges for {@code payment} (by its provider id when known). */
    ProviderReply sendLookup(AccountEndpoint endpoint, Payment payment);

    /** Whether {@code reply} is an answer to read, or a fault for the common layer to retry or end. */
    ReplyClass classify(ProviderReply reply);

    /**
     * What an answer (classified {@link ReplyClass.Answer}) says about {@code payment}'s charge;
     * final only for the provider's explicit words about this very charge (design rule 11).
     */
    ChargeResult readCharge(ProviderReply answer, Payment payment);

    /**
     * The charges a lookup answer lists for {@code payment}. An empty list only for a well-formed
     * answer that says there is none.
     *
     * @throws IndeterminateProviderFault for anything else
     */
    List<FoundCharge> readLookup(ProviderReply answer, Payment payment);

    /**
     * One attempt to cancel {@code payment}'s declined charge, which stays open to the customer
     * (only a provider whose {@link ChargeResult#cancelRequired()} says so is asked), with an
     * idempotency key derived from the payment and its {@code attempt}.
     */
    default ProviderReply sendCancel(AccountEndpoint endpoint, Payment payment, int attempt) {
        throw new UnsupportedOperationException(id() + " leaves no declined charge open");
    }

    /** What a cancel answer (classified {@link ReplyClass.Answer}) says about {@code payment}'s charge. */
    default CancelResult readCancel(ProviderReply answer, Payment payment) {
        throw new UnsupportedOperationException(id() + " leaves no declined charge open");
    }

    /**
     * One refund attempt of {@code refund} (of {@code payment}'s captured charge), with the
     * refund's provider idempotency key ({@link Refund#providerIdempotencyKey()}), to {@code endpoint}.
     */
    ProviderReply sendRefund(AccountEndpoint endpoint, Refund refund, Payment payment);

    /**
     * What a refund answer (classified {@link ReplyClass.Answer}) says about {@code refund}; final
     * only for the provider's explicit words about this very refund.
     */
    RefundResult readRefund(ProviderReply answer, Refund refund);

    /** One lookup attempt: the provider's refunds for {@code refund} (by its reference, our refund id). */
    ProviderReply sendRefundLookup(AccountEndpoint endpoint, Refund refund, Payment payment);

    /**
     * The refunds a lookup answer lists for {@code refund}. An empty list only for a well-formed
     * answer that says there is none.
     *
     * @throws IndeterminateProviderFault for anything else
     */
    List<FoundRefund> readRefundLookup(ProviderReply answer, Refund refund);

    /**
     * How long after the provider accepted a charge its lookups may still not show it, for an
     * account that declares no {@code lookup-lag} of its own: "none" from a lookup is evidence of no
     * charge only once this has passed.
     */
    Duration defaultLookupLag();
}
