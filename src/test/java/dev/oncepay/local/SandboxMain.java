package dev.oncepay.local;

import com.amazonaws.services.lambda.runtime.api.client.AWSLambda;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The sandbox JVM's main class: starts AWS's runtime interface client exactly as the Lambda Java
 * runtime does ({@code AWSLambda <handler>}), plus one thing Lambda gets from its own process
 * supervision: when the local run goes away (its end of our stdin pipe closes, even after a
 * SIGKILL), this sandbox exits too instead of lingering. A training sandbox of {@link ClassDataArchive}
 * also links the function's loaded classes before its JVM writes the archive.
 *
 * <p>It runs alone on the sandbox's system classpath next to the runtime interface client, so it
 * uses nothing but the JDK and that client, and must stay free of nested classes.
 */
public final class SandboxMain extends AWSLambda {
    /** The file a training sandbox's JVM logs each class it loads to ({@code -Xlog:class+load}, no decorations). */
    static final String LINK_CLASSES_LOGGED_IN = "local-run.cds.link-classes-logged-in";

    private SandboxMain() {
    }

    public static void main(String[] args) throws Throwable {
        Thread watchdog = new Thread(SandboxMain::exitWhenOrphaned, "local-run-watchdog");
        watchdog.setDaemon(true);
        watchdog.start();
        String classLog = System.getProperty(LINK_CLASSES_LOGGED_IN);
        if (classLog != null) {
            // Shutdown hooks run before the JVM writes the archive at its exit.
            Runtime.getRuntime().addShutdownHook(new Thread(() -> linkFunctionClasses(Path.of(classLog)),
                    "local-run-cds-link"));
        }
        AWSLambda.main(args);
    }

    /**
     * JDK 17 puts in a dynamic archive only the classes that are linked when it writes it, and
     * links beforehand only those of its own class loaders. The function's classes that init merely
     * loaded (the verifier checking a type, a signature, reflection) were left out, ~600 of them, and
     * every cold start loaded them from the jar again. {@code getDeclaredFields()} links a class
     * without initializing it; linking can load more classes, so the log is read until it names no
     * new one. A class that fails to link stays out of the archive, as it did. Nothing is printed:
     * what a shutdown hook printed here never reached the local run's output (tried); the JVM's CDS
     * log next to the archive lists every class it still left out.
     */
    private static void linkFunctionClasses(Path classLog) {
        ClassLoader function = getCustomerClassLoader();
        if (function == null) {
            return;
        }
        Set<String> seen = new HashSet<>();
        boolean more = true;
        while (more) {
            more = false;
            List<String> lines;
            try {
                lines = Files.readAllLines(classLog);
            } catch (IOException e) {
                return; // the archive is written as before, without these classes
            }
            for (String line : lines) {
                // "<class> source: file:<task root or its jar>"; lambdas, proxies and archived classes have other sources.
                int source = line.indexOf(" source: file:");
                String name = source < 0 ? null : line.substring(0, source);
                if (name == null || !seen.add(name)) {
                    continue;
                }
                more = true;
                try {
                    Class.forName(name, false, function).getDeclaredFields();
                } catch (Throwable e) {
                    // it stays out of the archive; the CDS log says so
                }
            }
        }
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
