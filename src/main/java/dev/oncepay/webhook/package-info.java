/**
 * The {@code webhook} function: {@code POST /webhooks/{provider}} (design §1, §3).
 *
 * <p>{@link dev.oncepay.webhook.WebhookFunction} (thin) → {@link dev.oncepay.webhook.WebhooksHttp}
 * (API Gateway event ↔ response) → {@link dev.oncepay.webhook.WebhookUseCase} (no API Gateway
 * types): verify ({@link dev.oncepay.webhook.SignatureVerifier}), parse
 * ({@link dev.oncepay.webhook.ProviderEvent}), journal ({@link dev.oncepay.webhook.EventJournal}),
 * apply through the payment state machine, complete the journal.
 *
 * <p>Answers: {@code 200} processed or duplicate (also unknown payment, ignored type);
 * {@code 401} any signature failure; {@code 400} a verified body that is not an event;
 * {@code 404} a provider without configured secrets; {@code 405} not POST. Only {@code 200}
 * stores anything; 401/400/404/405 make no DynamoDB request at all.
 *
 * <p>DynamoDB requests per event (measured by {@code WebhookFunctionTest}):
 * <ul>
 * <li>first delivery that settles a payment: 4 — PutItem (journal RECEIVED), GetItem (payment,
 * consistent), UpdateItem (payment transition), UpdateItem (journal PROCESSED);</li>
 * <li>duplicate: 1 on DynamoDB (the failed conditional PutItem returns the old item), 2 on
 * dynalite, which ignores ReturnValuesOnConditionCheckFailure (+ GetItem);</li>
 * <li>unknown payment: 3 (no payment write); ignored type: 2 (no payment read or write);</li>
 * <li>a conflicting amount on a PENDING payment: 5 (PENDING → UNKNOWN → NEEDS_REVIEW);</li>
 * <li>each lost race on the payment adds a GetItem and an UpdateItem (at most
 * {@code oncepay.webhook.apply-attempts} rounds).</li>
 * </ul>
 */
package dev.oncepay.webhook;
