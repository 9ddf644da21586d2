package dev.hourglass.node.core.job;

import dev.hourglass.api.HourglassException;
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

    public static String requireBizKey(String value) {
        if (value != null && !BIZ_KEY.matcher(value).matches()) {
            throw HourglassException.invalid("bizKey", "bizKey must be 1..128 characters of [A-Za-z0-9._:-]");
        }
        return value;
    }
}
