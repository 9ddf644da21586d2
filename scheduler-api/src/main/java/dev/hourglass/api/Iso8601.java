package dev.hourglass.api;

import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;

/** The wire format of every time Hourglass outputs: ISO-8601 UTC with milliseconds, always. */
public final class Iso8601 {
    private static final DateTimeFormatter FORMAT =
            DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss.SSS'Z'").withZone(ZoneOffset.UTC);

    private Iso8601() {}

    /** {@code 2026-11-21T15:30:00.000Z}; {@link Instant#toString()} would drop zero milliseconds. */
    public static String format(long epochMs) {
        return FORMAT.format(Instant.ofEpochMilli(epochMs));
    }
}
