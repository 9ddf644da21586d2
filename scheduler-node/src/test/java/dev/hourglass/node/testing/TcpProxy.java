package dev.hourglass.node.testing;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A TCP proxy on 127.0.0.1 in front of a real server, to cut a client off it the way a network
 * fault would: {@link #cut()} closes every connection and refuses new ones until {@link #mend()};
 * {@link #partition()} is the silent kind (a cable pulled, a firewall dropping packets): nothing
 * is closed, no byte goes through either way, new connections are accepted and hear nothing, until
 * {@link #heal()} lets everything held back through, as TCP's retransmissions would.
 * For a MySQL-protocol server it can also cut one connection at the commit of a transaction that
 * wrote a given table ({@link #cutAtCommitAfter}), before or after the server has the COMMIT.
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
    private final Object partitionLock = new Object();
    private boolean partitioned; // guarded by partitionLock

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
                Link link = new Link(client, server);
                pumps.execute(() -> pump(client, server, link, true));
                pumps.execute(() -> pump(server, client, link, false));
            } catch (IOException e) {
                // closed, or the server refused: the client sees its connection end
            }
        }
    }

    /** One client connection and its server connection. */
    private static final class Link {
        final Socket client;
        final Socket server;
        /** The client wrote to the watched table since its last commit. */
        volatile boolean wrote;
        /** The server's answers are no longer passed on (the commit's answer is lost). */
        volatile boolean muted;

        Link(Socket client, Socket server) {
            this.client = client;
            this.server = server;
        }
    }

    /** What to do at the next commit that follows a write to the watched table. */
    public enum CommitCut {
        /** The COMMIT never reaches the server: the transaction is rolled back. */
        BEFORE_THE_SERVER_HAS_IT,
        /** The server gets the COMMIT and commits; its answer never reaches the client. */
        AFTER_THE_SERVER_HAS_IT
    }

    private final AtomicReference<CommitCut> armed = new AtomicReference<>();
    private volatile String watchedTable;
    private final CountDownLatch commitCut = new CountDownLatch(1);

    /**
     * Arms one cut: the next COMMIT on a connection that wrote {@code table} (an INSERT INTO it)
     * closes that connection, {@code how}.
     */
    public void cutAtCommitAfter(String table, CommitCut how) {
        watchedTable = "INSERT INTO " + table;
        armed.set(how);
    }

    /** Waits for the armed cut to happen; false when it did not within the time. */
    public boolean awaitCommitCut(long ms) throws InterruptedException {
        return commitCut.await(ms, TimeUnit.MILLISECONDS);
    }

    private void pump(Socket from, Socket to, Link link, boolean fromClient) {
        byte[] buffer = new byte[16 * 1024];
        try (InputStream in = from.getInputStream();
                OutputStream out = to.getOutputStream()) {
            for (int n; (n = in.read(buffer)) >= 0; ) {
                awaitHealed(); // held here, the rest waits in the kernel's buffers, as on a dead link
                if (fromClient && watchedTable != null) {
                    String text = new String(buffer, 0, n, StandardCharsets.ISO_8859_1);
                    if (text.contains(watchedTable)) {
                        link.wrote = true;
                    } else if (text.contains("COMMIT") || text.contains("ROLLBACK")) {
                        CommitCut how = link.wrote && text.contains("COMMIT") ? armed.getAndSet(null) : null;
                        link.wrote = false; // a pooled connection's next transaction starts afresh
                        if (how != null) {
                            cutAtCommit(link, how, out, buffer, n);
                            return;
                        }
                    }
                }
                if (!fromClient && link.muted) {
                    return; // the finally closes both: the client never hears the answer
                }
                out.write(buffer, 0, n);
            }
            awaitHealed(); // a close is news that a dead link does not carry either
        } catch (IOException e) {
            // one side went away
        } finally {
            closeQuietly(from);
            closeQuietly(to);
        }
    }

    private void cutAtCommit(Link link, CommitCut how, OutputStream toServer, byte[] commit, int n) throws IOException {
        if (how == CommitCut.AFTER_THE_SERVER_HAS_IT) {
            link.muted = true;
            toServer.write(commit, 0, n);
            toServer.flush();
            try {
                Thread.sleep(300); // the server commits and answers into the void
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        closeQuietly(link.client);
        closeQuietly(link.server);
        commitCut.countDown();
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

    /** Silently stops every byte both ways, on open connections and new ones, closing nothing. */
    public void partition() {
        synchronized (partitionLock) {
            partitioned = true;
        }
    }

    /** Ends the {@link #partition()}: what was held back goes through, in order. */
    public void heal() {
        synchronized (partitionLock) {
            partitioned = false;
            partitionLock.notifyAll();
        }
    }

    private void awaitHealed() throws IOException {
        synchronized (partitionLock) {
            while (partitioned) {
                try {
                    partitionLock.wait();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IOException("proxy closed", e);
                }
            }
        }
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
