package dev.oncepay.http;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * One HTTP/1.1 request as read off a socket by a loopback peer (priming's provider, the tests'
 * scripted servers): its head lines, request line first, and its {@code Content-Length} body.
 */
public record RawHttpRequest(List<String> head, byte[] body) {
    /** Bodies above this are cut: loopback peers only ever get small JSON or form bodies. */
    private static final int MAX_BODY = 64 * 1024;

    /** Reads one request from {@code in}. */
    public static RawHttpRequest read(InputStream in) throws IOException {
        ByteArrayOutputStream head = new ByteArrayOutputStream();
        int matched = 0;
        while (matched < 4) {
            int b = in.read();
            if (b < 0) {
                throw new IOException("request ended in its head");
            }
            head.write(b);
            matched = (b == (matched % 2 == 0 ? '\r' : '\n')) ? matched + 1 : (b == '\r' ? 1 : 0);
        }
        List<String> lines = List.of(head.toString(StandardCharsets.US_ASCII).split("\r\n"));
        long length = 0;
        for (String line : lines) {
            if (line.toLowerCase(Locale.ROOT).startsWith("content-length:")) {
                length = Long.parseLong(line.substring("content-length:".length()).trim());
            }
        }
        return new RawHttpRequest(lines, in.readNBytes((int) Math.min(length, MAX_BODY)));
    }

    /** The request line's target ({@code /} if it has none). */
    public String path() {
        String[] requestLine = head.get(0).split(" ");
        return requestLine.length > 1 ? requestLine[1] : "/";
    }

    /** Every value of header {@code name} (case-insensitive), in arrival order. */
    public List<String> header(String name) {
        List<String> values = new ArrayList<>();
        for (String line : head.subList(1, head.size())) {
            int colon = line.indexOf(':');
            if (colon > 0 && line.substring(0, colon).trim().equalsIgnoreCase(name)) {
                values.add(line.substring(colon + 1).trim());
            }
        }
        return values;
    }
}
