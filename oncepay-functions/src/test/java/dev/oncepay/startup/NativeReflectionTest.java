package dev.oncepay.startup;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.oncepay.config.CompiledClasses;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.quarkus.funqy.Funq;
import io.quarkus.runtime.annotations.RegisterForReflection;
import java.io.IOException;
import java.lang.annotation.Annotation;
import java.lang.reflect.AnnotatedElement;
import java.lang.reflect.Method;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.lang.reflect.RecordComponent;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * A native image only finds by reflection what was registered, and the miss shows only in a
 * native run. So the rule is checked here, in every JVM build: each class that Jackson binds is a
 * target of {@link NativeReflection}, and so is each of our records such a class holds. Jackson
 * binds a class that carries Jackson annotations, a {@code @Funq} parameter or result, and every
 * type the compiled code hands to Jackson ({@link JacksonBoundTypes}: class literals it reads into,
 * static types of values it writes). The last test shows the check failing on classes that break it.
 */
class NativeReflectionTest {

    @Test
    void everyJsonBoundClassIsRegisteredForReflection() {
        JacksonBoundTypes handed = JacksonBoundTypes.in(CompiledClasses.main());
        assertEquals(Set.of(), handed.unresolved(), "hand Jackson a class literal or a value of a declared type");
        assertEquals(Set.of(), missing(CompiledClasses.main(), handed), "add these to NativeReflection's targets");
    }

    @Test
    void aTypeHandedToJacksonButNotRegisteredIsReported() {
        JacksonBoundTypes handed = JacksonBoundTypes.in(List.of(UnregisteredUse.class));
        String fixture = UnregisteredUse.class.getName();
        assertEquals(Set.of(fixture + "$ReadByLiteral", fixture + "$Written", fixture + "$ReadThroughHelper",
                fixture + "$WrittenThroughHelper", fixture + "$Nested"),
                missing(List.of(UnregisteredUse.class), handed));
        assertEquals(Set.of(fixture + ".untyped: argument 0 of ObjectMapper.writeValueAsString",
                fixture + ".unused: parameter 1 reaches Jackson, but no call passes it (a lambda or reflection?)"),
                handed.unresolved());
    }

    /** The classes {@code classes} bind through Jackson that {@link NativeReflection} does not register. */
    private static Set<String> missing(List<Class<?>> classes, JacksonBoundTypes handed) {
        Set<String> registered = new TreeSet<>();
        RegisterForReflection registration = NativeReflection.class.getAnnotation(RegisterForReflection.class);
        Arrays.stream(registration.targets()).map(Class::getName).forEach(registered::add);
        registered.addAll(Arrays.asList(registration.classNames()));

        Set<String> needed = new TreeSet<>();
        for (Class<?> type : classes) {
            if (hasJackson(type)) {
                addReachable(needed, type);
            }
            for (Method method : type.getDeclaredMethods()) {
                if (method.isAnnotationPresent(Funq.class)) {
                    addReachable(needed, method.getGenericReturnType());
                    Arrays.stream(method.getGenericParameterTypes()).forEach(p -> addReachable(needed, p));
                }
            }
        }
        for (String name : handed.bound()) {
            try {
                addReachable(needed, Class.forName(name, false, NativeReflectionTest.class.getClassLoader()));
            } catch (ClassNotFoundException e) {
                throw new IllegalStateException(e);
            }
        }
        needed.removeAll(registered);
        return needed;
    }

    /** Calls Jackson in each way the check follows, with types nobody registered. */
    static final class UnregisteredUse {
        record ReadByLiteral(String a) {
        }

        record Written(String b) {
        }

        record ReadThroughHelper(String c) {
        }

        record Nested(String e) {
        }

        record WrittenThroughHelper(Nested d) {
        }

        Object read(ObjectMapper json, String body) throws IOException {
            return json.readValue(body, ReadByLiteral.class);
        }

        String write(ObjectMapper json) throws IOException {
            return json.writeValueAsString(new Written("b"));
        }

        Object readThroughHelper(ObjectMapper json, JsonNode node) throws IOException {
            return convert(json, node, ReadThroughHelper.class);
        }

        String writeThroughHelper(ObjectMapper json) throws IOException {
            return serialize(json, new WrittenThroughHelper(new Nested("e")));
        }

        String untyped(ObjectMapper json, Map<String, Object> values) throws IOException {
            return json.writeValueAsString(values.get("x"));
        }

        String unused(ObjectMapper json, Object value) throws IOException {
            return json.writeValueAsString(value);
        }

        private static <T> T convert(ObjectMapper json, JsonNode node, Class<T> type) throws IOException {
            return json.treeToValue(node, type);
        }

        private static String serialize(ObjectMapper json, Object value) throws IOException {
            return json.writeValueAsString(value);
        }
    }

    private static boolean hasJackson(Class<?> type) {
        Stream<AnnotatedElement> elements = Stream.of(type);
        if (type.isRecord()) {
            elements = Stream.concat(elements, Arrays.stream(type.getRecordComponents()).map(RecordComponent::getAccessor));
        }
        elements = Stream.concat(elements, Arrays.stream(type.getDeclaredFields()));
        elements = Stream.concat(elements, Arrays.stream(type.getDeclaredConstructors()));
        return elements.anyMatch(NativeReflectionTest::jacksonAnnotated)
                || Arrays.stream(type.getDeclaredConstructors()).flatMap(c -> Arrays.stream(c.getParameters()))
                        .anyMatch(NativeReflectionTest::jacksonAnnotated)
                || (type.isRecord() && Arrays.stream(type.getRecordComponents()).anyMatch(NativeReflectionTest::jacksonAnnotated));
    }

    private static boolean jacksonAnnotated(AnnotatedElement element) {
        return Arrays.stream(element.getAnnotations()).map(Annotation::annotationType)
                .anyMatch(a -> a.getName().startsWith("com.fasterxml.jackson.annotation."));
    }

    /** Also what the class holds: Jackson binds a record's component types (and their type arguments) too. */
    private static void addReachable(Set<String> needed, Type type) {
        if (type instanceof ParameterizedType parameterized) {
            addReachable(needed, parameterized.getRawType());
            Arrays.stream(parameterized.getActualTypeArguments()).forEach(t -> addReachable(needed, t));
        } else if (type instanceof Class<?> c && c.isArray()) {
            addReachable(needed, c.getComponentType());
        } else if (type instanceof Class<?> c && c.getName().startsWith("dev.oncepay.") && !c.isEnum()
                && needed.add(c.getName())) {
            if (c.isRecord()) {
                Arrays.stream(c.getRecordComponents()).forEach(r -> addReachable(needed, r.getGenericType()));
            }
        }
    }
}
