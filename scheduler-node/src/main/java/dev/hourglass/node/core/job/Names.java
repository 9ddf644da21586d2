package dev.hourglass.node.core.job;

import dev.hourglass.api.HourglassException;
import java.util.List;
import java.util.regex.Pattern;

/** The name rules of docs/api.md: app and service names ("HTTP API") and the bizKey ("Jobs"). */
public final class Names {
    private static final Pattern NAME = Pattern.compile("[a-z0-9][a-z0-9._-]{0,62}");
    private static final Pattern BIZ_KEY = Pattern.compile("[A-Za-z0-9._:-]{1,128}");

    private Names() {}

    public static String requireName(String field, String value) {
        if (value == null || !NAME.matcher(value).matches()) {
            throw HourglassException.invalid(field, field + " must match [a-z0-9][a-z0-9._-]{0,62}");
        }
        return value;
    }

    /** bizKey prefixes only Hourglass gives: schedules' occurrences and dead letters. */
    public static final List<String> RESERVED_BIZ_KEY_PREFIXES = List.of("sched:", "dlq:");

    /** Attribute names only Hourglass gives start so. */
    public static final String RESERVED_ATTRIBUTE_PREFIX = "hourglass-";

    /** {@link #requireBizKey}, and none of Hourglass's own prefixes: the bizKey of a client's submit. */
    public static String requireClientBizKey(String value) {
        requireBizKey(value);
        if (value != null) {
            for (String prefix : RESERVED_BIZ_KEY_PREFIXES) {
                if (value.startsWith(prefix)) {
                    throw HourglassException.invalid(
                            "bizKey",
                            "bizKeys starting with " + prefix + " are Hourglass's own (docs/api.md, \"Schedules\")");
                }
            }
        }
        return value;
    }

    public static String requireBizKey(String value) {
        if (value != null && !BIZ_KEY.matcher(value).matches()) {
            throw HourglassException.invalid("bizKey", "bizKey must be 1..128 characters of [A-Za-z0-9._:-]");
        }
        return value;
    }
}
