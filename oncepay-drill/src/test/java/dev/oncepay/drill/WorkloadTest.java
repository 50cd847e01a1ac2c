package dev.oncepay.drill;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** The seeded workload in both provider modes and with a share paid asynchronously, and the drill's options for them. */
class WorkloadTest {

    @Test
    void theStripeWorkloadIsTheSimOneWithStripesTestCards() {
        List<Workload.Plan> sim = Workload.generate(400, 7, false, 0);
        List<Workload.Plan> stripe = Workload.generate(400, 7, true, 0);
        for (int i = 0; i < sim.size(); i++) {
            Workload.Plan a = sim.get(i);
            Workload.Plan b = stripe.get(i);
            assertEquals(List.of(a.tenant(), a.key(), a.amount(), a.currency(), a.reference(), a.behaviour(), a.shopper()),
                    List.of(b.tenant(), b.key(), b.amount(), b.currency(), b.reference(), b.behaviour(), b.shopper()),
                    "same orders, keys and clients for a seed");
            assertNull(a.paymentMethod());
            assertNull(a.customer());
            assertEquals(Workload.AtPrompt.NONE, a.atPrompt());
            assertFalse(a.body().contains("paymentMethod"), "the generic PSP's body is unchanged: " + a.body());
            assertTrue(b.body().contains("\"paymentMethod\":\"" + b.paymentMethod() + "\""), b.body());
            assertEquals(b.paymentMethod().equals(Workload.AUTHENTICATION_REQUIRED), b.atPrompt() != Workload.AtPrompt.NONE);
            if (b.customer() != null) {
                assertTrue(b.customer().matches("cus_[A-Za-z0-9]+") && b.body().contains(b.customer()), b.customer());
            }
        }
        Set<String> cards = stripe.stream().map(Workload.Plan::paymentMethod).collect(Collectors.toSet());
        assertEquals(Set.of(Workload.VISA, Workload.DECLINED, Workload.INSUFFICIENT_FUNDS,
                Workload.AUTHENTICATION_REQUIRED), cards);
        assertEquals(Set.of(Workload.AtPrompt.values()), stripe.stream().map(Workload.Plan::atPrompt)
                .collect(Collectors.toSet()), "shoppers approve, refuse and abandon");
        long visa = stripe.stream().filter(p -> p.paymentMethod().equals(Workload.VISA)).count();
        assertTrue(visa > 280 && visa < 360, "mostly pm_card_visa: " + visa);
    }

    @Test
    void aTenthOfTheOrdersIsDoubleClickedUnderTwoKeysWithin100MsAndAThirdIsPaidByShoppers() {
        List<Workload.Plan> plans = Workload.generate(2000, 7, false, 0);
        List<Workload.Plan> clicked = plans.stream().filter(p -> p.behaviour() == Workload.Behaviour.DOUBLE_CLICK)
                .toList();
        assertTrue(clicked.size() > 160 && clicked.size() < 240, "about 10 %: " + clicked.size());
        long shoppers = plans.stream().filter(Workload.Plan::shopper).count();
        assertTrue(shoppers > 540 && shoppers < 660, "about 30 %: " + shoppers);
        for (Workload.Plan p : clicked) {
            assertEquals(2, p.submitters());
            assertTrue(p.secondSubmitDelayMs() >= 0 && p.secondSubmitDelayMs() <= 100, "gap " + p.secondSubmitDelayMs());
            Recorder.PaymentRecord r = new Recorder.PaymentRecord(p);
            assertEquals(List.of(p.key(), p.key() + "-click"), r.keys, "each click its own key, one order");
            assertEquals(p.key(1), r.key(1));
        }
        Workload.Plan twice = plans.stream().filter(p -> p.behaviour() == Workload.Behaviour.DOUBLE_SUBMIT)
                .findFirst().orElseThrow();
        assertEquals(List.of(twice.key()), new Recorder.PaymentRecord(twice).keys, "a double submit reuses its key");
        assertTrue(clicked.stream().anyMatch(Workload.Plan::shopper), "double-clickers pay again after errors too");
    }

