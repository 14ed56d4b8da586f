package org.gargamel.launcher.profile;

import com.sun.tools.attach.AgentInitializationException;
import com.sun.tools.attach.AgentLoadException;
import com.sun.tools.attach.AttachNotSupportedException;
import com.sun.tools.attach.VirtualMachine;
import java.io.IOException;
import java.nio.file.Path;

/**
 * Loads a native agent into a running JVM of the same user through the JDK's Attach API (module jdk.attach), which
 * passes the options as they are: {@code jcmd PID JVMTI.agent_load} splits them on '='.
 */
final class JvmAgent {
    private JvmAgent() {}

    /**
     * Whether {@code pid} is a JVM this process may attach to: one that the JDK lists as {@code jps} does (a HotSpot
     * JVM of this user with its performance data, the default). Checked before attaching, because attaching to any
     * other process waits 10 s for an answer that never comes.
     */
    static boolean isAttachableJvm(long pid) {
        String id = Long.toString(pid);
        return VirtualMachine.list().stream().anyMatch(jvm -> jvm.id().equals(id));
    }

    /**
     * Attaches to {@code pid}, loads {@code library} with {@code options} and detaches. False when the agent itself
     * refused (its {@code Agent_OnAttach} returned an error, which async-profiler writes to its log); an error naming
     * the process when it could not be attached to or the library not loaded.
     */
    static boolean load(long pid, Path library, String options) throws ProfilerException {
        VirtualMachine vm;
        try {
            vm = VirtualMachine.attach(Long.toString(pid));
        } catch (AttachNotSupportedException | IOException e) {
            throw new ProfilerException(
                    "cannot attach to pid " + pid + " (a running JVM of this user?): " + e.getMessage(), e);
        }
        try {
            vm.loadAgentPath(library.toString(), options);
            return true;
        } catch (AgentInitializationException e) {
            return false;
        } catch (AgentLoadException | IOException e) {
            throw new ProfilerException("pid " + pid + " did not load " + library + ": " + e, e);
        } finally {
            try {
                vm.detach();
            } catch (IOException e) {
                // Detaching only closes our end of the connection; the agent is loaded or not either way.
            }
        }
    }
}
