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
import org.eclipse.microprofile.rest.client.annotation.ClientHeaderParam;

/**
 * Stripe's PaymentIntents API, as much as oncepay uses. One client per account base URL, built by
 * {@link StripeAdapter}; raw responses, so status and headers ({@code Stripe-Should-Retry},
 * {@code Retry-After}) decide, not exception types. Every request pins the API version the adapter
 * was written against.
 */
@Path("/v1/payment_intents")
@Produces(MediaType.APPLICATION_JSON)
@ClientHeaderParam(name = "Stripe-Version", value = StripeApi.VERSION)
public interface StripeApi {

    /** stripe-java 33.3.0's API version: the shapes this adapter reads. */
    String VERSION = "2026-07-29.dahlia";

    /** Create and (with {@code confirm=true}) confirm a PaymentIntent. */
    @POST
    @Consumes(MediaType.APPLICATION_FORM_URLENCODED)
    Response create(@HeaderParam("Authorization") String authorization,
            @HeaderParam("Idempotency-Key") String idempotencyKey, Form form);

    @GET
    @Path("/{id}")
    Response retrieve(@HeaderParam("Authorization") String authorization, @PathParam("id") String id);

    /** Search in Stripe's query language; new PaymentIntents show only after the index's lag. */
    @GET
    @Path("/search")
    Response search(@HeaderParam("Authorization") String authorization, @QueryParam("query") String query);
}