    @Test
    void theSecondAccountsTenantPaysWithAStripeCardEverythingElseUnchanged() {
        List<Workload.Plan> sim = Workload.generate(200, 7, false, 0);
        List<Workload.Plan> mixed = Workload.onStripeAccount(sim, DrillOptions.SECOND_ACCOUNT_TENANT);
        assertEquals(sim.size(), mixed.size());
        for (int i = 0; i < sim.size(); i++) {
            Workload.Plan a = sim.get(i);
            Workload.Plan b = mixed.get(i);
            if (a.tenant().equals(DrillOptions.SECOND_ACCOUNT_TENANT)) {
                assertEquals(Workload.VISA, b.paymentMethod());
                assertEquals(List.of(a.key(), a.amount(), a.reference(), a.behaviour(), a.shopper()),
                        List.of(b.key(), b.amount(), b.reference(), b.behaviour(), b.shopper()));
            } else {
                assertEquals(a, b);
            }
        }
        assertTrue(mixed.stream().anyMatch(p -> p.paymentMethod() != null), "the tenant has payments");
    }

    @Test
    void aShareOfTheOrdersIsPaidAsynchronouslyOnDiceOfItsOwn() {
        List<Workload.Plan> none = Workload.generate(2000, 7, false, 0);
        List<Workload.Plan> some = Workload.generate(2000, 7, false, 0.3);
        List<Workload.Plan> all = Workload.generate(2000, 7, false, 1);
        long queued = some.stream().filter(Workload.Plan::respondAsync).count();
        assertTrue(queued > 540 && queued < 660, "about 30 %: " + queued);
        assertTrue(none.stream().noneMatch(Workload.Plan::respondAsync));
        assertTrue(all.stream().allMatch(Workload.Plan::respondAsync));
        for (int i = 0; i < none.size(); i++) {
            Workload.Plan a = none.get(i);
            Workload.Plan b = some.get(i);
            assertEquals(List.of(a.tenant(), a.key(), a.amount(), a.reference(), a.behaviour(), a.shopper()),
                    List.of(b.tenant(), b.key(), b.amount(), b.reference(), b.behaviour(), b.shopper()),
                    "same orders, keys and clients for a seed");
        }
        assertEquals(all, Workload.onStripeAccount(all, DrillOptions.SECOND_ACCOUNT_TENANT).stream()
                .map(p -> p.tenant().equals(DrillOptions.SECOND_ACCOUNT_TENANT) ? all.get(p.index()) : p).toList());
        assertTrue(Workload.onStripeAccount(all, DrillOptions.SECOND_ACCOUNT_TENANT).stream()
                .allMatch(Workload.Plan::respondAsync), "the second account's orders stay asynchronous");
    }

    @Test
    void theAsyncShareAndTheQueuesConcurrencyAreOptions() {
        DrillOptions defaults = DrillOptions.parse(List.of());
        assertEquals(DrillOptions.DEFAULT_ASYNC_SHARE, defaults.asyncShare());
        assertTrue(defaults.asyncShare() > 0, "a drill meets the queues unless told otherwise");
        assertEquals(defaults.asyncShare(), DrillOptions.smoke("sim", "hostile", 10, 1, java.nio.file.Path.of("a"),
                java.nio.file.Path.of("b")).asyncShare(), "and so does the CI's");
        assertEquals(1.0, DrillOptions.parse(List.of("--async-share", "1")).asyncShare());
        assertEquals(0.0, DrillOptions.parse(List.of("--async-share=0")).asyncShare());
        assertEquals(4, DrillOptions.parse(List.of("--queue-concurrency", "4")).queueConcurrency());
        assertThrows(IllegalArgumentException.class, () -> DrillOptions.parse(List.of("--async-share", "1.5")));
        assertThrows(IllegalArgumentException.class, () -> DrillOptions.parse(List.of("--async-share", "NaN")));
        assertThrows(IllegalArgumentException.class, () -> DrillOptions.parse(List.of("--queue-concurrency", "1")));
    }

    @Test
    void aSlowSecondAccountIsAnOptionOfTheGenericProvidersDrill() {
        assertNull(DrillOptions.parse(List.of()).slowAccount());
        assertEquals(java.time.Duration.ofSeconds(3), DrillOptions.parse(List.of("--slow-account", "3s")).slowAccount());
        assertEquals(java.time.Duration.ZERO, DrillOptions.parse(List.of("--slow-account=0")).slowAccount());
        assertThrows(IllegalArgumentException.class,
                () -> DrillOptions.parse(List.of("--provider", "stripe", "--slow-account", "3s")));
    }

    @Test
    void theProviderIsAnOptionSimByDefault() {
        assertEquals("sim", DrillOptions.parse(List.of()).provider());
        assertFalse(DrillOptions.parse(List.of()).stripe());
        assertTrue(DrillOptions.parse(List.of("--provider", "Stripe")).stripe());
        assertTrue(DrillOptions.parse(List.of("--provider=stripe")).stripe());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> DrillOptions.parse(List.of("--provider", "adyen")));
        assertEquals("--provider must be one of [sim, stripe]", e.getMessage());
    }
}
