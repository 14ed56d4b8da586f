package org.gargamel.launcher.profile;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** What kind a frame of a collapsed stack is, with async-profiler's annotations and without. */
@Tag("unit")
class FrameTest {

    @Test
    void anAnnotationGivesTheKindAndIsNotPartOfTheName() {
        assertEquals(new Frame("futex_wake", FrameKind.KERNEL), Frame.parse("futex_wake_[k]"));
        assertEquals(new Frame("java/util/HashMap.get", FrameKind.JAVA), Frame.parse("java/util/HashMap.get_[j]"));
        assertEquals(new Frame("java/util/HashMap.hash", FrameKind.JAVA), Frame.parse("java/util/HashMap.hash_[i]"));
        assertEquals(new Frame("Busy.main", FrameKind.JAVA), Frame.parse("Busy.main_[0]"));
        assertEquals(new Frame("a/B.c", FrameKind.JAVA), Frame.parse("a/B.c_[1]"));
        // not an annotation this reader knows: the text stays whole
        assertEquals(new Frame("thing_[x]", FrameKind.NATIVE), Frame.parse("thing_[x]"));
    }

    @Test
    void withoutAnnotationsAJavaFrameIsAMethodOfAClassInAPackage() {
        assertEquals(FrameKind.JAVA, Frame.parse("java/util/HashMap.get").kind());
        assertEquals(
                FrameKind.JAVA,
                Frame.parse("org/gargamel/common/lifecycle/Supervisor$$Lambda$440.0x00007f147927a280.run")
                        .kind());
        assertEquals(
                FrameKind.NATIVE,
                Frame.parse("CompileBroker::compiler_thread_loop").kind());
        assertEquals(
                FrameKind.NATIVE, Frame.parse("__futex_abstimed_wait_common").kind());
        assertEquals(FrameKind.NATIVE, Frame.parse("[unknown]").kind());
        assertEquals(
                FrameKind.NATIVE,
                Frame.parse("/usr/lib/x86_64-linux-gnu/libc.so.6").kind());
        assertEquals(
                FrameKind.NATIVE,
                Frame.parse("GrowableArrayView<ciBlock*>::at(int) const").kind());
    }
}
