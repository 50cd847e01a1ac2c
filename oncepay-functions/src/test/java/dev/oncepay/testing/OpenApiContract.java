package dev.oncepay.testing;

import dev.oncepay.testing.LambdaClient.ApiResponse;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.IntNode;
import com.fasterxml.jackson.databind.node.TextNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import com.networknt.schema.Error;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaLocation;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.dialect.Dialect;
import com.networknt.schema.dialect.Dialects;
import com.networknt.schema.keyword.AnnotationKeyword;
import com.networknt.schema.keyword.DisallowUnknownKeywordFactory;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Queue;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.regex.Pattern;

/**
 * The OpenAPI document ({@code src/main/resources/openapi/oncepay.yaml}) as the judge of every
 * function response the tests produce: the status must be documented for the operation, the
 * Content-Type must be one of its media types that oncepay (not API Gateway) answers, the body
 * must validate against that media type's schema (JSON Schema 2020-12, the OpenAPI 3.1 dialect),
 * every documented required header must be there and valid, and no undocumented header may be.
 * A request to a documented path with another method must be a {@code 405} naming the documented
 * methods in {@code Allow}; a request to an undocumented path must be a {@code 404}.
 */
public final class OpenApiContract {
    public static final String RESOURCE = "openapi/oncepay.yaml";
    /** Marks a media type only API Gateway answers with (authorizer refusals, timeouts): never the functions. */
    static final String ANSWERED_BY = "x-oncepay-answered-by";

    private static final ObjectMapper JSON = new ObjectMapper();
    /** A Path Item's fields that are operations (the others are parameters, summary and the like). */
    private static final Set<String> OPERATIONS = Set.of("get", "put", "post", "delete", "patch", "head", "options",
            "trace");
    /** Violations seen on any thread (a gateway bridge's too), failed by {@link OpenApiContractViolations}. */
    private static final Queue<String> RECORDED = new ConcurrentLinkedQueue<>();

    /**
     * The OpenAPI Object's own fields, which the validator meets because the document is the
     * resource every schema pointer lives in; any other keyword it does not know is a mistake in a
     * schema (a misspelt {@code required} would silently allow everything) and fails.
     */
    private static final Set<String> DOCUMENT_FIELDS = Set.of("openapi", "jsonSchemaDialect", "info", "servers",
            "tags", "security", "paths", "webhooks", "components", "externalDocs");
    private static final Dialect DIALECT = Dialect.builder(Dialects.getOpenApi31())
            .unknownKeywordFactory((keyword, context) -> DOCUMENT_FIELDS.contains(keyword)
                    ? new AnnotationKeyword(keyword)
                    : DisallowUnknownKeywordFactory.getInstance().getKeyword(keyword, context))
            .build();
    /** Declared after what its constructor uses. */
    private static final OpenApiContract DOCUMENT = new OpenApiContract(RESOURCE);

    private final String resource;
    private final JsonNode document;
    private final SchemaRegistry schemas = SchemaRegistry.withDialect(DIALECT);
    private final Map<String, Schema> schemaCache = new ConcurrentHashMap<>();

