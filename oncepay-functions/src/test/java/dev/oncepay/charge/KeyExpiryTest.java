package dev.oncepay.charge;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.oncepay.config.OncepayConfig;
import dev.oncepay.sim.LedgerEntry;
import dev.oncepay.contract.Table;
import dev.oncepay.testing.LambdaClient.ApiResponse;
import dev.oncepay.testing.StoredItems;
import dev.oncepay.testing.TestEnvironment;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * Design rule 4: expiry is compared in code. TTL deletes lazily, so a key past its retention is
 * still in the table, and must nevertheless count as absent.
 */
@QuarkusTest
@WithTestResource(value = TestEnvironment.class, scope = TestResourceScope.GLOBAL)
class KeyExpiryTest extends ChargeTestSupport {
    static final String BODY = "{\"amount\":4200,\"currency\":\"EUR\",\"reference\":\"order_9182\"}";

    @Inject
    OncepayConfig config;

    String key;

    @BeforeEach
    void newClientKey() {
        key = newKey();
    }

    @AfterEach
    void resetClock() {
        clock.reset(); // other test classes share this application
    }

    Duration retention() {
        return config.idempotency().retention();
    }

    @Test
    void expiredKeyWithSameBodyIsAbsentAlthoughStillStored() {
        // A tenant without the order guard: with it, the paid order refuses the second payment
        // whatever its key (OrderOnceTest); here the key's expiry alone is under test.
        tenant = "merchant-instalments";
        ApiResponse first = post(key, BODY);
        assertEquals(201, first.status(), first::toString);
        String firstId = first.json().path("id").asText();

        clock.advance(retention().plusSeconds(1));

        // TTL has not run: the old key item is physically there, past its expiresAt.
        Map<String, AttributeValue> stale = StoredItems.keyItem(tenant, key).orElseThrow();
        assertEquals(firstId, stale.get(Table.PAYMENT_ID).s());
        assertTrue(Long.parseLong(stale.get(Table.EXPIRES_AT).n()) < clock.instant().getEpochSecond(),
                "the stored key is past its expiry");

        ApiResponse second = post(key, BODY);

        assertEquals(201, second.status(), second::toString);
        assertNull(second.header("Idempotent-Replayed"), "an expired key is not replayed");
        String secondId = second.json().path("id").asText();
        assertNotEquals(firstId, secondId, "a new payment");
        assertEquals(2, sim.ledger().size(), "a second provider charge");
        assertEquals(secondId, sim.ledger().get(1).reference());

        // The key now belongs to the new payment, with a fresh retention; the old payment stays.
        Map<String, AttributeValue> fresh = StoredItems.keyItem(tenant, key).orElseThrow();
        assertEquals(secondId, fresh.get(Table.PAYMENT_ID).s());
        assertTrue(Long.parseLong(fresh.get(Table.EXPIRES_AT).n()) > clock.instant().getEpochSecond());
        assertEquals(200, get(firstId).status(), "the old payment is still there");

        // And the new claim replays like any other.
        ApiResponse replay = post(key, BODY);
        assertEquals("true", replay.header("Idempotent-Replayed"));
        assertEquals(second.body(), replay.body());
        assertEquals(2, sim.ledger().size());
    }

    @Test
    void withinRetentionTheKeyStillReplays() {
        ApiResponse first = post(key, BODY);
        assertEquals(201, first.status(), first::toString);

        // A minute short of the end (the clock keeps running while the test does).
        clock.advance(retention().minusMinutes(1));
        ApiResponse replay = post(key, BODY);

        assertEquals(201, replay.status(), replay::toString);
        assertEquals("true", replay.header("Idempotent-Replayed"));
        assertEquals(first.body(), replay.body());
        assertEquals(1, sim.ledger().size(), "no second charge");
    }

    @Test
    void withinRetentionADifferentBodyIsStillRejected() {
        ApiResponse first = post(key, BODY);
        assertEquals(201, first.status(), first::toString);

        clock.advance(retention().minusMinutes(1));
        ApiResponse other = post(key, BODY.replace("4200", "4300"));

        assertEquals(422, other.status(), other::toString);
        assertEquals(1, sim.ledger().size());
    }

    @Test
    void expiredKeyWithDifferentBodyIsANewPaymentNotAConflict() {
        ApiResponse first = post(key, BODY);
        assertEquals(201, first.status(), first::toString);
        Instant firstExpiry = Instant.ofEpochSecond(
                Long.parseLong(StoredItems.keyItem(tenant, key).orElseThrow().get(Table.EXPIRES_AT).n()));

        clock.advance(retention().plusSeconds(1));
        String otherBody = "{\"amount\":1500,\"currency\":\"GBP\",\"reference\":\"order_9183\"}";
        ApiResponse second = post(key, otherBody);

        assertEquals(201, second.status(), second::toString);
        assertNull(second.header("Idempotent-Replayed"));
        assertNotEquals(first.json().path("id").asText(), second.json().path("id").asText());
        assertEquals(1500, second.json().path("amount").asLong());
        assertEquals("GBP", second.json().path("currency").asText());
        LedgerEntry charged = sim.ledger().get(1);
        assertEquals(1500, charged.amount());
        assertEquals("GBP", charged.currency());
        assertEquals(2, sim.ledger().size());
        assertTrue(firstExpiry.isBefore(clock.instant()));
    }
}
