package org.gargamel.frontend;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.timeout.IdleStateHandler;
import java.net.InetSocketAddress;
import java.security.SecureRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.gargamel.classifier.ClassifierRules;
import org.gargamel.common.client.ClientOptions;
import org.gargamel.common.client.GargamelClient;
import org.gargamel.frontend.protocol.FrontendDecoder;
import org.gargamel.frontend.session.CallShapes;
import org.gargamel.frontend.session.CancelKeys;
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
            SessionContext shared = new SessionContext(
                    client,
                    new StatementParser(rules.procedures().keySet()),
                    new CallBuilder(rules),
                    shapes,
                    config.authentication() == FrontendConfig.Authentication.TRUST,
                    config.verifiers(random),
                    config.serverVersion(),
                    config.maxConnections(),
                    new AtomicInteger(),
                    random,
                    config.tls() == null ? null : TlsContexts.server(config.tls()),
                    config.requireTls(),
                    new CancelKeys());
            acceptor = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
            workers = new MultiThreadIoEventLoopGroup(
                    Math.max(1, Runtime.getRuntime().availableProcessors()), NioIoHandler.newFactory());
            ServerBootstrap bootstrap = new ServerBootstrap()
                    .group(acceptor, workers)
                    .channel(NioServerSocketChannel.class)
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
                    "front end listening on {} (rules {}, authentication {}, TLS {}, cluster security {})",
                    listener.localAddress(),
                    config.rules(),
                    config.authentication(),
                    config.tls() == null ? "off" : config.requireTls() ? "required" : "offered",
                    config.clusterSecurity() == null ? "off" : "on");
        } catch (Exception | Error e) {
            close();
            throw e;
        }
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
        if (client != null) {
            client.close();
        }
    }
}
