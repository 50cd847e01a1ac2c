package dev.oncepay.startup;

import java.util.function.Supplier;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.http.SdkHttpRequest;

/**
 * Store requests made while priming ask for their connection to be closed ({@code Connection:
 * close}), so the JDK's keep-alive cache, which the url-connection client shares, holds no
 * connection of the priming when the snapshot is taken: a sandbox restored from it, minutes or days
 * later on another host, opens its own. Every other request keeps its connection as before.
 * Registered with {@code quarkus.dynamodb.interceptors}.
 */
public class PrimingConnections implements ExecutionInterceptor {
    private static final ThreadLocal<Boolean> PRIMING = new ThreadLocal<>();

    /** {@code work}'s result, its store requests on this thread closing their connections. */
    static <T> T closing(Supplier<T> work) {
        PRIMING.set(Boolean.TRUE);
        try {
            return work.get();
        } finally {
            PRIMING.remove();
        }
    }

    @Override
    public SdkHttpRequest modifyHttpRequest(Context.ModifyHttpRequest context, ExecutionAttributes attributes) {
        SdkHttpRequest request = context.httpRequest();
        return PRIMING.get() == null ? request : request.toBuilder().putHeader("Connection", "close").build();
    }
}
