package dev.hourglass.node.config;

import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.lang.reflect.ParameterizedType;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Every setting of {@link NodeConfig} as an environment variable, by a rule rather than a list:
 * {@code HOURGLASS_} and the setting's path in upper snake case, so {@code engine.shutdownGraceMs}
 * is {@code HOURGLASS_ENGINE_SHUTDOWN_GRACE_MS} (docs/operations.md, "Environment variables", is
 * this mapping, checked by a test). Lists are comma-separated. Each variable {@code NAME} may be
 * given as {@code NAME_FILE} instead: the content of that file (one trailing line break dropped),
 * for secrets mounted as files. Any other {@code HOURGLASS_*} variable is refused: a typo must not
 * be ignored silently — except the few other Hourglass tools read ({@link #OTHER_TOOLS}).
 */
final class EnvironmentVariables {
    static final String PREFIX = "HOURGLASS_";
    /** Read by Hourglass's other parts (the logging setup, clients, the test suite), not the node's settings. */
    static final Set<String> OTHER_TOOLS =
            Set.of("HOURGLASS_LOG_FORMAT", "HOURGLASS_URL", "HOURGLASS_TOKEN", "HOURGLASS_BROWSER_TESTS");

    private static final String OTHER_TOOLS_PREFIX = "HOURGLASS_TEST_"; // the test suite's database

    private EnvironmentVariables() {}

    /** Variable name to setting path, for every setting (maps such as {@code kafka.producer} aside). */
    static Map<String, String> settings() {
        Map<String, String> out = new TreeMap<>();
        walk(NodeConfig.class, "", out);
        return out;
    }

    /** {@code engine.shutdownGraceMs} → {@code HOURGLASS_ENGINE_SHUTDOWN_GRACE_MS}. */
    static String variableOf(String path) {
        String snake = path.replace(".", "_").replaceAll("([a-z0-9])([A-Z])", "$1_$2");
        return PREFIX + snake.toUpperCase(Locale.ROOT);
    }

    /**
     * The environment with every {@code NAME_FILE} read into {@code NAME}; refuses an unknown
     * {@code HOURGLASS_*} variable and a variable given both ways.
     *
     * @param known the variables the node reads: its settings' and the short names of older releases
     */
    static Map<String, String> resolved(Map<String, String> env, Set<String> known) {
        Map<String, String> out = new TreeMap<>();
        List<String> errors = new ArrayList<>();
        env.forEach((name, value) -> {
            if (!name.startsWith(PREFIX) || OTHER_TOOLS.contains(name) || name.startsWith(OTHER_TOOLS_PREFIX)) {
                return;
            }
            if (name.endsWith("_FILE") && known.contains(name.substring(0, name.length() - 5))) {
                String base = name.substring(0, name.length() - 5);
                if (env.containsKey(base)) {
                    errors.add(base + " and " + name + " are both set: give one");
                    return;
                }
                try {
                    String content = Files.readString(Path.of(value.trim()), StandardCharsets.UTF_8);
                    out.put(base, content.endsWith("\n") ? content.substring(0, content.length() - 1) : content);
                } catch (IOException | RuntimeException e) {
                    errors.add(name + ": cannot read the file it names ("
                            + e.getClass().getSimpleName() + ")");
                }
            } else if (known.contains(name)) {
                out.put(name, value);
            } else {
                errors.add("unknown environment variable " + name
                        + " (every setting's variable is listed in docs/operations.md, \"Environment variables\")");
            }
        });
        if (!errors.isEmpty()) {
            throw new ConfigException(String.join("; ", errors));
        }
        return out;
    }

    /** Sets {@code path} of {@code config} from a variable's text. */
    static void apply(NodeConfig config, String variable, String path, String text) {
        try {
            Object target = config;
            String[] parts = path.split("\\.");
            for (int i = 0; i < parts.length - 1; i++) {
                Field f = target.getClass().getField(parts[i]);
                Object next = f.get(target);
                if (next == null) {
                    next = f.getType().getDeclaredConstructor().newInstance();
                    f.set(target, next);
                }
                target = next;
            }
            Field leaf = target.getClass().getField(parts[parts.length - 1]);
            leaf.set(target, parse(variable, leaf, text.trim()));
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("setting " + path + " cannot be set", e);
        }
    }

    private static Object parse(String variable, Field f, String text) {
        Class<?> t = f.getType();
        try {
            if (t == int.class || t == Integer.class) {
                return Integer.parseInt(text);
            }
            if (t == long.class || t == Long.class) {
                return Long.parseLong(text);
            }
            if (t == double.class || t == Double.class) {
                return Double.parseDouble(text);
            }
        } catch (NumberFormatException e) {
            throw new ConfigException(variable + " must be a number, not '" + text + "'");
        }
        if (t == boolean.class || t == Boolean.class) {
            if (!text.equalsIgnoreCase("true") && !text.equalsIgnoreCase("false")) {
                throw new ConfigException(variable + " must be true or false, not '" + text + "'");
            }
            return Boolean.parseBoolean(text);
        }
        if (t == List.class) {
            return new ArrayList<>(Arrays.stream(text.split(","))
                    .map(String::trim)
                    .filter(s -> !s.isEmpty())
                    .toList());
        }
        return text;
    }

    private static void walk(Class<?> type, String prefix, Map<String, String> out) {
        for (Field f : type.getFields()) {
            if (Modifier.isStatic(f.getModifiers())) {
                continue;
            }
            String path = prefix + f.getName();
            Class<?> t = f.getType();
            if (isLeaf(f)) {
                out.put(variableOf(path), path);
            } else if (t.getEnclosingClass() == NodeConfig.class) {
                walk(t, path + ".", out);
            } // a map (kafka.producer): its keys are Kafka's, see ConfigLoader
        }
    }

    private static boolean isLeaf(Field f) {
        Class<?> t = f.getType();
        if (t.isPrimitive() || t == String.class || Number.class.isAssignableFrom(t) || t == Boolean.class) {
            return true;
        }
        return t == List.class
                && f.getGenericType() instanceof ParameterizedType p
                && p.getActualTypeArguments()[0] == String.class;
    }
}
