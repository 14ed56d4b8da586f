package org.gargamel.launcher.profile;

import java.util.Locale;

/**
 * One frame of a sampled stack: its name without async-profiler's annotation, and its kind. In collapsed stacks
 * written with {@code ann} (as {@link ProcessProfiler} writes them) the suffix says the kind: {@code _[k]} kernel,
 * {@code _[j]} C2, {@code _[1]} C1, {@code _[i]} inlined, {@code _[0]} interpreted (all four Java), none native. In
 * files written without {@code ann} a frame is Java when it names a method of a class in a package ({@code a/b/C.m});
 * Java frames of the default package then read as native.
 */
public record Frame(String name, FrameKind kind) {

    public Frame {
        if (name.isEmpty()) {
            throw new IllegalArgumentException("a frame needs a name");
        }
    }

    /** The frame a name in a collapsed-stacks line stands for. */
    public static Frame parse(String text) {
        if (text.length() > 4 && text.startsWith("_[", text.length() - 4) && text.endsWith("]")) {
            String name = text.substring(0, text.length() - 4);
            FrameKind annotated = switch (text.charAt(text.length() - 2)) {
                case 'k' -> FrameKind.KERNEL;
                case 'j', 'i', '0', '1' -> FrameKind.JAVA;
                default -> null; // an annotation this version does not know: the text is the name
            };
            if (annotated != null) {
                return new Frame(name, annotated);
            }
        }
        return new Frame(text, looksLikeJava(text) ? FrameKind.JAVA : FrameKind.NATIVE);
    }

    /** {@code java/util/HashMap.get}, {@code org/x/Y$$Lambda$12.0x0000.run}: a package, a class, a method. */
    private static boolean looksLikeJava(String text) {
        return text.indexOf('/') > 0
                && !text.startsWith("[")
                && !text.contains("::")
                && !text.contains(" ")
                && text.lastIndexOf('.') > text.lastIndexOf('/')
                && !text.toLowerCase(Locale.ROOT).contains(".so");
    }

    @Override
    public String toString() {
        return name + " [" + kind.label() + "]";
    }
}
