package org.gargamel.common.group;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.atomic.AtomicInteger;
import org.jgroups.logging.Log;
import org.jgroups.logging.LogFactory;
import org.jgroups.protocols.UNICAST3;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

@Tag("unit")
class GuardedJGroupsLogsTest {
    /** An argument that counts how often it is formatted. */
    private static final class Counted {
        final AtomicInteger formatted = new AtomicInteger();

        @Override
        public String toString() {
            formatted.incrementAndGet();
            return "counted";
        }
    }

    @Test
    void aDisabledLevelFormatsNothingAndAnEnabledOneDoes() {
        // The tests' logback configuration logs org.gargamel at INFO.
        Log log = new GuardedJGroupsLogs.Guarded("org.gargamel.test.guarded");
        assertFalse(log.isTraceEnabled(), "this test needs TRACE off for its logger");
        Counted argument = new Counted();
        log.trace("%s", argument);
        log.trace((Object) argument);
        assertEquals(0, argument.formatted.get(), "a trace message no one logs is not formatted");
        assertTrue(log.isWarnEnabled(), "this test needs WARN on for its logger");
        log.warn("an expected warning from GuardedJGroupsLogsTest: %s", argument);
        assertEquals(1, argument.formatted.get(), "an enabled level formats its message");
    }

    @Test
    void channelsInstallItBeforeAnyProtocolTakesItsLog() throws Exception {
        Class.forName(Channels.class.getName()); // its static initializer installs the factory
        assertInstanceOf(GuardedJGroupsLogs.class, LogFactory.getCustomLogFactory());
        assertInstanceOf(GuardedJGroupsLogs.Guarded.class, new UNICAST3().getLog());
    }
}
