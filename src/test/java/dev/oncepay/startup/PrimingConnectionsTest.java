package dev.oncepay.startup;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.net.URI;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.core.SdkRequest;
import software.amazon.awssdk.core.async.AsyncRequestBody;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.http.SdkHttpMethod;
import software.amazon.awssdk.http.SdkHttpRequest;
import software.amazon.awssdk.services.dynamodb.model.GetItemRequest;

/** Only the store requests of priming ask to close their connection. */
class PrimingConnectionsTest {
    private final PrimingConnections interceptor = new PrimingConnections();

    @Test
    void aPrimingRequestAsksToCloseItsConnection() {
        assertEquals(List.of("close"), PrimingConnections.closing(() -> connectionHeader()));
    }

    @Test
    void anyOtherRequestKeepsItsConnection() {
        assertEquals(List.of(), connectionHeader());
        PrimingConnections.closing(() -> connectionHeader());
        assertEquals(List.of(), connectionHeader(), "the mark ends with the priming");
    }

    private List<String> connectionHeader() {
        SdkHttpRequest request = SdkHttpRequest.builder().method(SdkHttpMethod.POST).uri(URI.create("http://127.0.0.1:8000/"))
                .putHeader("X-Amz-Target", "DynamoDB_20120810.GetItem").build();
        SdkHttpRequest sent = interceptor.modifyHttpRequest(new Context.ModifyHttpRequest() {
            @Override
            public SdkRequest request() {
                return GetItemRequest.builder().tableName("oncepay").build();
            }

            @Override
            public SdkHttpRequest httpRequest() {
                return request;
            }

            @Override
            public Optional<RequestBody> requestBody() {
                return Optional.empty();
            }

            @Override
            public Optional<AsyncRequestBody> asyncRequestBody() {
                return Optional.empty();
            }
        }, new ExecutionAttributes());
        return sent.headers().getOrDefault("Connection", List.of());
    }
}
