package dev.oncepay.infra;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.zip.ZipEntry;
import java.util.zip.ZipOutputStream;
import software.amazon.awscdk.App;
import software.amazon.awscdk.AppProps;
import software.amazon.awscdk.StackProps;
import software.amazon.awscdk.assertions.Template;

/** Synthesizes the stack with the given context, offline, and gives access to the template. */
final class Synth {
    final OncepayStack stack;
    final Template template;
    final Map<String, Object> json;

    @SuppressWarnings("unchecked")
    Synth(Map<String, Object> context) {
        App app = new App(AppProps.builder().context(context).build());
        stack = new OncepayStack(app, "Oncepay", StackProps.builder().build(),
                OncepaySettings.from(app.getNode()::tryGetContext));
        template = Template.fromStack(stack);
        json = (Map<String, Object>) template.toJSON();
    }

    /** Resources of a type, by logical id. */
    @SuppressWarnings("unchecked")
    Map<String, Map<String, Object>> resources(String type) {
        Map<String, Map<String, Object>> found = new LinkedHashMap<>();
        ((Map<String, Object>) json.get("Resources")).forEach((id, resource) -> {
            Map<String, Object> r = (Map<String, Object>) resource;
            if (type.equals(r.get("Type"))) {
                found.put(id, r);
            }
        });
        return found;
    }

    List<Map<String, Object>> properties(String type) {
        List<Map<String, Object>> all = new ArrayList<>();
        resources(type).values().forEach(r -> all.add(props(r)));
        return all;
    }

    Map<String, Object> only(String type) {
        List<Map<String, Object>> all = properties(type);
        if (all.size() != 1) {
            throw new AssertionError("expected one " + type + ", found " + all.size());
        }
        return all.get(0);
    }

    /** The one resource of a type whose logical id starts with {@code prefix}. */
    String id(String type, String prefix) {
        List<String> ids = resources(type).keySet().stream().filter(id -> id.startsWith(prefix)).toList();
        if (ids.size() != 1) {
            throw new AssertionError("expected one " + type + " named " + prefix + "*, found " + ids);
        }
        return ids.get(0);
    }

    @SuppressWarnings("unchecked")
    static Map<String, Object> props(Map<String, Object> resource) {
        return (Map<String, Object>) resource.get("Properties");
    }

    @SuppressWarnings("unchecked")
    static <T> T at(Object node, Object... path) {
        Object current = node;
        for (Object step : path) {
            current = step instanceof Integer i ? ((List<Object>) current).get(i) : ((Map<String, Object>) current).get(step);
        }
        return (T) current;
    }

    static Map<String, Object> ref(String logicalId) {
        return Map.of("Ref", logicalId);
    }

    static Map<String, Object> arnOf(String logicalId) {
        return Map.of("Fn::GetAtt", List.of(logicalId, "Arn"));
    }

    /** A stand-in for the OpenAPI document. */
    static Path openApiDocument(Path dir) throws IOException {
        return Files.writeString(dir.resolve("oncepay.yaml"), "openapi: 3.1.0\ninfo: {title: oncepay, version: test}\npaths: {}\n");
    }

    /** A stand-in function.zip: native ones have {@code bootstrap} at the root. */
    static Path zip(Path dir, boolean nativeBuild) throws IOException {
        return zip(dir, nativeBuild, "stand-in");
    }

    /** A stand-in function.zip whose one entry holds {@code content}: another content, another build. */
    static Path zip(Path dir, boolean nativeBuild, String content) throws IOException {
        Path zip = dir.resolve((nativeBuild ? "native-" : "jvm-") + content + "-function.zip");
        try (OutputStream out = Files.newOutputStream(zip); ZipOutputStream z = new ZipOutputStream(out)) {
            z.putNextEntry(new ZipEntry(nativeBuild ? "bootstrap" : "lib/main.jar"));
            z.write(content.getBytes(StandardCharsets.UTF_8));
            z.closeEntry();
        }
        return zip;
    }
}
