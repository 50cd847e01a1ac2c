package dev.oncepay.testkit.model;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * DynamoDB's condition and update expressions, as far as the fleet protection uses them, parsed
 * into small trees. Document paths are map paths only ({@code #m.#k}); list indexes, {@code BETWEEN},
 * {@code IN}, {@code begins_with}, {@code contains}, {@code list_append} and {@code DELETE} are
 * refused as unsupported rather than guessed at.
 *
 * <p>One {@link Context} per request: it resolves {@code #name} and {@code :value} placeholders and
 * remembers which were used, because DynamoDB refuses a request that defines one it never uses.
 */
final class Expressions {
    /** DynamoDB refuses any expression string longer than this many bytes (4 KB), as sent, before substitution. */
    static final int MAX_EXPRESSION_BYTES = 4096;

    private Expressions() {
    }

    /** A document path: attribute names from the top-level attribute down through nested maps. */
    record Path(List<String> names) {
        String top() {
            return names.get(0);
        }

        boolean overlaps(Path other) {
            int common = Math.min(names.size(), other.names.size());
            return names.subList(0, common).equals(other.names.subList(0, common));
        }

        @Override
        public String toString() {
            return "[" + String.join(", ", names) + "]";
        }
    }

    sealed interface Operand permits PathOperand, Value, Size, IfNotExists, Arithmetic {
    }

    record PathOperand(Path path) implements Operand {
    }

    record Value(AttributeValue value) implements Operand {
    }

    record Size(Path path) implements Operand {
    }

    record IfNotExists(Path path, Operand fallback) implements Operand {
    }

    record Arithmetic(Operand left, boolean plus, Operand right) implements Operand {
    }

    sealed interface Condition permits Comparison, Exists, And, Or, Not {
    }

    record Comparison(Operand left, String comparator, Operand right) implements Condition {
    }

    record Exists(Path path, boolean exists) implements Condition {
    }

    record And(Condition left, Condition right) implements Condition {
    }

    record Or(Condition left, Condition right) implements Condition {
    }

    record Not(Condition condition) implements Condition {
    }

    sealed interface Action permits SetAction, AddAction, RemoveAction {
        Path path();
    }

    record SetAction(Path path, Operand value) implements Action {
    }

    record AddAction(Path path, AttributeValue value) implements Action {
    }

    record RemoveAction(Path path) implements Action {
    }

    /** The placeholders of one request, and which of them its expressions used. */
    static final class Context {
        private final Map<String, String> names;
        private final Map<String, AttributeValue> values;
        private final Set<String> usedNames = new LinkedHashSet<>();
        private final Set<String> usedValues = new LinkedHashSet<>();

        Context(Map<String, String> names, Map<String, AttributeValue> values) {
            this.names = names == null ? Map.of() : names;
            this.values = values == null ? Map.of() : values;
        }

        /** DynamoDB's complaint about placeholders defined but never used, once every expression is parsed. */
        void requireAllUsed() {
            Set<String> unusedNames = new LinkedHashSet<>(names.keySet());
            unusedNames.removeAll(usedNames);
            if (!unusedNames.isEmpty()) {
                throw DynamoDbModel.validation("Value provided in ExpressionAttributeNames unused in expressions: keys: {"
                        + String.join(", ", unusedNames) + "}");
            }
            Set<String> unusedValues = new LinkedHashSet<>(values.keySet());
            unusedValues.removeAll(usedValues);
            if (!unusedValues.isEmpty()) {
                throw DynamoDbModel.validation("Value provided in ExpressionAttributeValues unused in expressions: keys: {"
                        + String.join(", ", unusedValues) + "}");
            }
        }
    }

    static Condition condition(String expression, Context context) {
        Parser parser = new Parser("ConditionExpression", expression, context);
        Condition condition = parser.or();
        parser.end();
        return condition;
    }

    static List<Action> update(String expression, Context context) {
        Parser parser = new Parser("UpdateExpression", expression, context);
        List<Action> actions = parser.clauses();
        parser.end();
        for (int i = 0; i < actions.size(); i++) {
            for (int j = 0; j < i; j++) {
                if (actions.get(j).path().overlaps(actions.get(i).path())) {
                    throw DynamoDbModel.validation("Invalid UpdateExpression: Two document paths overlap with each other;"
                            + " must remove or rewrite one of these paths; path one: " + actions.get(j).path()
                            + ", path two: " + actions.get(i).path());
                }
            }
        }
        return actions;
    }

    /** Refuses an expression longer than DynamoDB's limit, measured in bytes as sent. */
    static void requireWithinLimit(String kind, String expression) {
        if (expression == null) {
            return;
        }
        int bytes = expression.getBytes(StandardCharsets.UTF_8).length;
        if (bytes > MAX_EXPRESSION_BYTES) {
            throw DynamoDbModel.validation("Invalid " + kind
                    + ": Expression size has exceeded the maximum allowed size; expression size: " + bytes);
        }
    }

    // --- evaluation -------------------------------------------------------------------------------

    /** Whether {@code item} (empty if absent) meets {@code condition}. */
    static boolean holds(Condition condition, Map<String, AttributeValue> item) {
        if (condition instanceof And and) {
            return holds(and.left(), item) && holds(and.right(), item);
        }
        if (condition instanceof Or or) {
            return holds(or.left(), item) || holds(or.right(), item);
        }
        if (condition instanceof Not not) {
            return !holds(not.condition(), item);
        }
        if (condition instanceof Exists exists) {
            return (resolve(exists.path(), item) != null) == exists.exists();
        }
        Comparison c = (Comparison) condition;
        return compare(operand(c.left(), item), c.comparator(), operand(c.right(), item));
    }

    /** An operand's value in {@code item}, or {@code null} if it names what is not there. */
    static AttributeValue operand(Operand operand, Map<String, AttributeValue> item) {
        if (operand instanceof Value v) {
            return v.value();
        }
        if (operand instanceof PathOperand p) {
            return resolve(p.path(), item);
        }
        if (operand instanceof Size s) {
            return size(resolve(s.path(), item));
        }
        if (operand instanceof IfNotExists f) {
            AttributeValue there = resolve(f.path(), item);
            return there != null ? there : operand(f.fallback(), item);
        }
        Arithmetic a = (Arithmetic) operand;
        AttributeValue left = operand(a.left(), item);
        AttributeValue right = operand(a.right(), item);
        if (left == null || right == null) {
            throw DynamoDbModel.validation("The provided expression refers to an attribute that does not exist in the item");
        }
        if (left.n() == null || right.n() == null) {
            throw DynamoDbModel.validation("An operand in the update expression has an incorrect data type");
        }
        BigDecimal l = new BigDecimal(left.n());
        BigDecimal r = new BigDecimal(right.n());
        return number(a.plus() ? l.add(r) : l.subtract(r));
    }

    static AttributeValue number(BigDecimal n) {
        return AttributeValue.fromN(n.stripTrailingZeros().toPlainString());
    }

    /** The value at {@code path}, or {@code null}: a missing attribute, or a step through something that is no map. */
    static AttributeValue resolve(Path path, Map<String, AttributeValue> item) {
        AttributeValue current = item.get(path.top());
        for (int i = 1; i < path.names().size() && current != null; i++) {
            current = current.hasM() ? current.m().get(path.names().get(i)) : null;
        }
        return current;
    }

    private static AttributeValue size(AttributeValue v) {
        if (v == null) {
            return null;
        }
        Integer size = v.s() != null ? Integer.valueOf(v.s().length())
                : v.b() != null ? Integer.valueOf(v.b().asByteArray().length)
                : v.hasM() ? Integer.valueOf(v.m().size())
                : v.hasL() ? Integer.valueOf(v.l().size())
                : v.hasSs() ? Integer.valueOf(v.ss().size())
                : v.hasNs() ? Integer.valueOf(v.ns().size())
                : v.hasBs() ? Integer.valueOf(v.bs().size()) : null;
        return size == null ? null : AttributeValue.fromN(size.toString());
    }

    /** DynamoDB's comparison: anything missing or of another type is unequal and unordered. */
    private static boolean compare(AttributeValue left, String comparator, AttributeValue right) {
        boolean sameType = left != null && right != null && type(left).equals(type(right));
        boolean equal = sameType && (left.n() != null ? numericOrder(left, right) == 0 : left.equals(right));
        if (comparator.equals("=")) {
            return equal;
        }
        if (comparator.equals("<>")) {
            return !equal;
        }
        if (!sameType || !(left.n() != null || left.s() != null || left.b() != null)) {
            return false;
        }
        int order = left.n() != null ? numericOrder(left, right)
                : left.s() != null ? compareBytes(left.s().getBytes(StandardCharsets.UTF_8),
                        right.s().getBytes(StandardCharsets.UTF_8))
                : compareBytes(left.b().asByteArray(), right.b().asByteArray());
        switch (comparator) {
            case "<":
                return order < 0;
            case "<=":
                return order <= 0;
            case ">":
                return order > 0;
            case ">=":
                return order >= 0;
            default:
                throw new IllegalStateException(comparator);
        }
    }

    private static int numericOrder(AttributeValue left, AttributeValue right) {
        return new BigDecimal(left.n()).compareTo(new BigDecimal(right.n()));
    }

    private static int compareBytes(byte[] a, byte[] b) {
        return java.util.Arrays.compareUnsigned(a, b);
    }

    static String type(AttributeValue v) {
        return v.type().name();
    }

    // --- parsing ----------------------------------------------------------------------------------

    private record Token(String text, int at) {
    }

    /** A recursive-descent parser over one expression's tokens; keywords and function names are case-insensitive. */
    private static final class Parser {
        private final String kind;
        private final Context context;
        private final List<Token> tokens = new ArrayList<>();
        private int next;

        Parser(String kind, String expression, Context context) {
            this.kind = kind;
            this.context = context;
            if (expression.isBlank()) {
                throw DynamoDbModel.validation("Invalid " + kind + ": The expression can not be empty;");
            }
            tokenize(expression);
        }

        private void tokenize(String s) {
            int i = 0;
            while (i < s.length()) {
                char c = s.charAt(i);
                if (Character.isWhitespace(c)) {
                    i++;
                } else if (c == '#' || c == ':' || Character.isLetter(c) || c == '_') {
                    int start = i++;
                    while (i < s.length() && (Character.isLetterOrDigit(s.charAt(i)) || s.charAt(i) == '_')) {
                        i++;
                    }
                    tokens.add(new Token(s.substring(start, i), start));
                } else if ((c == '<' || c == '>') && i + 1 < s.length()
                        && (s.charAt(i + 1) == '=' || (c == '<' && s.charAt(i + 1) == '>'))) {
                    tokens.add(new Token(s.substring(i, i + 2), i));
                    i += 2;
                } else if ("()=<>,.+-".indexOf(c) >= 0) {
                    tokens.add(new Token(String.valueOf(c), i));
                    i++;
                } else {
                    throw syntax(new Token(String.valueOf(c), i));
                }
            }
        }

        private RuntimeException syntax(Token token) {
            return DynamoDbModel.validation("Invalid " + kind + ": Syntax error; token: \""
                    + (token == null ? "<EOF>" : token.text()) + "\"");
        }

        private Token peek() {
            return next < tokens.size() ? tokens.get(next) : null;
        }

        private boolean at(String text) {
            Token t = peek();
            return t != null && t.text().equalsIgnoreCase(text);
        }

        private boolean accept(String text) {
            if (at(text)) {
                next++;
                return true;
            }
            return false;
        }

        private void expect(String text) {
            if (!accept(text)) {
                throw syntax(peek());
            }
        }

        void end() {
            if (peek() != null) {
                throw syntax(peek());
            }
        }

        // condition := or; or := and (OR and)*; and := not (AND not)*; not := NOT not | primary
        Condition or() {
            Condition left = and();
            while (accept("OR")) {
                left = new Or(left, and());
            }
            return left;
        }

        private Condition and() {
            Condition left = not();
            while (accept("AND")) {
                left = new And(left, not());
            }
            return left;
        }

        private Condition not() {
            return accept("NOT") ? new Not(not()) : primary();
        }

        private Condition primary() {
            if (accept("(")) {
                Condition inner = or();
                expect(")");
                return inner;
            }
            for (String function : List.of("attribute_exists", "attribute_not_exists")) {
                if (at(function) && next + 1 < tokens.size() && tokens.get(next + 1).text().equals("(")) {
                    next += 2;
                    Path path = path();
                    expect(")");
                    return new Exists(path, function.equals("attribute_exists"));
                }
            }
            Operand left = operand(false);
            Token comparator = peek();
            if (comparator == null || !List.of("=", "<>", "<", "<=", ">", ">=").contains(comparator.text())) {
                throw syntax(comparator);
            }
            next++;
            return new Comparison(left, comparator.text(), operand(false));
        }

        /** A path, a value, {@code size(path)}; in an update's SET also {@code if_not_exists} and {@code + -}. */
        private Operand operand(boolean inUpdate) {
            if (inUpdate) {
                Operand left = term(true);
                if (at("+") || at("-")) {
                    boolean plus = peek().text().equals("+");
                    next++;
                    return new Arithmetic(left, plus, term(true));
                }
                return left;
            }
            return term(false);
        }

        private Operand term(boolean inUpdate) {
            Token t = peek();
            if (t == null) {
                throw syntax(null);
            }
            if (t.text().startsWith(":")) {
                next++;
                return new Value(value(t.text()));
            }
            boolean call = next + 1 < tokens.size() && tokens.get(next + 1).text().equals("(");
            if (call && !inUpdate && t.text().equalsIgnoreCase("size")) {
                next += 2;
                Path path = path();
                expect(")");
                return new Size(path);
            }
            if (call && inUpdate && t.text().equalsIgnoreCase("if_not_exists")) {
                next += 2;
                Path path = path();
                expect(",");
                Operand fallback = term(true);
                expect(")");
                return new IfNotExists(path, fallback);
            }
            if (call) {
                throw new UnsupportedOperationException("the model does not support the function " + t.text());
            }
            return new PathOperand(path());
        }

        private Path path() {
            List<String> names = new ArrayList<>();
            names.add(name());
            while (accept(".")) {
                names.add(name());
            }
            if (at("[")) {
                throw new UnsupportedOperationException("the model does not support list indexes in paths");
            }
            return new Path(List.copyOf(names));
        }

        private String name() {
            Token t = peek();
            if (t == null || t.text().startsWith(":") || !(t.text().startsWith("#")
                    || Character.isLetter(t.text().charAt(0)) || t.text().charAt(0) == '_')) {
                throw syntax(t);
            }
            next++;
            if (!t.text().startsWith("#")) {
                return t.text(); // a plain name; DynamoDB's reserved words are not checked here
            }
            String name = context.names.get(t.text());
            if (name == null) {
                throw DynamoDbModel.validation("Invalid " + kind + ": An expression attribute name used in the document"
                        + " path is not defined; attribute name: " + t.text());
            }
            context.usedNames.add(t.text());
            return name;
        }

        private AttributeValue value(String placeholder) {
            AttributeValue value = context.values.get(placeholder);
            if (value == null) {
                throw DynamoDbModel.validation("Invalid " + kind + ": An expression attribute value used in expression"
                        + " is not defined; attribute value: " + placeholder);
            }
            context.usedValues.add(placeholder);
            return value;
        }

        // update := (SET action, ... | REMOVE path, ... | ADD path :value, ...)+ ; each clause once
        List<Action> clauses() {
            List<Action> actions = new ArrayList<>();
            Map<String, Boolean> seen = new LinkedHashMap<>();
            while (peek() != null) {
                String clause = peek().text().toUpperCase();
                if (!List.of("SET", "REMOVE", "ADD").contains(clause)) {
                    if (clause.equals("DELETE")) {
                        throw new UnsupportedOperationException("the model does not support DELETE clauses");
                    }
                    throw syntax(peek());
                }
                if (seen.put(clause, true) != null) {
                    throw DynamoDbModel.validation("Invalid UpdateExpression: The \"" + clause
                            + "\" section can only be used once in an update expression;");
                }
                next++;
                do {
                    Path path = path();
                    switch (clause) {
                        case "SET" -> {
                            expect("=");
                            actions.add(new SetAction(path, operand(true)));
                        }
                        case "ADD" -> {
                            Token t = peek();
                            if (t == null || !t.text().startsWith(":")) {
                                throw syntax(t);
                            }
                            next++;
                            AttributeValue value = value(t.text());
                            if (value.n() == null) {
                                throw new UnsupportedOperationException("the model's ADD supports numbers only");
                            }
                            actions.add(new AddAction(path, value));
                        }
                        default -> actions.add(new RemoveAction(path));
                    }
                } while (accept(","));
            }
            return actions;
        }
    }
}
