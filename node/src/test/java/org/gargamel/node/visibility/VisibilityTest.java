package org.gargamel.node.visibility;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

@Tag("unit")
class VisibilityTest {
    @Test
    void marksAndWaits() throws Exception {
        Visibility visibility = new Visibility(128);
        assertFalse(visibility.isVisible(5));
        CountDownLatch done = new CountDownLatch(1);
        Thread waiter = new Thread(() -> {
            try {
                visibility.awaitAll(new long[] {5, 7});
                done.countDown();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        waiter.start();
        visibility.markVisible(5);
        assertFalse(done.await(50, TimeUnit.MILLISECONDS), "7 is not visible yet");
        visibility.markVisible(7);
        assertTrue(done.await(5, TimeUnit.SECONDS));
        assertTrue(visibility.isVisible(5));
        assertFalse(visibility.isVisible(6));
    }

    @Test
    void windowSlidesAndForgetsOnlyOldIds() {
        Visibility visibility = new Visibility(128);
        visibility.markVisible(1);
        assertFalse(visibility.isVisible(2));
        visibility.markVisible(127);
        assertFalse(visibility.isVisible(2), "still inside the window");
        visibility.markVisible(200); // window now covers words 2..3 (ids 128..255)
        assertTrue(visibility.isVisible(2), "below the window: applied everywhere long ago");
        assertTrue(visibility.isVisible(200));
        assertFalse(visibility.isVisible(199));
        assertFalse(visibility.isVisible(130), "a reused slot starts empty");
        visibility.markVisible(10_000); // jump far: every slot cleared
        assertFalse(visibility.isVisible(9_999));
        assertFalse(visibility.isVisible(9_990));
        assertTrue(visibility.isVisible(10_000));
        assertTrue(visibility.isVisible(500));
    }
}
