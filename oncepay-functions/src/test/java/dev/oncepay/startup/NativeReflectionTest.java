package dev.oncepay.startup;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.oncepay.config.CompiledClasses;
import io.quarkus.funqy.Funq;
import io.quarkus.runtime.annotations.RegisterForReflection;
import java.lang.annotation.Annotation;
import java.lang.reflect.AnnotatedElement;
import java.lang.reflect.Method;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.lang.reflect.RecordComponent;
import java.util.Arrays;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * A native image only finds by reflection what was registered, and the miss shows only in a
 * native run. So the rule is checked here, in every JVM build: each class that Jackson binds
 * (it carries Jackson annotations or is a {@code @Funq} parameter or result), and each of our records such a class holds, is a target of {@link NativeReflection}.
 */
class NativeReflectionTest {

    @Test
    void everyJsonBoundClassIsRegisteredForReflection() {
        Set<String> registered = new TreeSet<>();
        RegisterForReflection registration = NativeReflection.class.getAnnotation(RegisterForReflection.class);
        Arrays.stream(registration.targets()).map(Class::getName).forEach(registered::add);
        registered.addAll(Arrays.asList(registration.classNames()));

        Set<String> needed = new TreeSet<>();
        for (Class<?> type : CompiledClasses.main()) {
            if (hasJackson(type)) {
                addOurs(needed, type);
            }
            for (Method method : type.getDeclaredMethods()) {
                if (method.isAnnotationPresent(Funq.class)) {
                    addOurs(needed, method.getGenericReturnType());
                    Arrays.stream(method.getGenericParameterTypes()).forEach(p -> addOurs(needed, p));
                }
            }
        }
        needed.removeAll(registered);
        assertEquals(Set.of(), needed, "add these to NativeReflection's targets");
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

    private static void addOurs(Set<String> needed, Type type) {
        addReachable(needed, type);
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
