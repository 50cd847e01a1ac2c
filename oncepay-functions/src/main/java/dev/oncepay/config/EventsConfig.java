package dev.oncepay.config;

import io.smallrye.config.WithDefault;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Merchant events ({@code oncepay.events.*}): the endpoints each tenant wants its payments' and
 * refunds' events at, the queue that carries them, and how deliveries are retried.
 */
public interface EventsConfig {

    /** The event queue; without it no event is relayed, whatever the endpoints. */
    Optional<String> queueUrl();

    /** Whether endpoints may be plain {@code http}: the local run and the tests only. */
    @WithDefault("false")
    boolean allowHttp();

    /** Endpoints by tenant id, then by endpoint id. */
    Map<String, Map<String, Endpoint>> endpoints();

    /** One merchant endpoint. */
    interface Endpoint {
        String url();

        /** The event types it wants, by their wire names; every type when absent. */
        Optional<List<String>> types();

        /** Its signing secrets, newest first; only event delivery holds them. */
        Optional<List<String>> secrets();
    }

    /** One delivery's HTTP call, connect to last byte: a slower answer is a failed attempt. */
    @WithDefault("5S")
    Duration callTimeout();

    /** The wait after a failed delivery; each further one doubles, with full jitter, up to {@link #retryDelayCap()}. */
    @WithDefault("10S")
    Duration retryDelayBase();

    @WithDefault("1H")
    Duration retryDelayCap();

    /**
     * Failed deliveries in a row before an endpoint rests (its deliveries wait without calling it):
     * an endpoint that fails now and then is not slowed, one that is down is called about once per rest.
     */
    @WithDefault("5")
    int restAfterFailures();

    /** A delivery is retried this long after its first attempt, then dead-lettered. */
    @WithDefault("72H")
    Duration deliveryHorizon();

    /** How long a delivery record is kept after its event (the table's TTL removes it then). */
    @WithDefault("720H")
    Duration recordRetention();

    /**
     * How long the sweep leaves a marked write to its own writer's relay before relaying it itself:
     * longer than a function's relay takes, so the sweep only picks up what a crash or a failed send left.
     */
    @WithDefault("30S")
    Duration relayGrace();
}
