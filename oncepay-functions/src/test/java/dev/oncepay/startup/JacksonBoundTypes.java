package dev.oncepay.startup;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import org.objectweb.asm.ClassReader;
import org.objectweb.asm.Opcodes;
import org.objectweb.asm.Type;
import org.objectweb.asm.tree.AbstractInsnNode;
import org.objectweb.asm.tree.ClassNode;
import org.objectweb.asm.tree.LdcInsnNode;
import org.objectweb.asm.tree.MethodInsnNode;
import org.objectweb.asm.tree.MethodNode;
import org.objectweb.asm.tree.analysis.Analyzer;
import org.objectweb.asm.tree.analysis.AnalyzerException;
import org.objectweb.asm.tree.analysis.BasicValue;
import org.objectweb.asm.tree.analysis.Frame;
import org.objectweb.asm.tree.analysis.SimpleVerifier;

/**
 * The types that compiled code hands to Jackson's databind ({@code ObjectMapper}, {@code ObjectReader},
 * {@code ObjectWriter}, tree nodes' POJO values), read from the bytecode: a class literal passed where
 * Jackson takes a {@code Class} ({@code readValue(json, X.class)}, {@code treeToValue},
 * {@code readerFor}), and the static type of a value it writes ({@code writeValueAsString(x)}). A
 * {@code Class} or a value that arrives as a method parameter is followed to that method's callers,
 * so a helper such as {@code read(node, Class<T> type)} counts each type its callers pass. What no
 * call site pins down (a value typed {@code Object}, a {@code TypeReference}) is reported as
 * {@link #unresolved()}, so a new way of calling Jackson cannot slip past the check.
 */
final class JacksonBoundTypes {
    private static final String DATABIND = "com/fasterxml/jackson/databind/";
    private static final Type CLASS = Type.getType(Class.class);
    private static final Type OBJECT = Type.getType(Object.class);

    private final Set<String> bound = new TreeSet<>();
    private final Set<String> unresolved = new TreeSet<>();

    /** A parameter of a method, through which a {@code Class} or a value reaches Jackson. */
    private record Sink(String owner, String name, String descriptor, int parameter) {
    }

    /** A value on the analysed stack: where it came from, when that matters. */
    private static final class Traced extends BasicValue {
        /** A class literal ({@code ldc X.class}), or null. */
        final Type literal;
        /** The declared parameter position it was loaded from, or -1. */
        final int parameter;

        Traced(Type type, Type literal, int parameter) {
            super(type);
            this.literal = literal;
            this.parameter = parameter;
        }

        @Override
        public boolean equals(Object other) {
            return other instanceof Traced t && super.equals(t) && Objects.equals(literal, t.literal) && parameter == t.parameter;
        }

        @Override
        public int hashCode() {
            return Objects.hash(super.hashCode(), literal, parameter);
        }
    }

    /** {@link SimpleVerifier} (static types of locals and stack), plus class literals and parameters. */
    private static final class Interpreter extends SimpleVerifier {
        private final Map<Integer, Integer> parameterOfLocal = new HashMap<>();

        Interpreter(ClassNode owner, MethodNode method, ClassLoader loader) {
            super(Opcodes.ASM9, Type.getObjectType(owner.name),
                    owner.superName == null ? null : Type.getObjectType(owner.superName),
                    owner.interfaces.stream().map(Type::getObjectType).toList(), (owner.access & Opcodes.ACC_INTERFACE) != 0);
            setClassLoader(loader);
            int local = (method.access & Opcodes.ACC_STATIC) != 0 ? 0 : 1;
            Type[] arguments = Type.getArgumentTypes(method.desc);
            for (int i = 0; i < arguments.length; i++) {
                parameterOfLocal.put(local, i);
                local += arguments[i].getSize();
            }
        }

        @Override
        public BasicValue newParameterValue(boolean isInstanceMethod, int local, Type type) {
            BasicValue value = super.newParameterValue(isInstanceMethod, local, type);
            Integer parameter = parameterOfLocal.get(local);
            return parameter == null || value.getType() == null ? value : new Traced(value.getType(), null, parameter);
        }

        @Override
        public BasicValue newOperation(AbstractInsnNode insn) throws AnalyzerException {
            if (insn instanceof LdcInsnNode ldc && ldc.cst instanceof Type literal
                    && (literal.getSort() == Type.OBJECT || literal.getSort() == Type.ARRAY)) {
                return new Traced(CLASS, literal, -1);
            }
            return super.newOperation(insn);
        }

        @Override
        public BasicValue merge(BasicValue value1, BasicValue value2) {
            if (value1.equals(value2)) {
                return value1;
            }
            BasicValue merged = super.merge(plain(value1), plain(value2));
            if (!(value1 instanceof Traced) && !(value2 instanceof Traced) || merged.getType() == null) {
                return merged;
            }
            // Where branches bring different origins: an ordinary value of the merged type. Traced, because
            // BasicValue compares types only, and the frame must see that its traced value changed.
            return new Traced(merged.getType(), null, -1);
        }

