package dev.hourglass.node.testing;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.curator.test.FailedServerStartException;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingCluster;

/**
 * In-process ZooKeeper ensembles on loopback whose servers never share a port.
 *
 * <p>Curator's {@code new TestingCluster(n)} asks the kernel for each port on its own, closing
 * the socket before asking for the next, so two servers can be handed the same port. It then
 * fails to start ("Client and election port must be different") or, when two servers' client
 * ports match, cannot even be built (its specs are equal by port: "Multiple entries with same
 * key", seen in CI). Here every port of the ensemble is reserved at the same time, so the
 * kernel hands out distinct ones; a server that still loses its port to another process before
 * it binds is started again on fresh ports.
 */
public final class ZooKeeperEnsembles {
    private static final int START_ATTEMPTS = 3;

    private ZooKeeperEnsembles() {}

    /** A started ensemble of {@code servers} servers; the caller closes it. */
    public static TestingCluster started(int servers) throws Exception {
        for (int attempt = 1; ; attempt++) {
            TestingCluster ensemble = new TestingCluster(specs(servers));
            try {
                ensemble.start();
                return ensemble;
            } catch (FailedServerStartException e) {
                ensemble.close();
                if (attempt == START_ATTEMPTS) {
                    throw e;
                }
            }
        }
    }

    private static List<InstanceSpec> specs(int servers) throws IOException {
        int[] ports = distinctFreePorts(servers * 3);
        List<InstanceSpec> specs = new ArrayList<>();
        for (int i = 0; i < servers; i++) {
            specs.add(new InstanceSpec(
                    null,
                    ports[3 * i],
                    ports[3 * i + 1],
                    ports[3 * i + 2],
                    true,
                    i + 1,
                    -1,
                    -1,
                    Map.of(),
                    "127.0.0.1"));
        }
        return specs;
    }

    private static int[] distinctFreePorts(int count) throws IOException {
        List<ServerSocket> held = new ArrayList<>();
        try {
            int[] ports = new int[count];
            for (int i = 0; i < count; i++) {
                ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
                held.add(socket);
                ports[i] = socket.getLocalPort();
            }
            return ports;
        } finally {
            for (ServerSocket socket : held) {
                socket.close();
            }
        }
    }
}
