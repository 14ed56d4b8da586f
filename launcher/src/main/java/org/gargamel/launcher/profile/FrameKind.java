package org.gargamel.launcher.profile;

/** What runs in a frame of a sampled stack: the flame graph colours frames by it. */
public enum FrameKind {
    /** A Java method: interpreted, compiled by C1 or C2, or inlined. */
    JAVA,
    /** The Linux kernel (async-profiler's {@code _[k]} suffix). */
    KERNEL,
    /** Native code in user space: the JVM's C++ (the JIT, the GC), libc, JNI. */
    NATIVE;

    /** How the flame graph's titles and the text table name the kind. */
    public String label() {
        return switch (this) {
            case JAVA -> "Java";
            case KERNEL -> "kernel";
            case NATIVE -> "native";
        };
    }
}
