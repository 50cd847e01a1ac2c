package dev.oncepay.local;

import java.io.IOException;

/**
 * The sandbox JVM's main class: starts AWS's runtime interface client exactly as the Lambda Java
 * runtime does ({@code AWSLambda <handler>}), plus one thing Lambda gets from its own process
 * supervision: when the local run goes away (its end of our stdin pipe closes, even after a
 * SIGKILL), this sandbox exits too instead of lingering.
 *
 * <p>It comes first on the sandbox's system classpath, in a jar of its own, so it uses nothing but
 * the JDK and that client, and must stay free of nested classes.
 */
public final class SandboxMain {
    private SandboxMain() {
    }

    public static void main(String[] args) throws Throwable {
        Thread watchdog = new Thread(SandboxMain::exitWhenOrphaned, "local-run-watchdog");
        watchdog.setDaemon(true);
        watchdog.start();
        com.amazonaws.services.lambda.runtime.api.client.AWSLambda.main(args);
    }

    private static void exitWhenOrphaned() {
        try {
            while (System.in.read() != -1) {
                // nothing is ever written; just wait for the end of the stream
            }
        } catch (IOException e) {
            // the pipe broke: the same thing
        }
        Thread halt = new Thread(SandboxMain::haltSoon, "local-run-halt");
        halt.setDaemon(true);
        halt.start();
        System.exit(137);
    }

    private static void haltSoon() {
        try {
            Thread.sleep(3000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        Runtime.getRuntime().halt(137);
    }
}
