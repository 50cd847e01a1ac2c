package dev.oncepay.admin;

import static dev.oncepay.testing.Problems.assertProblem;
import static dev.oncepay.testing.Problems.errorFields;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.oncepay.charge.ChargePhase;
import dev.oncepay.testkit.HttpApiEvents;
import dev.oncepay.testing.LambdaClient;
import dev.oncepay.testing.LambdaClient.ApiResponse;
import dev.oncepay.testing.TestEnvironment;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** The operator API's listing, detail and access rules, through the charge function. */
@QuarkusTest
@WithTestResource(value = TestEnvironment.class, scope = TestResourceScope.GLOBAL)
class AdminApiTest extends AdminTestSupport {

    @Test
    void aMerchantTokenOrNoOperatorIsRefusedBeforeAnythingIsRead() {
        String id = unknownPayment(UUID.randomUUID().toString(), "order_forbidden");
        Map<String, String> before = stored(id);
        List<HttpApiEvents> requests = List.of(
                HttpApiEvents.admin("GET", "/admin/payments?status=unknown"),
                HttpApiEvents.admin("GET", "/admin/payments/" + id),
                resolution(id, "k-forbidden", succeeded(chargeOf(id), "merchant tries", true)));
        for (HttpApiEvents request : requests) {
            dynamoRequests.reset();
            // A merchant's JWT, even with the local operator header added: never an operator.
            assertProblem(LambdaClient.call(request.tenant(tenant).operator(OPERATOR)), 403, "forbidden");
            assertEquals(Map.of(), dynamoRequests.snapshot(), "nothing read or written");
        }
        dynamoRequests.reset();
        assertProblem(LambdaClient.call(HttpApiEvents.admin("GET", "/admin/payments/" + id)), 403, "forbidden");
        assertProblem(LambdaClient.call(HttpApiEvents.admin("GET", "/admin/payments/" + id).operator(" ")), 403,
                "forbidden");
        assertEquals(Map.of(), dynamoRequests.snapshot(), "nothing read or written");
        assertEquals(before, stored(id), "nothing written");
        assertEquals("unknown", detail(id).json().path("payment").path("status").asText(), "still unresolved");

        // On AWS: the IAM principal API Gateway authorized is the operator.
        ApiResponse iam = LambdaClient.call(HttpApiEvents.admin("GET", "/admin/payments/" + id)
                .iamOperator("arn:aws:sts::123456789012:assumed-role/oncepay-operator/alice"));
        assertEquals(200, iam.status(), iam::toString);
        // Any other principal that IAM let through (an administrator allowed execute-api:Invoke on *) is not.
        dynamoRequests.reset();
        for (String other : List.of("arn:aws:iam::123456789012:user/admin",
                "arn:aws:sts::123456789012:assumed-role/Administrator/bob",
                "arn:aws:sts::123456789012:assumed-role/oncepay-operator-not/alice")) {
            assertProblem(LambdaClient.call(HttpApiEvents.admin("GET", "/admin/payments/" + id).iamOperator(other)), 403,
                    "forbidden");
        }
        assertEquals(Map.of(), dynamoRequests.snapshot(), "nothing read or written");
    }