        private static BasicValue plain(BasicValue value) {
            return value instanceof Traced ? new BasicValue(value.getType()) : value;
        }
    }

    /** The classes' Jackson-bound types, and what could not be resolved. */
    static JacksonBoundTypes in(Collection<Class<?>> classes) {
        JacksonBoundTypes result = new JacksonBoundTypes();
        List<Analysed> analysed = new ArrayList<>();
        for (Class<?> c : classes) {
            analysed.addAll(analyse(c));
        }
        Set<Sink> sinks = new LinkedHashSet<>();
        Set<Sink> called = new LinkedHashSet<>();
        // Jackson's own methods first, then every method whose parameter leads there, until none is new.
        boolean grew = true;
        while (grew) {
            grew = false;
            for (Analysed method : analysed) {
                for (Call call : method.calls()) {
                    Type[] arguments = Type.getArgumentTypes(call.insn().desc);
                    for (int i = 0; i < arguments.length; i++) {
                        boolean toJackson = call.insn().owner.startsWith(DATABIND)
                                && (arguments[i].equals(CLASS) || arguments[i].equals(OBJECT)
                                        || arguments[i].getInternalName().startsWith("com/fasterxml/jackson/core/type/")
                                        || arguments[i].getInternalName().equals(DATABIND + "JavaType"));
                        Sink callee = new Sink(call.insn().owner, call.insn().name, call.insn().desc, i);
                        if (!toJackson && !sinks.contains(callee)) {
                            continue;
                        }
                        called.add(callee);
                        BasicValue argument = call.arguments().get(i);
                        if (argument instanceof Traced t && t.literal != null) {
                            result.bound.add(elementName(t.literal));
                        } else if (argument instanceof Traced t && t.parameter >= 0) {
                            grew |= sinks.add(new Sink(method.owner(), method.node().name, method.node().desc, t.parameter));
                        } else if (argument.getType() == null || argument.getType().equals(OBJECT)
                                || argument.getType().equals(CLASS) || !argument.isReference()) {
                            result.unresolved.add(method.owner().replace('/', '.') + "." + method.node().name + ": argument "
                                    + i + " of " + call.insn().owner.substring(call.insn().owner.lastIndexOf('/') + 1) + "."
                                    + call.insn().name);
                        } else {
                            result.bound.add(elementName(argument.getType()));
                        }
                    }
                }
            }
        }
        for (Sink sink : sinks) {
            if (!called.contains(sink)) {
                result.unresolved.add(sink.owner().replace('/', '.') + "." + sink.name() + ": parameter " + sink.parameter()
                        + " reaches Jackson, but no call passes it (a lambda or reflection?)");
            }
        }
        return result;
    }

    private static String elementName(Type type) {
        return (type.getSort() == Type.ARRAY ? type.getElementType() : type).getClassName();
    }

    private record Call(MethodInsnNode insn, List<BasicValue> arguments) {
    }

    private record Analysed(String owner, MethodNode node, List<Call> calls) {
    }

    private static List<Analysed> analyse(Class<?> type) {
        ClassNode node = new ClassNode();
        String resource = type.getName().replace('.', '/') + ".class";
        try (InputStream in = type.getClassLoader().getResourceAsStream(resource)) {
            new ClassReader(Objects.requireNonNull(in, resource)).accept(node, ClassReader.SKIP_DEBUG);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        List<Analysed> methods = new ArrayList<>();
        for (MethodNode method : node.methods) {
            if (method.instructions.size() == 0) {
                continue;
            }
            Frame<BasicValue>[] frames;
            try {
                frames = new Analyzer<>(new Interpreter(node, method, type.getClassLoader())).analyze(node.name, method);
            } catch (AnalyzerException e) {
                throw new IllegalStateException("cannot analyse " + type.getName() + "." + method.name, e);
            }
            List<Call> calls = new ArrayList<>();
            for (int i = 0; i < frames.length; i++) {
                if (frames[i] != null && method.instructions.get(i) instanceof MethodInsnNode insn) {
                    int count = Type.getArgumentTypes(insn.desc).length;
                    List<BasicValue> arguments = new ArrayList<>();
                    for (int a = 0; a < count; a++) {
                        arguments.add(frames[i].getStack(frames[i].getStackSize() - count + a));
                    }
                    calls.add(new Call(insn, arguments));
                }
            }
            methods.add(new Analysed(node.name, method, calls));
        }
        return methods;
    }

    /** Binary names of the classes and arrays' element types handed to Jackson. */
    Set<String> bound() {
        return bound;
    }

    /** Calls whose type Jackson learns only at run time: each names its method and argument. */
    Set<String> unresolved() {
        return unresolved;
    }
}
