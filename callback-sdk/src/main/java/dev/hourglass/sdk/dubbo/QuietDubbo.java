package dev.hourglass.sdk.dubbo;

import java.util.concurrent.locks.ReentrantLock;
import org.apache.dubbo.common.logger.LoggerFactory;
import org.apache.dubbo.config.ApplicationConfig;
import org.apache.dubbo.config.RegistryConfig;
import org.apache.dubbo.config.bootstrap.DubboBootstrap;
import org.apache.dubbo.rpc.model.ApplicationModel;
import org.apache.dubbo.rpc.model.FrameworkModel;

/**
 * The SDK's Dubbo instances: isolated from any Dubbo the application runs itself (own framework
 * model), logging through SLF4J, with no QoS port, no metadata service, interface-level
 * registration and no registry file cache. Dubbo reads a few settings from JVM-wide system
 * properties only; those set here are set only when the application has not set them.
 */
final class QuietDubbo {
    /**
     * Held while one of the SDK's Dubbos starts or is destroyed. Dubbo's Netty server reads the
     * JVM's default framework model when it opens a port, and the default is the first model
     * created, often another instance's; while that one is being destroyed it refuses to be used,
     * so an exporter starting at that moment failed ("FrameworkModel is destroyed").
     */
    private static final ReentrantLock LIFECYCLE = new ReentrantLock();

    private QuietDubbo() {}

    /** Starts {@code bootstrap}, never while another of the SDK's Dubbos is being destroyed. */
    static void start(DubboBootstrap bootstrap) {
        LIFECYCLE.lock();
        try {
            bootstrap.start();
        } finally {
            LIFECYCLE.unlock();
        }
    }

    /** A bootstrap with its application and registry ({@code null}: none) configured, not started. */
    static DubboBootstrap bootstrap(String applicationName, String registryUrl) {
        // Dubbo walks its JSON bindings with a ServiceLoader until it meets the preferred one; on JDK
        // 21+ the walk dies at the fastjson 1 binding (rarely present) unless fastjson2 is preferred
        if (System.getProperty("dubbo.json-framework.prefer") == null) {
            System.setProperty("dubbo.json-framework.prefer", "fastjson2");
        }
        FrameworkModel framework = new FrameworkModel();
        LoggerFactory.setLoggerAdapter(framework, "slf4j");
        DubboBootstrap bootstrap = DubboBootstrap.newInstance(framework);
        ApplicationModel model = bootstrap.getApplicationModel();
        ApplicationConfig application = new ApplicationConfig(model, applicationName);
        application.setLogger("slf4j");
        application.setQosEnable(false);
        application.setMetadataType("local");
        application.setRegisterMode("interface");
        application.setEnableFileCache(false);
        RegistryConfig registry =
                new RegistryConfig(model, registryUrl == null ? RegistryConfig.NO_AVAILABLE : registryUrl);
        registry.setUseAsConfigCenter(false);
        registry.setUseAsMetadataCenter(false);
        return bootstrap.application(application).registry(registry);
    }

    /**
     * Dubbo refuses a loopback host and registers the first network interface's address instead;
     * with every interface ignored (JVM-wide) it falls back to the loopback address.
     */
    static void registerLoopbackFor(String host) {
        if (host != null && (host.startsWith("127.") || host.equalsIgnoreCase("localhost"))) {
            System.setProperty("dubbo.network.interface.ignored", ".*");
        }
    }

    static void destroy(DubboBootstrap bootstrap) {
        LIFECYCLE.lock();
        try {
            bootstrap.stop();
        } finally {
            try {
                bootstrap.getApplicationModel().getFrameworkModel().destroy();
            } finally {
                LIFECYCLE.unlock();
            }
        }
    }
}
