package dev.hourglass.spring.boot;

import dev.hourglass.sdk.HourglassClient;

/**
 * Changes the starter's {@link HourglassClient.Builder} after the properties are applied and
 * before the client is built: an executor, an SSL context made in code. Every bean of this type is
 * applied, in {@code @Order}. To observe the client's calls, declare a {@code ClientObserver} bean
 * instead: {@code builder.observer(...)} here would replace the starter's, its meters included.
 */
@FunctionalInterface
public interface HourglassClientBuilderCustomizer {
    void customize(HourglassClient.Builder builder);
}
