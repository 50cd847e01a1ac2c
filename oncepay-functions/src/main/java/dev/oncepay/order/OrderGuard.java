package dev.oncepay.order;

import dev.oncepay.config.OncepayConfig;
import dev.oncepay.config.OrdersConfig;
import dev.oncepay.idempotency.RequestInFlightException;
import dev.oncepay.payment.Order;
import dev.oncepay.payment.OrderRepository;
import dev.oncepay.payment.Payment;
import dev.oncepay.payment.PaymentRepository;
import dev.oncepay.payment.PaymentStatus;
import dev.oncepay.provider.NoChargeProof;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/**
 * At most one successful charge per (tenant, order reference), whatever the keys (design rule 16):
 * a payment binds its order before it is sent, and a payment of the order that is paid or still
 * live holds the order against every other.
 *
 * <p>A payment <em>holds</em> its order unless it definitely failed ({@link Payment#definitelyFailed()})
 * or an operator failed it and that failure is now a proof: the sweep stopped watching it and the
 * time from which "no charge at the provider" proves nothing was charged has passed. Every payment
 * the order ever had counts, not only the bound one: a failed payment a late fact moves to review
 * or success holds the order again.
 */
@ApplicationScoped
public class OrderGuard {
    /** Binds lost to other payments' rebinds before answering with the order as it stands. */
    private static final int BIND_ROUNDS = 3;

    private final OrderRepository orders;
    private final PaymentRepository payments;
    private final NoChargeProof proof;
    private final OncepayConfig config;
    private final Clock clock;

    public OrderGuard(OrderRepository orders, PaymentRepository payments, NoChargeProof proof, OncepayConfig config,
            Clock clock) {
        this.orders = orders;
        this.payments = payments;
        this.proof = proof;
        this.config = config;
        this.clock = clock;
    }

    /** Whether the tenant's orders are guarded (the default), or it charges one reference several times. */
    public boolean guards(String tenant) {
        OrdersConfig settings = config.orders();
        return Optional.ofNullable(settings.tenants().get(tenant)).flatMap(OrdersConfig.TenantOrders::oncePerReference)
                .orElse(settings.oncePerReference());
    }

    /**
     * Binds the payment's order to it, one conditional write: the order is free, or bound to this
     * payment already (a takeover, an SDK retry), or no payment of the order holds it, and this one
     * replaces the bound one (conditional on the id read: of two replacing requests one wins).
     * A no-op for a tenant that does not guard its orders.
     *
     * @throws OrderRefusedException another payment holds the order: it is paid, or live
     * @throws RequestInFlightException other payments rebound the order in every round and none
     *         holds it now: the request may be retried shortly
     */
    public void bind(Payment payment) {
        if (!guards(payment.tenant())) {
            return;
        }
        Optional<String> replacing = Optional.empty();
        for (int round = 0; round < BIND_ROUNDS; round++) {
            if (orders.bind(payment, replacing, clock.instant())) {
                return;
            }
            Optional<Order> order = orders.find(payment.tenant(), payment.reference());
            if (order.isEmpty()) {
                replacing = Optional.empty();
                continue;
            }
            Optional<Payment> holder = holder(order.get(), payment.id());
            if (holder.isPresent()) {
                throw refusal(holder.get(), payment);
            }
            replacing = order.get().boundPaymentId();
        }
        // Rebound under us every round: the order has a payment far younger than this request.
        Payment holder = orders.find(payment.tenant(), payment.reference()).flatMap(o -> holder(o, payment.id()))
                .orElseThrow(() -> new RequestInFlightException(config.charge().inFlightRetryAfter()));
        throw refusal(holder, payment);
    }

    /** Frees the order of a payment whose charge provably never left, before it is deleted. */
    public void unbind(Payment payment) {
        if (guards(payment.tenant())) {
            orders.unbind(payment);
        }
    }

    /**
     * Before {@code payment} is resolved as succeeded: the payment besides it that holds its order
     * (what the resolution would give a second success beside), if any. Unless that is so and not
     * {@code overridden}, counts {@code payment} among the order's payments where it is not yet
     * (binding the order to it if none is bound), so the order refuses every later payment.
     *
     * @return the other payment holding the order; nothing was written if it is present and not {@code overridden}
     */
    public Optional<Payment> admitSuccess(Payment payment, boolean overridden) {
        if (!guards(payment.tenant())) {
            return Optional.empty();
        }
        Optional<Order> order = orders.find(payment.tenant(), payment.reference());
        Optional<Payment> holder = order.flatMap(o -> holder(o, payment.id()));
        if (holder.isPresent() && !overridden) {
            return holder;
        }
        if (order.isEmpty() || !order.get().paymentIds().contains(payment.id())) {
            orders.include(payment, clock.instant());
        }
        return holder;
    }

    /** The order of a guarding tenant with its payments, oldest first; empty if it never had a payment. */
    public Optional<OrderPayments> payments(String tenant, String reference) {
        if (!guards(tenant)) {
            return Optional.empty();
        }
        return orders.find(tenant, reference).map(o -> new OrderPayments(o, o.paymentIds().stream()
                .map(payments::find).flatMap(Optional::stream)
                .sorted(Comparator.comparing(Payment::createdAt).thenComparing(Payment::id)).toList()));
    }

    /**
     * The order {@code payment} is for, as its item stands: empty for a tenant without the guard;
     * an empty inner value for an order no payment was ever bound to.
     */
    public Optional<Optional<Order>> orderOf(Payment payment) {
        return guards(payment.tenant()) ? Optional.of(orders.find(payment.tenant(), payment.reference()))
                : Optional.empty();
    }

    /**
     * The payment, besides {@code asking}, that holds the order: a succeeded one first, else the
     * bound one, else any live one.
     */
    private Optional<Payment> holder(Order order, String asking) {
        List<String> ids = new ArrayList<>(order.paymentIds());
        order.boundPaymentId().filter(id -> !ids.contains(id)).ifPresent(ids::add);
        Instant now = clock.instant();
        List<Payment> holding = ids.stream().filter(id -> !id.equals(asking)).map(payments::find)
                .flatMap(Optional::stream).filter(p -> holds(p, now)).toList();
        return holding.stream().filter(p -> p.status() == PaymentStatus.SUCCEEDED).findFirst()
                .or(() -> holding.stream().filter(p -> order.boundPaymentId().filter(p.id()::equals).isPresent())
                        .findFirst())
                .or(() -> holding.stream().findFirst());
    }

    private boolean holds(Payment p, Instant now) {
        if (p.definitelyFailed()) {
            return false;
        }
        if (p.resolvedFailed() && !now.isBefore(proof.provenAt(p)) && !payments.watched(p.id())) {
            return false; // the operator's failure is now the provider's proof
        }
        return true;
    }

    /** Why {@code refused} may not be sent while {@code holder} holds the order. */
    private OrderRefusedException refusal(Payment holder, Payment refused) {
        if (holder.status() == PaymentStatus.SUCCEEDED) {
            return new OrderAlreadyPaidException(holder.id());
        }
        if (!holder.currency().equals(refused.currency())) {
            return new OrderMismatchException(holder.id(), OrderMismatchException.Field.CURRENCY);
        }
        if (holder.amount() != refused.amount()) {
            return new OrderMismatchException(holder.id(), OrderMismatchException.Field.AMOUNT);
        }
        // What a retry of the live payment's own key is told: 409 while its run holds it, else the 202's wait.
        return new OrderInProgressException(holder.id(), holder.status() == PaymentStatus.PENDING
                ? config.charge().inFlightRetryAfter() : config.charge().unknownRetryAfter());
    }
}
