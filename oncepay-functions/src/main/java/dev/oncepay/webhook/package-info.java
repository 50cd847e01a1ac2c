/**
 * The {@code webhook} function: {@code POST /webhooks/{provider}} (design §1 and §3).
 *
 * <p>{@link dev.oncepay.function.WebhookFunction} (thin) → {@link dev.oncepay.api.WebhooksHttp}
 * (API Gateway event ↔ response) → {@link dev.oncepay.webhook.WebhookUseCase} (no API Gateway
 * types): verify and read with the provider's {@link dev.oncepay.provider.webhook.WebhookFormat} (its
 * signature header and event format; the {@code t=,v1=} HMAC scheme is shared,
 * {@link dev.oncepay.provider.webhook.SignatureVerifier}) into a provider-neutral
 * {@link dev.oncepay.provider.webhook.ProviderEvent}, journal ({@link dev.oncepay.webhook.EventJournal}),
 * apply through the payment state machine (one for every provider), complete the journal.
 *
 * <p>Answers: {@code 200} processed or duplicate (also unknown payment, ignored type);
 * {@code 401} any signature failure; {@code 400} a verified body that is not an event;
 * {@code 404} a provider without a webhook format or configured secrets; {@code 405} not POST. Only {@code 200}
 * stores anything; 401/400/404/405 make no DynamoDB request at all.
 *
 * <p>DynamoDB requests per event (measured by {@code WebhookFunctionTest}):
 * <ul>
 * <li>first delivery that settles a payment: 4 — PutItem (journal RECEIVED), GetItem (payment,
 * consistent), UpdateItem (payment transition), UpdateItem (journal PROCESSED);</li>
 * <li>duplicate: 1 on DynamoDB (the failed conditional PutItem returns the old item), 2 on
 * dynalite, which ignores ReturnValuesOnConditionCheckFailure (+ GetItem);</li>
 * <li>unknown payment, provider conflict, not final: 3 (no payment write); ignored type, not
 * ours: 2 (no payment read or write);</li>
 * <li>a conflicting amount on a PENDING payment: 5 (PENDING → UNKNOWN → NEEDS_REVIEW);</li>
 * <li>each lost race on the payment adds a GetItem and an UpdateItem (at most
 * {@code oncepay.webhook.apply-attempts} rounds).</li>
 * </ul>
 */
package dev.oncepay.webhook;
