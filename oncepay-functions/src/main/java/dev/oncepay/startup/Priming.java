package dev.oncepay.startup;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.quarkus.arc.All;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.jboss.logging.Logger;
import software.amazon.awssdk.core.exception.SdkException;

/**
 * Runs the {@link Primer} of the function this deployment exports: before a SnapStart snapshot
 * ({@link SnapStartHooks}) and, with {@code oncepay.priming.at-init=true}, at startup (the local
 * run's class-data training). The path of a function whose clients wait is run
 * {@code oncepay.priming.rounds} times, any other's once. Priming never stops a start: whatever
 * fails (a store that cannot be reached, most likely) is one WARN line, and the function starts
 * unprimed.
 */
@ApplicationScoped
public class Priming {
    private static final Logger LOG = Logger.getLogger(Priming.class);

    private final List<Primer> primers;
    private final ObjectMapper json;
    private final String function;
    private final int rounds;

    Priming(@All List<Primer> primers, ObjectMapper json, PrimingConfig config,
            @ConfigProperty(name = "quarkus.funqy.export", defaultValue = "charge") String function) {
        this.primers = primers;
        this.json = json;
        this.function = function;
        this.rounds = config.rounds();
    }

    /**
     * Primes the exported function; {@code occasion} says when, for the log.
     *
     * @return what its last round did (empty if it failed or the function has no primer)
     */
    public List<String> run(String occasion) {
        Primer primer = primers.stream().filter(p -> p.function().equals(function)).findFirst().orElse(null);
        if (primer == null) {
            LOG.infof("no priming for function %s", function);
            return List.of();
        }
        long start = System.nanoTime();
        try {
            SyntheticEvents events = new SyntheticEvents(json);
            int wanted = primer.clientsWait() ? rounds : 1;
            Primer.Round round;
            int ran = 0;
            do {
                round = primer.prime(events);
                ran++;
            } while (round.complete() && ran < wanted);
            LOG.infof("primed %s (%s) in %d ms, %d round(s): %s", function, occasion,
                    TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start), ran, round.steps());
            return round.steps();
        } catch (SdkException e) {
            LOG.warnf("priming %s (%s) stopped, the store is unavailable: %s", function, occasion,
                    e.getClass().getSimpleName());
        } catch (RuntimeException | LinkageError e) {
            LOG.warnf("priming %s (%s) failed, starting unprimed: %s: %s", function, occasion, e.getClass().getName(),
                    e.getMessage());
        }
        return List.of();
    }
}
