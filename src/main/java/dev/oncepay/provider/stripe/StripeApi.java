package dev.oncepay.provider.stripe;

import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.Form;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

/**
 * Stripe's PaymentIntents API, as much as oncepay uses. One client per account base URL, built by
 * {@link StripeAdapter}; raw responses, so status and headers ({@code Stripe-Should-Retry},
 * {@code Retry-After}) decide, not exception types. Every request pins the API version
 * ({@code Stripe-Version}, {@code oncepay.provider.stripe.api-version}) whose shapes the adapter reads.
 */
@Path("/v1/payment_intents")
@Produces(MediaType.APPLICATION_JSON)
public interface StripeApi {

    /** Create and (with {@code confirm=true}) confirm a PaymentIntent. */
    @POST
    @Consumes(MediaType.APPLICATION_FORM_URLENCODED)
    Response create(@HeaderParam("Authorization") String authorization, @HeaderParam("Stripe-Version") String version,
            @HeaderParam("Idempotency-Key") String idempotencyKey, Form form);

    @GET
    @Path("/{id}")
    Response retrieve(@HeaderParam("Authorization") String authorization, @HeaderParam("Stripe-Version") String version,
            @PathParam("id") String id);

    /** Search in Stripe's query language; new PaymentIntents show only after the index's lag. */
    @GET
    @Path("/search")
    Response search(@HeaderParam("Authorization") String authorization, @HeaderParam("Stripe-Version") String version,
            @QueryParam("query") String query);
}
