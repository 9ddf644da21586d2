package dev.hourglass.node.dubbo;

import dev.hourglass.api.DelayJobService;
import dev.hourglass.node.boot.HourglassNode;
import dev.hourglass.node.config.NodeConfig;
import dev.hourglass.node.testing.ApiClient;
import dev.hourglass.node.testing.EmbeddedMariaDb;
import dev.hourglass.node.testing.TestNodes;
import dev.hourglass.node.testing.ZooKeeperLeftovers;
import org.apache.curator.test.TestingServer;
import org.apache.dubbo.common.logger.LoggerFactory;
import org.apache.dubbo.config.ApplicationConfig;
import org.apache.dubbo.config.ReferenceConfig;
import org.apache.dubbo.config.RegistryConfig;
import org.apache.dubbo.config.bootstrap.DubboBootstrap;
import org.apache.dubbo.rpc.model.ApplicationModel;
import org.apache.dubbo.rpc.model.FrameworkModel;

/**
 * A node whose cluster ZooKeeper is a test server the test can reach too, so business providers
 * register in the same Dubbo registry as the node, plus an app "shop" and its token.
 */
public final class DubboNode implements AutoCloseable {
    public final TestingServer zookeeper;
    public final HourglassNode node;
    public final ApiClient admin;
    public final ApiClient app;
    public final String appToken;

    DubboNode() throws Exception {
        this(config -> {});
    }

    /** A node whose configuration {@code tuning} adjusts before it starts (a Kafka broker, say). */
    public DubboNode(java.util.function.Consumer<NodeConfig> tuning) throws Exception {
        zookeeper = new TestingServer(true);
        NodeConfig config = TestNodes.config(EmbeddedMariaDb.newDatabase());
        config.cluster.zkConnect = zookeeper.getConnectString();
        tuning.accept(config);
        node = TestNodes.start(config);
        admin = new ApiClient(node.baseUrl(), TestNodes.ADMIN_TOKEN);
        appToken = admin.post("/api/v1/apps", "{\"name\":\"shop\"}")
                .json()
                .get("token")
                .asText();
        app = admin.as(appToken);
    }

    /** The node's Dubbo registry, as a business provider or client names it. */
    public String registry() {
        return "zookeeper://" + zookeeper.getConnectString();
    }

    String directUrl() {
        return "dubbo://127.0.0.1:" + node.dubboPort();
    }

    /** A plain Dubbo client of the node's {@code DelayJobService}, as a client that is not ours calls it. */
    public record PlainClient(DubboBootstrap bootstrap, DelayJobService service) implements AutoCloseable {
        @Override
        public void close() {
            bootstrap.stop();
            bootstrap.getApplicationModel().getFrameworkModel().destroy();
        }
    }

    /** Direct URL, no retries, the token set by hand as an attachment; calls time out after {@code timeoutMs}. */
    public PlainClient plainClient(String name, int timeoutMs) {
        DubboBootstrap bootstrap = clientBootstrap(name);
        ApplicationModel model = bootstrap.getApplicationModel();
        ReferenceConfig<DelayJobService> reference = new ReferenceConfig<>(model.getDefaultModule());
        reference.setInterface(DelayJobService.class);
        reference.setUrl(directUrl());
        reference.setRetries(0);
        reference.setTimeout(timeoutMs);
        bootstrap.reference(reference).start();
        return new PlainClient(bootstrap, reference.get());
    }

    /** A Dubbo bootstrap of its own, its application named {@code name}. */
    private static DubboBootstrap clientBootstrap(String name) {
        FrameworkModel framework = new FrameworkModel();
        LoggerFactory.setLoggerAdapter(framework, "slf4j");
        DubboBootstrap bootstrap = DubboBootstrap.newInstance(framework);
        ApplicationConfig application = new ApplicationConfig(bootstrap.getApplicationModel(), name);
        application.setQosEnable(false);
        application.setMetadataType("local");
        return bootstrap.application(application);
    }

    /**
     * A plain Dubbo client that finds the node through the registry and leaves every call setting
     * at Dubbo's default (timeout 1 s, failover with two retries), as a client written in a hurry.
     */
    public PlainClient registryClient(String name) {
        DubboBootstrap bootstrap = clientBootstrap(name);
        ApplicationModel model = bootstrap.getApplicationModel();
        RegistryConfig registry = new RegistryConfig(model, registry());
        registry.setUseAsConfigCenter(false);
        registry.setUseAsMetadataCenter(false);
        registry.setRegister(false); // a client only: nothing of it in the registry
        ReferenceConfig<DelayJobService> reference = new ReferenceConfig<>(model.getDefaultModule());
        reference.setInterface(DelayJobService.class);
        reference.setCheck(true); // start only once the node's provider is found
        // the node registers per interface (Dubbo 2's way), and so its clients subscribe
        reference.setParameters(java.util.Map.of("migration.step", "FORCE_INTERFACE"));
        bootstrap.registry(registry).reference(reference).start();
        return new PlainClient(bootstrap, reference.get());
    }

    @Override
    public void close() throws Exception {
        node.close();
        zookeeper.close();
        ZooKeeperLeftovers.delete();
    }
}
