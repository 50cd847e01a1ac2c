package dev.oncepay.provider;

import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import org.eclipse.microprofile.rest.client.annotation.ClientHeaderParam;
import org.eclipse.microprofile.rest.client.inject.RegisterRestClient;

/**
 * The PSP's REST shape (Stripe-like, design §4). Returns raw responses: status codes decide
 * retry and outcome in {@link ProviderGateway}, not exception types.
 */
@RegisterRestClient(configKey = "psp")
@Path("/v1")
@Produces(MediaType.APPLICATION_JSON)
@Consumes(MediaType.APPLICATION_JSON)
@ClientHeaderParam(name = "Authorization", value = "Bearer ${oncepay.provider.api-key}")
public interface PspApi {

    @POST
    @Path("/charges")
    Response charge(@HeaderParam("Idempotency-Key") String idempotencyKey, PspChargeRequest body);

    @GET
    @Path("/charges")
    Response chargesByReference(@QueryParam("reference") String reference);
}
