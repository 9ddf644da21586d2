package dev.hourglass.sdk.dubbo;

import dev.hourglass.api.DelayJobService;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.util.List;
import java.util.Map;
import org.apache.dubbo.config.MethodConfig;
import org.apache.dubbo.config.ReferenceConfig;
import org.apache.dubbo.config.bootstrap.DubboBootstrap;
import org.apache.dubbo.rpc.RpcContext;
import org.apache.dubbo.rpc.model.ApplicationModel;

/**
 * Submits and manages jobs over Dubbo: {@link #service()} is a {@link DelayJobService} that sends
 * the app token as the {@code hourglass-token} attachment of every call (Dubbo clears attachments
 * after each call, so setting it once by hand is not enough).
 *
 * <pre>{@code
 * try (HourglassDubboClient hourglass = HourglassDubboClient.direct("dubbo://hourglass-1:20880", token)) {
 *     JobView job = hourglass.service().submit(new JobSubmission()
 *             .setService("order-close").setDelayMs(30 * 60_000L).setPayload("{\"orderId\":42}"));
 * }
 * }</pre>
 *
 * Errors arrive as {@code HourglassException} with the same codes as over HTTP.
 */
public final class HourglassDubboClient implements AutoCloseable {
    /** The longest {@code waitMs} a reserve may ask for (docs/api.md, "Pull consumers"). */
    static final int MAX_RESERVE_WAIT_MS = 30_000;

    private final DubboBootstrap bootstrap;
    private final DelayJobService service;

    private HourglassDubboClient(String directUrl, String registryUrl, String token, int timeoutMs) {
        bootstrap = QuietDubbo.bootstrap("hourglass-client", registryUrl);
        ApplicationModel model = bootstrap.getApplicationModel();
        ReferenceConfig<DelayJobService> reference = new ReferenceConfig<>(model.getDefaultModule());
        reference.setInterface(DelayJobService.class);
        reference.setUrl(directUrl);
        reference.setTimeout(timeoutMs);
        // a reserve may wait up to 30 s for a job (long poll): its answer comes that much later
        MethodConfig reserve = new MethodConfig();
        reserve.setName("reserve");
        reserve.setTimeout(MAX_RESERVE_WAIT_MS + timeoutMs);
        reserve.setRetries(0);
        reference.setMethods(List.of(reserve));
        reference.setRetries(0); // a retried submit without a bizKey could create the job twice
        reference.setCheck(false);
        reference.setParameters(Map.of("migration.step", "FORCE_INTERFACE"));
        QuietDubbo.start(bootstrap.reference(reference));
        DelayJobService remote = reference.get();
        service = (DelayJobService) Proxy.newProxyInstance(
                DelayJobService.class.getClassLoader(),
                new Class<?>[] {DelayJobService.class},
                (proxy, method, args) -> {
                    if (method.getDeclaringClass() == Object.class) {
                        return method.invoke(remote, args);
                    }
                    RpcContext.getClientAttachment().setAttachment(DelayJobService.TOKEN_ATTACHMENT, token);
                    try {
                        return method.invoke(remote, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
    }

    /** A client of the node at {@code url} ({@code dubbo://host:20880}). */
    public static HourglassDubboClient direct(String url, String token) {
        return new HourglassDubboClient(url, null, token, 10_000);
    }

    /** A client of any node found in the registry ({@code zookeeper://zk1:2181}). */
    public static HourglassDubboClient viaRegistry(String registryUrl, String token) {
        return new HourglassDubboClient(null, registryUrl, token, 10_000);
    }

    public DelayJobService service() {
        return service;
    }

    @Override
    public void close() {
        QuietDubbo.destroy(bootstrap);
    }
}
