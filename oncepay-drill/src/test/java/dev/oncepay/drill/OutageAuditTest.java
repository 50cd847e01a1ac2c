package dev.oncepay.drill;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The outage's charge requests against the fleet breaker's bound. */
class OutageAuditTest {
    @Test
    void theBoundIsEachAccountsWindowAndProbesPlusOneCallPerSandbox() {
        // 12 s down with a 10 s open period: two open periods, so two probes per account.
        OutageAudit audit = OutageAudit.judge(9, 1, 6, Duration.ofSeconds(12));

        assertEquals(1 * (20 + 2) + 6, audit.bound());
        assertEquals(0, audit.overBound());
        assertEquals("outage charge requests over the breaker's bound: 0 (9 reached the dead provider; bound 28:"
                + " 1 account(s) x (20 window calls + 2 probes) + 6 sandboxes)", audit.line());
    }

    @Test
    void requestsBeyondTheBoundAreCountedPerAccount() {
        OutageAudit audit = OutageAudit.judge(60, 2, 8, Duration.ofSeconds(10));

        assertEquals(2 * (20 + 1) + 8, audit.bound());
        assertEquals(60 - 50, audit.overBound());
    }

    @Test
    void anUnreadableCountIsNotCountedAndSoNotWithinTheBound() {
        OutageAudit audit = OutageAudit.judge(-1, 1, 6, Duration.ofSeconds(15));

        assertTrue(audit.overBound() > 0);
        assertTrue(audit.line().contains("not counted"), audit.line());
    }
}
