package dev.oncepay.local;

import com.amazonaws.services.lambda.runtime.Context;
import com.amazonaws.services.lambda.runtime.RequestStreamHandler;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;

/**
 * A Lambda handler for testing the sandbox supervision with the real runtime interface client, in
 * a JVM that starts in a second: the event's text says what to do ({@code echo}, {@code fail},
 * {@code exit}, {@code sleep}); the answer names the process that ran it.
 */
public class ScriptedHandler implements RequestStreamHandler {
    @Override
    public void handleRequest(InputStream input, OutputStream output, Context context) throws IOException {
        String event = new String(input.readAllBytes(), StandardCharsets.UTF_8);
        if (event.contains("fail")) {
            throw new IllegalStateException("failing as asked");
        }
        if (event.contains("exit")) {
            Runtime.getRuntime().halt(3);
        }
        if (event.contains("sleep")) {
            try {
                Thread.sleep(60_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        String answer = "{\"pid\":" + ProcessHandle.current().pid() + ",\"requestId\":\"" + context.getAwsRequestId()
                + "\",\"function\":\"" + context.getFunctionName() + "\",\"remainingMs\":"
                + context.getRemainingTimeInMillis() + "}";
        output.write(answer.getBytes(StandardCharsets.UTF_8));
    }
}
