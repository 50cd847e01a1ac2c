package dev.oncepay.local;

import java.io.PrintStream;
import java.time.LocalTime;
import java.time.format.DateTimeFormatter;

/** The local run's console: one line per event, each tagged with its source, never interleaved. */
final class Log {
    private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("HH:mm:ss.SSS");
    private static final PrintStream OUT = System.out;

    private Log() {
    }

    static void info(String source, String message) {
        line(source, message);
    }

    static void warn(String source, String message) {
        line(source, "WARNING " + message);
    }

    /** Output of a child process, already a line of its own. */
    static void child(String source, String line) {
        synchronized (OUT) {
            OUT.println("[" + source + "] " + line);
            OUT.flush();
        }
    }

    /** Plain text (the banner), as is. */
    static void plain(String text) {
        synchronized (OUT) {
            OUT.println(text);
            OUT.flush();
        }
    }

    private static void line(String source, String message) {
        synchronized (OUT) {
            OUT.println(TIME.format(LocalTime.now()) + " [" + source + "] " + message);
            OUT.flush();
        }
    }
}
