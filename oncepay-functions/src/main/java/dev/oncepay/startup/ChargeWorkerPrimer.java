package dev.oncepay.startup;

import dev.oncepay.contract.DeploymentSettings;
import dev.oncepay.payment.PaymentRepository;
import dev.oncepay.provider.ProviderAccounts;
import dev.oncepay.queue.ChargeJob;
import dev.oncepay.queue.ChargeQueue;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.ArrayList;
import java.util.List;

/**
 * The charge worker's path, read-only: a message body read as the worker reads it, the payment
 * looked up (one that does not exist: a real message of it would be done at once), and the
 * tenants' queues asked for their depth, which builds the SQS client the worker's delays use.
 * The provider's clients are the charge function's primer's business; no charge is sent here.
 */
@ApplicationScoped
class ChargeWorkerPrimer implements Primer {
    private final PaymentRepository payments;
    private final ChargeQueue queue;
    private final ProviderAccounts accounts;

    ChargeWorkerPrimer(PaymentRepository payments, ChargeQueue queue, ProviderAccounts accounts) {
        this.payments = payments;
        this.queue = queue;
        this.accounts = accounts;
    }

    @Override
    public String function() {
        return DeploymentSettings.FUNCTION_CHARGE_WORKER;
    }

    @Override
    public boolean clientsWait() {
        return false;
    }

    @Override
    public Round prime(SyntheticEvents events) {
        List<String> done = new ArrayList<>();
        ChargeJob job = events.chargeJob();
        done.add("message read");
        payments.find(job.paymentId());
        done.add("payment looked up");
        queue.reach(accounts.forTenant(SyntheticEvents.TENANT));
        done.add("queue reached");
        return new Round(done, true);
    }
}
