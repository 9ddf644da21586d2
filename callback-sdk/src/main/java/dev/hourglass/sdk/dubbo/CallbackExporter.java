package dev.hourglass.sdk.dubbo;

import dev.hourglass.api.JobCallbackService;
import java.util.Objects;
import org.apache.dubbo.config.ProtocolConfig;
import org.apache.dubbo.config.ServiceConfig;
import org.apache.dubbo.config.bootstrap.DubboBootstrap;
import org.apache.dubbo.rpc.model.ApplicationModel;

/**
 * Exports a business's {@link JobCallbackService} over Dubbo in a few lines, for services that do
 * not run Dubbo already (those simply export the interface with their own group and version):
 *
 * <pre>{@code
 * CallbackExporter exporter = CallbackExporter.of(request -> {
 *         closeOrder(request.getPayload());
 *         return CallbackResult.success();
 *     })
 *     .group("shop").version("1.0")
 *     .registry("zookeeper://zk1:2181")   // or none: Hourglass then calls dubbo://host:port directly
 *     .port(20890)
 *     .start();
 * }</pre>
 *
 * The Hourglass service then names the same group and version (protocol {@code DUBBO}). The
 * exporter runs its own isolated Dubbo instance; {@link #close()} unregisters and stops it.
 */
public final class CallbackExporter implements AutoCloseable {
    private final JobCallbackService callback;
    private String applicationName = "hourglass-callback";
    private String group;
    private String version;
    private String registry;
    private String host;
    private int port = 20890;
    private int threads = 200;
    private DubboBootstrap bootstrap;

    private CallbackExporter(JobCallbackService callback) {
        this.callback = Objects.requireNonNull(callback, "callback");
    }

    public static CallbackExporter of(JobCallbackService callback) {
        return new CallbackExporter(callback);
    }

    public CallbackExporter applicationName(String name) {
        this.applicationName = name;
        return this;
    }

    /** The Dubbo group the Hourglass service names in {@code dubboGroup}. */
    public CallbackExporter group(String group) {
        this.group = group;
        return this;
    }

    /** The Dubbo version the Hourglass service names in {@code dubboVersion}. */
    public CallbackExporter version(String version) {
        this.version = version;
        return this;
    }

    /** A Dubbo registry URL such as {@code zookeeper://zk1:2181}; none by default (direct URL). */
    public CallbackExporter registry(String registryUrl) {
        this.registry = registryUrl;
        return this;
    }

    /**
     * The address to register. A loopback address (127.0.0.1) keeps all calls on this machine:
     * Dubbo otherwise registers the machine's network address.
     */
    public CallbackExporter host(String host) {
        this.host = host;
        return this;
    }

    public CallbackExporter port(int port) {
        this.port = port;
        return this;
    }

    /** Threads that run the callback; with a slow callback, at least the service's maxInFlight. */
    public CallbackExporter threads(int threads) {
        this.threads = threads;
        return this;
    }

    public synchronized CallbackExporter start() {
        if (bootstrap != null) {
            throw new IllegalStateException("already started");
        }
        QuietDubbo.registerLoopbackFor(host);
        DubboBootstrap b = QuietDubbo.bootstrap(applicationName, registry);
        ApplicationModel model = b.getApplicationModel();
        ProtocolConfig protocol = new ProtocolConfig(model, "dubbo", port);
        protocol.setThreads(threads);
        if (host != null) {
            protocol.setHost(host);
        }
        ServiceConfig<JobCallbackService> service = new ServiceConfig<>(model.getDefaultModule());
        service.setInterface(JobCallbackService.class);
        service.setRef(callback);
        service.setGroup(group);
        service.setVersion(version);
        b.protocol(protocol).service(service);
        try {
            QuietDubbo.start(b);
        } catch (RuntimeException e) {
            QuietDubbo.destroy(b);
            throw e;
        }
        bootstrap = b;
        return this;
    }

    /** The direct URL of this exporter, for a Hourglass service without a registry. */
    public String url() {
        return "dubbo://" + (host == null ? "127.0.0.1" : host) + ":" + port;
    }

    public int port() {
        return port;
    }

    @Override
    public synchronized void close() {
        if (bootstrap != null) {
            DubboBootstrap b = bootstrap;
            bootstrap = null;
            QuietDubbo.destroy(b);
        }
    }
}
