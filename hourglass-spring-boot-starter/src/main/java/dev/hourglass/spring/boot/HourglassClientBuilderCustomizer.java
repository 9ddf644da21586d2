package dev.hourglass.spring.boot;

import dev.hourglass.sdk.HourglassClient;

/**
 * Changes the starter's {@link HourglassClient.Builder} after the properties are applied and
 * before the client is built: an executor, an SSL context made in code, an observer of its own.
 * Every bean of this type is applied, in {@code @Order}.
 */
@FunctionalInterface
public interface HourglassClientBuilderCustomizer {
    void customize(HourglassClient.Builder builder);
}
