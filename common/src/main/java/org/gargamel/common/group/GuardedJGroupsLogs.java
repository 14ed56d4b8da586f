package org.gargamel.common.group;

import org.jgroups.logging.CustomLogFactory;
import org.jgroups.logging.Log;
import org.jgroups.logging.LogFactory;
import org.jgroups.logging.Slf4jLogImpl;

/**
 * JGroups' logs through SLF4J, formatting a message only when its level is enabled.
 *
 * <p>JGroups' own {@link Slf4jLogImpl} formats every {@code trace(format, args...)} and {@code debug(format,
 * args...)} with {@link String#format} before SLF4J drops it, and jgroups-raft calls them unguarded on every append
 * response: 2-4% of a node JVM's CPU at 3 replicas went to formatting messages no one logged (async-profiler,
 * docs/costs.md). {@code GuardedJGroupsLogsTest} checks that a disabled level formats nothing.
 */
public final class GuardedJGroupsLogs implements CustomLogFactory {
    private GuardedJGroupsLogs() {}

    /**
     * Makes JGroups log through this factory. Idempotent; must run before the channels are built, since each protocol
     * takes its log when it is created ({@link Channels} calls it first).
     */
    public static synchronized void install() {
        if (!(LogFactory.getCustomLogFactory() instanceof GuardedJGroupsLogs)) {
            LogFactory.setCustomLogFactory(new GuardedJGroupsLogs());
        }
    }

    @Override
    public Log getLog(Class<?> clazz) {
        return new Guarded(clazz.getName());
    }

    @Override
    public Log getLog(String category) {
        return new Guarded(category);
    }

    /** {@link Slf4jLogImpl} with every formatting method behind its level's check. */
    static final class Guarded extends Slf4jLogImpl {
        Guarded(String category) {
            super(category);
        }

        @Override
        public void fatal(String format, Object... args) {
            if (isFatalEnabled()) {
                super.fatal(format, args);
            }
        }

        @Override
        public void error(String format, Object... args) {
            if (isErrorEnabled()) {
                super.error(format, args);
            }
        }

        @Override
        public void warn(String format, Object... args) {
            if (isWarnEnabled()) {
                super.warn(format, args);
            }
        }

        @Override
        public void info(String format, Object... args) {
            if (isInfoEnabled()) {
                super.info(format, args);
            }
        }

        @Override
        public void debug(String format, Object... args) {
            if (isDebugEnabled()) {
                super.debug(format, args);
            }
        }

        @Override
        public void trace(String format, Object... args) {
            if (isTraceEnabled()) {
                super.trace(format, args);
            }
        }

        @Override
        public void trace(Object message) {
            if (isTraceEnabled()) {
                super.trace(message);
            }
        }
    }
}
