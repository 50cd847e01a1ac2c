package dev.oncepay.provider.sim;

import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

/**
 * The generic PSP's REST shape (design §4), one client per account ({@link PspAdapter}). Returns
 * raw responses: status codes decide retry and outcome, not exception types.
 */
@Path("/v1")
@Produces(MediaType.APPLICATION_JSON)
@Consumes(MediaType.APPLICATION_JSON)
public interface PspApi {

    @POST
    @Path("/charges")
    Response charge(@HeaderParam("Authorization") String authorization,
            @HeaderParam("Idempotency-Key") String idempotencyKey, PspChargeRequest body);

    @GET
    @Path("/charges")
    Response chargesByReference(@HeaderParam("Authorization") String authorization,
            @QueryParam("reference") String reference);
}