    OpenApiContract(String resource) {
        this.resource = resource;
        try (InputStream in = OpenApiContract.class.getClassLoader().getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException("no " + resource + " on the class path");
            }
            this.document = new YAMLMapper().readTree(in);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public static OpenApiContract document() {
        return DOCUMENT;
    }

    /**
     * Checks a function's answer to the API Gateway event {@code eventJson}; a violation is
     * recorded (so one on another thread still fails the test) and thrown.
     */
    public static void check(String eventJson, ApiResponse response) {
        if (response.status() < 0) {
            return; // the invocation failed (a simulated crash): API Gateway answers, not the function
        }
        JsonNode event = readJson(eventJson);
        String method = event.at("/requestContext/http/method").asText();
        String path = event.hasNonNull("rawPath") ? event.get("rawPath").asText()
                : event.at("/requestContext/http/path").asText();
        List<String> violations = DOCUMENT.violations(method, path, response);
        if (!violations.isEmpty()) {
            String message = method + " " + path + " answered " + response.status() + " "
                    + response.body() + " against " + RESOURCE + ": " + String.join("; ", violations);
            RECORDED.add(message);
            throw new AssertionError(message);
        }
    }

    /** The violations recorded since the last call, cleared. */
    static List<String> drainRecorded() {
        List<String> drained = new ArrayList<>();
        for (String v; (v = RECORDED.poll()) != null;) {
            drained.add(v);
        }
        return drained;
    }

    public JsonNode tree() {
        return document;
    }

    /** What is wrong with {@code response} as the answer to {@code method path}; empty when nothing. */
    public List<String> violations(String method, String path, ApiResponse response) {
        List<String> violations = new ArrayList<>();
        String template = templateOf(path);
        if (template == null) {
            checkUnrouted(path, response, violations);
            return violations;
        }
        JsonNode pathItem = document.get("paths").get(template);
        String operationKey = method.toLowerCase(Locale.ROOT);
        if (!pathItem.has(operationKey)) {
            checkMethodNotAllowed(pathItem, response, violations);
            return violations;
        }
        String responsesPointer = "/paths/" + escape(template) + "/" + operationKey + "/responses";
        String status = Integer.toString(response.status());
        if (!document.at(responsesPointer).has(status)) {
            violations.add("status " + status + " is not documented for " + method + " " + template);
            return violations;
        }
        checkResponse(responsesPointer + "/" + escape(status), response, violations);
        return violations;
    }

    private void checkUnrouted(String path, ApiResponse response, List<String> violations) {
        if (response.status() != 404) {
            violations.add("path " + path + " is not documented, so only 404 may answer it");
            return;
        }
        checkResponse("/components/responses/NotFound", response, violations);
    }

    private void checkMethodNotAllowed(JsonNode pathItem, ApiResponse response, List<String> violations) {
        Set<String> documented = new TreeSet<>();
        for (Iterator<String> keys = pathItem.fieldNames(); keys.hasNext();) {
            String key = keys.next();
            if (OPERATIONS.contains(key)) {
                documented.add(key.toUpperCase(Locale.ROOT));
            }
        }
        if (response.status() != 405) {
            violations.add("the method is not documented for this path, so only 405 may answer it");
            return;
        }
        checkResponse("/components/responses/MethodNotAllowed", response, violations);
        String allow = response.header("Allow");
        if (allow != null) {
            Set<String> allowed = new TreeSet<>();
            for (String m : allow.split(",")) {
                allowed.add(m.trim().toUpperCase(Locale.ROOT));
            }
            if (!allowed.equals(documented)) {
                violations.add("Allow: " + allow + " but the document lists " + documented);
            }
        }
    }

    /** {@code pointer}: the Response Object (or a {@code $ref} to one) in the document. */
    private void checkResponse(String pointer, ApiResponse response, List<String> violations) {
        String responsePointer = dereference(pointer);
        JsonNode documented = document.at(responsePointer);
        checkHeaders(responsePointer, documented.path("headers"), response, violations);
        String body = response.body();
        JsonNode content = documented.path("content");
        String contentType = response.header("Content-Type");
        String mediaType = contentType == null ? null : contentType.split(";", 2)[0].trim().toLowerCase(Locale.ROOT);
        if (content.isMissingNode() || content.isEmpty()) {
            if (body != null && !body.isEmpty()) {
                violations.add("a body where the document defines none");
            }
            return;
        }
        if (mediaType == null || !content.has(mediaType)) {
            violations.add("Content-Type " + contentType + " is not documented (" + fieldNames(content) + ")");
            return;
        }
        if (content.get(mediaType).has(ANSWERED_BY)) {
            violations.add("Content-Type " + mediaType + " is documented as answered by "
                    + content.get(mediaType).get(ANSWERED_BY).asText() + ", not by oncepay");
            return;
        }
        JsonNode parsed;
        try {
            parsed = body == null ? null : JSON.readTree(body);
        } catch (IOException notJson) {
            violations.add("the body is not JSON");
            return;
        }
        if (parsed == null || parsed.isMissingNode()) {
            violations.add("no body where the document defines one");
            return;
        }
        String schemaPointer = responsePointer + "/content/" + escape(mediaType) + "/schema";
        for (Error error : schemaAt(schemaPointer).validate(parsed)) {
            violations.add("body " + error.getInstanceLocation() + ": " + error.getMessage());
        }
    }

    private void checkHeaders(String responsePointer, JsonNode headers, ApiResponse response,
            List<String> violations) {
        Set<String> documented = new TreeSet<>(String.CASE_INSENSITIVE_ORDER);
        for (Iterator<String> names = headers.fieldNames(); names.hasNext();) {
            String name = names.next();
            documented.add(name);
            String headerPointer = dereference(responsePointer + "/headers/" + escape(name));
            JsonNode header = document.at(headerPointer);
            String value = response.header(name);
            if (value == null) {
                if (header.path("required").asBoolean(false)) {
                    violations.add("required header " + name + " is missing");
                }
                continue;
            }
            Schema schema = schemaAt(headerPointer + "/schema");
            for (Error error : schema.validate(headerValue(schema, value))) {
                violations.add("header " + name + ": " + value + ": " + error.getMessage());
            }
        }
        for (String name : response.headers().keySet()) {
            if (!name.equalsIgnoreCase("Content-Type") && !documented.contains(name)) {
                violations.add("header " + name + " is not documented");
            }
        }
    }

    /** Header values are text on the wire; one documented as an integer must read as one. */
    private static JsonNode headerValue(Schema schema, String value) {
        if ("integer".equals(schema.getSchemaNode().path("type").asText())) {
            try {
                return IntNode.valueOf(Integer.parseInt(value));
            } catch (NumberFormatException notANumber) {
                return TextNode.valueOf(value);
            }
        }
        return TextNode.valueOf(value);
    }

    private Schema schemaAt(String pointer) {
        return schemaCache.computeIfAbsent(pointer, p -> schemas.getSchema(SchemaLocation.of("classpath:" + resource
                + "#" + URLEncoder.encode(p, StandardCharsets.UTF_8).replace("%2F", "/").replace("%7E", "~"))));
    }

    /** Follows {@code $ref}s between Response or Header Objects (local ones: the document has no other). */
    private String dereference(String pointer) {
        JsonNode node = document.at(pointer);
        while (node.has("$ref")) {
            pointer = node.get("$ref").asText().substring(1);
            node = document.at(pointer);
        }
        return pointer;
    }

    /** The documented path {@code path} matches: a literal one first, else a template. */
    String templateOf(String path) {
        JsonNode paths = document.get("paths");
        if (paths.has(path)) {
            return path;
        }
        for (Iterator<String> templates = paths.fieldNames(); templates.hasNext();) {
            String template = templates.next();
            String regex = Pattern.quote(template).replaceAll("\\{[^}/]+}", "\\\\E[^/]+\\\\Q");
            if (path.matches(regex)) {
                return template;
            }
        }
        return null;
    }

    private static String escape(String token) {
        return token.replace("~", "~0").replace("/", "~1");
    }

    private static String fieldNames(JsonNode node) {
        List<String> names = new ArrayList<>();
        node.fieldNames().forEachRemaining(names::add);
        return String.join(", ", names);
    }

    private static JsonNode readJson(String json) {
        try {
            return JSON.readTree(json);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
