package dev.hourglass.examples;

import dev.hourglass.api.CallbackResult;
import dev.hourglass.sdk.dubbo.CallbackExporter;

/**
 * A DUBBO service's receiver: {@code java ... DubboCallbackExample zookeeper://127.0.0.1:2181}, then
 * {@code PUT /api/v1/services/close-order {"protocol":"DUBBO","dubboGroup":"shop","dubboVersion":"1.0"}};
 * or without a registry ({@code DubboCallbackExample none 20890}, e.g. beside a standalone node),
 * with {@code "url":"dubbo://127.0.0.1:20890"} in the service as well.
 */
public final class DubboCallbackExample {
    public static void main(String[] args) throws Exception {
        String registry = args.length > 0 && !args[0].equals("none") ? args[0] : null;
        int port = args.length > 1 ? Integer.parseInt(args[1]) : 20890;
        CallbackExporter exporter = CallbackExporter.of(request -> {
                    System.out.printf(
                            "closing order %s (attempt %d): %s%n",
                            request.getBizKey(), request.getAttempt(), request.getPayload());
                    return CallbackResult.success(); // a thrown exception counts as RETRY
                })
                .group("shop")
                .version("1.0")
                .registry(registry)
                .host("127.0.0.1")
                .port(port)
                .start();
        System.out.println("exported at " + exporter.url());
        Runtime.getRuntime().addShutdownHook(new Thread(exporter::close));
        Thread.currentThread().join();
    }
}