    @Test
    void listsNewestFirstAcrossShardsPageByPageAndOnlyTheTenantAsked() {
        List<String> created = new ArrayList<>();
        Set<Integer> shards = new HashSet<>();
        while (created.size() < 5 || shards.size() < 2) {
            String id = unknownPayment(UUID.randomUUID().toString(), "order_list_" + created.size());
            created.add(id);
            shards.add(Math.floorMod(id.hashCode(), 4));
            clock.advance(Duration.ofSeconds(1)); // distinct creation times
        }
        String otherTenant = tenant;
        tenant = "merchant-" + UUID.randomUUID().toString().substring(0, 8);
        String others = unknownPayment(UUID.randomUUID().toString(), "order_other_tenant");
        tenant = otherTenant;

        List<String> listed = new ArrayList<>();
        String cursor = null;
        int pages = 0;
        do {
            ApiResponse page = admin("GET", "/admin/payments?status=unknown&limit=2&tenant=" + tenant
                    + (cursor == null ? "" : "&cursor=" + cursor));
            assertEquals(200, page.status(), page::toString);
            pages++;
            for (JsonNode item : page.json().path("items")) {
                assertEquals(tenant, item.path("tenant").asText());
                assertEquals("unknown", item.path("status").asText());
                assertFalse(item.has("history"), "a listing carries no history");
                listed.add(item.path("id").asText());
            }
            assertTrue(page.json().has("nextCursor"), "nextCursor is always there, null at the end");
            cursor = page.json().path("nextCursor").isNull() ? null : page.json().path("nextCursor").asText();
        } while (cursor != null && pages < 10);

        List<String> newestFirst = new ArrayList<>(created);
        java.util.Collections.reverse(newestFirst);
        assertEquals(newestFirst, listed, "every payment once, newest first, across shards " + shards);
        assertEquals((created.size() + 1) / 2, pages, "no empty last page");

        ApiResponse first = admin("GET", "/admin/payments?status=unknown&tenant=" + tenant);
        JsonNode summary = first.json().path("items").get(0);
        assertEquals(List.of("id", "tenant", "status", "amount", "currency", "reference", "provider",
                "providerAccount", "statusReason", "checkAttempts", "createdAt", "updatedAt"), fields(summary));
        assertEquals("sim", summary.path("provider").asText());
        assertTrue(first.json().path("nextCursor").isNull());
        ApiResponse theirs = admin("GET", "/admin/payments?status=unknown&tenant=" + tenant.replace("merchant", "x"));
        assertEquals(0, theirs.json().path("items").size());
        assertTrue(admin("GET", "/admin/payments?status=unknown&limit=200").body().contains(others),
                "without a tenant, every tenant's payments");
        assertEquals(0, admin("GET", "/admin/payments?status=needs_review&tenant=" + tenant).json().path("items").size());
    }

    @Test
    void aPendingPaymentIsListedOnceTheSweepWouldLookAtIt() {
        hooks.crashOnceAfter(ChargePhase.PAYMENT_RECORDED);
        assertEquals(-1, post(UUID.randomUUID().toString(), body(990, "order_pending")).status());
        String pending = "/admin/payments?status=pending&tenant=" + tenant;
        assertEquals(0, admin("GET", pending).json().path("items").size(), "its run may still be alive");

        clock.advance(Duration.ofSeconds(71)); // twice the 35 s lease: the sweep's first look
        ApiResponse listed = admin("GET", pending);
        assertEquals(1, listed.json().path("items").size(), listed::toString);
        assertEquals("pending", listed.json().path("items").get(0).path("status").asText());
    }

    @Test
    void badListingsAre400AndReadNothing() {
        String otherStatusCursor = Base64.getUrlEncoder().withoutPadding().encodeToString(
                ("{\"status\":\"NEEDS_REVIEW\",\"last\":{\"createdAtMs\":1,\"id\":\"pay_" + "0".repeat(32)
                        + "\"},\"shards\":[null,null,null,null]}").getBytes());
        Map<String, String> cases = Map.of(
                "/admin/payments", "status",
                "/admin/payments?status=succeeded", "status",
                "/admin/payments?status=unknown&limit=0", "limit",
                "/admin/payments?status=unknown&limit=201", "limit",
                "/admin/payments?status=unknown&limit=ten", "limit",
                "/admin/payments?status=unknown&cursor=not-a-cursor", "cursor",
                "/admin/payments?status=unknown&cursor=" + otherStatusCursor, "cursor",
                "/admin/payments?status=unknown&color=red", "color",
                "/admin/payments?status=unknown&status=pending", "status");
        for (Map.Entry<String, String> c : cases.entrySet()) {
            dynamoRequests.reset();
            ApiResponse answer = admin("GET", c.getKey());
            assertProblem(answer, 400, "invalid-request");
            assertEquals(Set.of(c.getValue()), errorFields(answer), c.getKey());
            assertEquals(Map.of(), dynamoRequests.snapshot(), () -> c.getKey() + " read nothing");
        }
    }

    @Test
    void aMissingPaymentIs404AndOtherMethodsAre405() {
        assertProblem(detail("pay_" + "0".repeat(32)), 404, "not-found");
        assertProblem(detail("not-an-id"), 404, "not-found");
        assertProblem(admin("GET", "/admin/elsewhere"), 404, "not-found");
        assertProblem(admin("DELETE", "/admin/payments/pay_" + "0".repeat(32)), 405, "method-not-allowed");
        assertProblem(admin("GET", "/admin/payments/pay_" + "0".repeat(32) + "/resolve"), 405, "method-not-allowed");
    }

    static List<String> fields(JsonNode node) {
        List<String> names = new ArrayList<>();
        node.fieldNames().forEachRemaining(names::add);
        return names;
    }
}
