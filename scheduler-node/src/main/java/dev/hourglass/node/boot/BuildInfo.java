package dev.hourglass.node.boot;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Properties;

/** What the build wrote of itself into the jar (build.properties, filtered by Maven): its version. */
public final class BuildInfo {
    private static final String VERSION = load().getProperty("version", "unknown");

    private BuildInfo() {}

    /** The node's version, as the build that made it says ({@code project.version}). */
    public static String version() {
        return VERSION;
    }

    private static Properties load() {
        Properties p = new Properties();
        try (InputStream in = BuildInfo.class.getResourceAsStream("/dev/hourglass/node/build.properties")) {
            if (in != null) {
                p.load(in);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return p;
    }
}
