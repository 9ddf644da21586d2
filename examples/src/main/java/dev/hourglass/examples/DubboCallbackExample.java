package dev.hourglass.examples;

import dev.hourglass.api.CallbackResult;
import dev.hourglass.sdk.dubbo.CallbackExporter;

/**
 * A DUBBO service's receiver: {@code java ... DubboCallbackExample zookeeper://127.0.0.1:2181}, then
 * {@code PUT /api/v1/services/close-order {"protocol":"DUBBO","dubboGroup":"shop","dubboVersion":"1.0"}}.
 */
public final class DubboCallbackExample {
    public static void main(String[] args) throws Exception {
        CallbackExporter exporter = CallbackExporter.of(request -> {
                    System.out.printf(
                            "closing order %s (attempt %d): %s%n",
                            request.getBizKey(), request.getAttempt(), request.getPayload());
                    return CallbackResult.success(); // a thrown exception counts as RETRY
                })
                .group("shop")
                .version("1.0")
                .registry(args[0])
                .host("127.0.0.1")
                .port(20890)
                .start();
        Runtime.getRuntime().addShutdownHook(new Thread(exporter::close));
        Thread.currentThread().join();
    }
}
