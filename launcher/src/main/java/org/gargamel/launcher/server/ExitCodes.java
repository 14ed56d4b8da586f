package org.gargamel.launcher.server;

/** The exit codes of every Gargamel command, from gargamel-all.jar and gargamel-server.jar alike. */
public final class ExitCodes {
    /** The command did its work (a run passed its checks, a server was stopped). */
    public static final int OK = 0;
    /** A run or a check failed, or the command could not do its work; the last line of standard error says why. */
    public static final int FAILED = 1;
    /** Bad usage or bad configuration: one line {@code gargamel: error: ...} naming the option; nothing started. */
    public static final int USAGE = 2;
    /** A server (node, scheduler) failed and stopped; its log names the reason. */
    public static final int FATAL = 3;
    /** 128 + SIGINT, as a shell reports a command stopped by Ctrl-C. */
    public static final int INTERRUPTED = 130;
    /** 128 + SIGTERM: a server whose parent process (the demo that started it) is gone. */
    public static final int PARENT_GONE = 143;

    private ExitCodes() {}
}
