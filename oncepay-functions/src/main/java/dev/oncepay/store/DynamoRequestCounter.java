package dev.oncepay.store;

import jakarta.enterprise.context.ApplicationScoped;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.core.interceptor.SdkExecutionAttribute;

/**
 * Counts DynamoDB API calls per operation (and HTTP attempts, which include SDK retries): the
 * cost of each oncepay operation is deterministic, so it is measured, not guessed.
 */
@ApplicationScoped
public class DynamoRequestCounter implements ExecutionInterceptor {
    private final Map<String, LongAdder> calls = new ConcurrentHashMap<>();
    private final LongAdder attempts = new LongAdder();

    @Override
    public void beforeExecution(Context.BeforeExecution context, ExecutionAttributes attributes) {
        String operation = attributes.getAttribute(SdkExecutionAttribute.OPERATION_NAME);
        calls.computeIfAbsent(operation, o -> new LongAdder()).increment();
    }

    @Override
    public void beforeTransmission(Context.BeforeTransmission context, ExecutionAttributes attributes) {
        attempts.increment();
    }

    /** API calls per operation name since the last reset, e.g. {@code {GetItem=1, PutItem=2}}. */
    public Map<String, Long> snapshot() {
        Map<String, Long> copy = new TreeMap<>();
        calls.forEach((op, n) -> {
            if (n.sum() > 0) {
                copy.put(op, n.sum());
            }
        });
        return copy;
    }

    public long attempts() {
        return attempts.sum();
    }

    public void reset() {
        calls.values().forEach(LongAdder::reset);
        attempts.reset();
    }
}
