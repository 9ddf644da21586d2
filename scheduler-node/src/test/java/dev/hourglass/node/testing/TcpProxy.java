package dev.hourglass.node.testing;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * A TCP proxy on 127.0.0.1 in front of a real server, to cut a client off it the way a network
 * fault would: {@link #cut()} closes every connection and refuses new ones until {@link #mend()}.
 */
public final class TcpProxy implements AutoCloseable {
    private final ServerSocket listener;
    private final int targetPort;
    private final ExecutorService pumps = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "tcp-proxy");
        t.setDaemon(true);
        return t;
    });
    private final List<Socket> open = new CopyOnWriteArrayList<>();
    private volatile boolean cut;

    public TcpProxy(int targetPort) throws IOException {
        this.targetPort = targetPort;
        this.listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        pumps.execute(this::accept);
    }

    public int port() {
        return listener.getLocalPort();
    }

    private void accept() {
        while (!listener.isClosed()) {
            try {
                Socket client = listener.accept();
                if (cut) {
                    client.close();
                    continue;
                }
                Socket server = new Socket();
                server.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), targetPort), 2_000);
                open.add(client);
                open.add(server);
                pumps.execute(() -> pump(client, server));
                pumps.execute(() -> pump(server, client));
            } catch (IOException e) {
                // closed, or the server refused: the client sees its connection end
            }
        }
    }

    private void pump(Socket from, Socket to) {
        byte[] buffer = new byte[16 * 1024];
        try (InputStream in = from.getInputStream();
                OutputStream out = to.getOutputStream()) {
            for (int n; (n = in.read(buffer)) >= 0; ) {
                out.write(buffer, 0, n);
            }
        } catch (IOException e) {
            // one side went away
        } finally {
            closeQuietly(from);
            closeQuietly(to);
        }
    }

    /** Drops every connection through the proxy and refuses new ones. */
    public void cut() {
        cut = true;
        open.forEach(TcpProxy::closeQuietly);
        open.clear();
    }

    /** Lets connections through again. */
    public void mend() {
        cut = false;
    }

    private static void closeQuietly(Socket s) {
        try {
            s.close();
        } catch (IOException ignored) {
            // closing anyway
        }
    }

    @Override
    public void close() {
        cut();
        closeQuietly(listener);
        pumps.shutdownNow();
    }

    private static void closeQuietly(ServerSocket s) {
        try {
            s.close();
        } catch (IOException ignored) {
            // closing anyway
        }
    }
}
