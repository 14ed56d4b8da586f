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

    /** Two sites' ids are far apart: marking one site's id must not make the other site's ids visible. */
    @Test
    void eachIdSpaceHasItsOwnWindow() {
        Visibility visibility = new Visibility(128);
        long eu = 1L << 32;
        long us = 2L << 32;
        assertFalse(visibility.isVisible(eu | 3), "a space never marked here");
        visibility.markVisible(us | 5);
        assertFalse(visibility.isVisible(eu | 3), "another space's mark says nothing of this one");
        visibility.markVisible(eu | 3);
        assertTrue(visibility.isVisible(eu | 3));
        assertFalse(visibility.isVisible(eu | 4));
        assertTrue(visibility.isVisible(us | 5));
        assertFalse(visibility.isVisible(us | 4), "inside its window, not marked");
        visibility.markVisible(us | 500); // us slides; eu does not
        assertTrue(visibility.isVisible(us | 4));
        assertFalse(visibility.isVisible(eu | 4));
    }

    /**
     * With a write-set log per site two sites' schedulers may have the same epoch: their site numbers keep their ids in
     * spaces apart (the first landing keyed spaces by epoch alone, and one site's ids then passed the other's window).
     */
    @Test
    void twoSitesOfOneEpochHaveSpacesApart() {
        Visibility visibility = new Visibility(128);
        long eu = org.gargamel.common.wire.TransactionIds.firstOf(2, 0);
        long us = org.gargamel.common.wire.TransactionIds.firstOf(2, 1);
        visibility.markVisible(us + 500);
        assertFalse(visibility.isVisible(eu + 3), "us's mark says nothing of eu's ids, though the epoch is the same");
        visibility.markVisible(eu + 3);
        assertTrue(visibility.isVisible(eu + 3));
        assertFalse(visibility.isVisible(eu + 4));
        assertTrue(visibility.isVisible(us + 300), "below us's window");
    }

    /** Beyond 8 spaces the least recently marked keeps only its highest id; marked again, it gets a fresh window. */
    @Test
    void spacesBeyondTheLimitKeepOnlyTheirHighestMarkedId() {
        Visibility visibility = new Visibility(128);
        long first = 1L << 32;
        visibility.markVisible(first | 10);
        for (long epoch = 2; epoch <= Visibility.MAX_SPACES + 1; epoch++) {
            visibility.markVisible(epoch << 32 | 1);
        }
        assertTrue(visibility.isVisible(first | 7), "retired: every id up to its highest counts as visible");
        assertFalse(visibility.isVisible(first | 11));
        visibility.markVisible(first | 20); // used again
        assertTrue(visibility.isVisible(first | 20));
        assertTrue(visibility.isVisible(first | 9), "still up to the highest it had marked");
        assertFalse(visibility.isVisible(first | 15), "between its old highest and the new mark: not marked");
        assertTrue(visibility.isVisible(2L << 32 | 1), "the space now least recently marked kept its highest");
        assertFalse(visibility.isVisible(2L << 32 | 2));
    }
}
