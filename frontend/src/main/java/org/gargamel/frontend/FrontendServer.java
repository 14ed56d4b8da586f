package org.gargamel.frontend;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.timeout.IdleStateHandler;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.net.InetSocketAddress;
import java.security.SecureRandom;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.gargamel.classifier.ClassifierRules;
import org.gargamel.common.client.ClientOptions;
import org.gargamel.common.client.GargamelClient;
import org.gargamel.frontend.protocol.FrontendDecoder;
import org.gargamel.frontend.session.CallSessions;
import org.gargamel.frontend.session.CallShapes;
import org.gargamel.frontend.session.CancelKeys;
import org.gargamel.frontend.session.ExecutePrivileges;
import org.gargamel.frontend.session.Session;
import org.gargamel.frontend.session.SessionContext;
import org.gargamel.frontend.sql.CallBuilder;
import org.gargamel.frontend.sql.StatementParser;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A PostgreSQL wire-protocol front end (docs/frontend.md): listens for clients (psql, pgjdbc, any driver), turns
 * their calls of the rules' procedures into {@link org.gargamel.common.call.ProcedureCall}s and submits them through
 * its own {@link GargamelClient}, exactly as the library would. Stateless: several can serve one cluster, and clients
 * never join a JGroups group.
 */
public final class FrontendServer implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(FrontendServer.class);

    private final FrontendConfig config;
    private EventLoopGroup acceptor;
    private EventLoopGroup workers;
    private Channel listener;
    private GargamelClient client;
    private SessionContext shared;
    private String transport;
    /** The event loops' threads: their CPU time is the front end's own work (parsing, binding, encoding rows). */
    private final List<Thread> eventLoopThreads = new CopyOnWriteArrayList<>();

    public FrontendServer(FrontendConfig config) {
        this.config = config.validate();
    }

    /** Connects to the cluster, reads the catalogue if configured, and listens. */
    public void start() throws Exception {
        ClassifierRules rules = config.loadRules();
        SecureRandom random = new SecureRandom();
        client = GargamelClient.connect(config.controlGroup(), ClientOptions.defaults());
        try {
            CallShapes shapes = new CallShapes();
            if (config.catalog() != null) {
                shapes.describeFrom(config.catalog(), rules);
            }
            shared = new SessionContext(
                    CallSessions.of(client),
                    new StatementParser(rules.procedures().keySet()),
                    new CallBuilder(rules),
                    shapes,
                    config.authentication() == FrontendConfig.Authentication.TRUST,
                    config.verifiers(random),
                    config.roles(),
                    config.serverVersion(),
                    config.maxConnections(),
                    new AtomicInteger(),
                    random,
                    config.tls() == null ? null : TlsContexts.server(config.tls()),
                    config.requireTls(),
                    new CancelKeys(),
                    new AtomicLong(),
                    config.limits(),
                    new java.util.concurrent.ConcurrentHashMap<>(),
                    config.catalog() != null
                            ? ExecutePrivileges.fromCatalogue(config.catalog(), rules)
                            : ExecutePrivileges.nodeDecides());
            // Linux's epoll where its native library loads (the jar carries it for x86-64 and aarch64), else NIO.
            boolean epoll = Epoll.isAvailable();
            transport = epoll ? "epoll" : "nio";
            acceptor = new MultiThreadIoEventLoopGroup(
                    1, recorded(new DefaultThreadFactory("frontend-accept")), ioHandler(epoll));
            workers = new MultiThreadIoEventLoopGroup(
                    Math.max(1, Runtime.getRuntime().availableProcessors()),
                    recorded(new DefaultThreadFactory("frontend-session")),
                    ioHandler(epoll));
            ServerBootstrap bootstrap = new ServerBootstrap()
                    .group(acceptor, workers)
                    .channel(epoll ? EpollServerSocketChannel.class : NioServerSocketChannel.class)
                    .option(ChannelOption.SO_BACKLOG, 256)
                    .childOption(ChannelOption.TCP_NODELAY, true)
                    .childHandler(new ChannelInitializer<SocketChannel>() {
                        @Override
                        protected void initChannel(SocketChannel channel) {
                            if (config.idleSessionTimeoutSeconds() > 0) {
                                channel.pipeline()
                                        .addLast(
                                                "idle",
                                                new IdleStateHandler(
                                                        0, 0, config.idleSessionTimeoutSeconds(), TimeUnit.SECONDS));
                            }
                            channel.pipeline()
                                    .addLast("decoder", new FrontendDecoder(config.maxMessageBytes()))
                                    .addLast("session", new Session(shared));
                        }
                    });
            InetSocketAddress address = config.listenAddress();
            listener = bootstrap.bind(address).sync().channel();
            LOG.info(
                    "front end listening on {} ({}; rules {}, authentication {}, TLS {}, cluster security {})",
                    listener.localAddress(),
                    transport,
                    config.rules(),
                    config.authentication(),
                    config.tls() == null ? "off" : config.requireTls() ? "required" : "offered",
                    config.clusterSecurity() == null ? "off" : "on");
        } catch (Exception | Error e) {
            close();
            throw e;
        }
    }

    private static IoHandlerFactory ioHandler(boolean epoll) {
        return epoll ? EpollIoHandler.newFactory() : NioIoHandler.newFactory();
    }

    /** The network transport in use: {@code epoll} (Linux, native) or {@code nio}. */
    public String transport() {
        return transport;
    }

    private ThreadFactory recorded(ThreadFactory factory) {
        return task -> {
            Thread thread = factory.newThread(task);
            eventLoopThreads.add(thread);
            return thread;
        };
    }

    /**
     * CPU time of the front end's event loops so far, in nanoseconds (0 where the JVM cannot measure thread CPU time).
     * Its {@link GargamelClient}'s threads are not counted: a library client spends the same.
     */
    public long cpuNanos() {
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        long total = 0;
        for (Thread thread : eventLoopThreads) {
            long nanos = threads.getThreadCpuTime(thread.getId());
            total += Math.max(0, nanos); // -1: the thread has ended or CPU time is not supported
        }
        return total;
    }

    /** Calls sent to the cluster so far, by every session. */
    public long calls() {
        return shared == null ? 0 : shared.submitted().get();
    }

    /** The port clients connect to (the one bound when the configuration said 0). */
    public int port() {
        return ((InetSocketAddress) listener.localAddress()).getPort();
    }

    /** The host clients connect to. */
    public String host() {
        return ((InetSocketAddress) listener.localAddress()).getHostString();
    }

    @Override
    public void close() {
        if (listener != null) {
            listener.close().awaitUninterruptibly(5, TimeUnit.SECONDS);
        }
        if (workers != null) {
            workers.shutdownGracefully(0, 5, TimeUnit.SECONDS).awaitUninterruptibly(10, TimeUnit.SECONDS);
        }
        if (acceptor != null) {
            acceptor.shutdownGracefully(0, 5, TimeUnit.SECONDS).awaitUninterruptibly(10, TimeUnit.SECONDS);
        }
        if (shared != null) {
            shared.privileges().close();
        }
        if (client != null) {
            client.close();
        }
    }
}
