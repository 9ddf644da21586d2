package dev.hourglass.node.dispatch.http;

import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;

/** The API's time format in callbacks: ISO-8601 UTC with milliseconds, always. */
final class Times {
    private static final DateTimeFormatter ISO =
            DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSS'Z'").withZone(ZoneOffset.UTC);

    private Times() {}

    static String iso(long epochMs) {
        return ISO.format(Instant.ofEpochMilli(epochMs));
    }
}
