package dev.oncepay.testing;

import dev.oncepay.testing.LambdaClient.ApiResponse;

import dev.oncepay.testkit.HttpApiEvents;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.oncepay.function.ChargeFunction;
import dev.oncepay.http.HttpApiEvent;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * Invokes the charge function's entry method with real event JSON on the caller's thread. The
 * Lambda mock event server runs one invocation at a time (like one sandbox); concurrent
 * requests, as from many Lambda sandboxes, need this.
 */
@ApplicationScoped
public class DirectInvoker {
    @Inject
    ChargeFunction function;
    @Inject
    ObjectMapper json;

    public ApiResponse call(HttpApiEvents event) {
        try {
            HttpApiEvent parsed = json.readValue(event.json(), HttpApiEvent.class);
            ApiResponse response = ApiResponse.of(json.valueToTree(function.charge(parsed)));
            OpenApiContract.check(event.json(), response);
            return response;
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Fires all calls at the same instant (released by one latch) and returns their answers in order. */
    public List<ApiResponse> concurrently(List<HttpApiEvents> events) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(events.size());
        try {
            CountDownLatch ready = new CountDownLatch(events.size());
            CountDownLatch go = new CountDownLatch(1);
            List<Future<ApiResponse>> futures = new ArrayList<>();
            for (HttpApiEvents event : events) {
                Callable<ApiResponse> task = () -> {
                    ready.countDown();
                    go.await();
                    return call(event);
                };
                futures.add(pool.submit(task));
            }
            ready.await(10, TimeUnit.SECONDS);
            go.countDown();
            List<ApiResponse> answers = new ArrayList<>();
            for (Future<ApiResponse> f : futures) {
                answers.add(f.get(60, TimeUnit.SECONDS));
            }
            return answers;
        } finally {
            pool.shutdownNow();
        }
    }
}
