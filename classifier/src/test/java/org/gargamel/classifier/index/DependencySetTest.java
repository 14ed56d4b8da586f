package org.gargamel.classifier.index;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;

import java.util.Arrays;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** {@link DependencySet}: each id once, never the call's own, and nothing of one add left for the next. */
@Tag("unit")
class DependencySetTest {
    @Test
    void eachIdOnceAndNeverTheCallItself() {
        DependencySet set = new DependencySet();
        set.begin(7);
        set.add(3);
        set.add(7);
        set.add(3);
        set.add((Entry) null);
        set.add(new Entry(5));
        assertArrayEquals(new long[] {3, 5}, sorted(set.finish()));
    }

    @Test
    void anAddStartsEmptyWhateverTheAddBeforeItCollected() {
        DependencySet set = new DependencySet();
        set.begin(1);
        set.add(2);
        set.add(3);
        set.finish();
        set.begin(4);
        set.add(2); // collected by the add before: must count again
        set.add(1); // the add before's own id: an ordinary dependency now
        assertArrayEquals(new long[] {1, 2}, sorted(set.finish()));
    }

    @Test
    void growsPastItsFirstCapacityKeepingWhatItSaw() {
        DependencySet set = new DependencySet();
        set.begin(0);
        for (long id = 1; id <= 500; id++) {
            set.add(id);
            set.add(id / 2); // every id below it again, and 0 (its own)
        }
        assertArrayEquals(LongStream.rangeClosed(1, 500).toArray(), sorted(set.finish()));
        set.begin(1000);
        set.add(250);
        assertArrayEquals(new long[] {250}, set.finish());
    }

    @Test
    void onlyLiveSharersCount() {
        DependencySet set = new DependencySet();
        Sharers sharers = new Sharers(Sharers.EXACT, 0);
        Entry gone = new Entry(10);
        sharers.add(gone);
        sharers.add(new Entry(11));
        gone.live = false;
        set.begin(12);
        set.addLive(sharers);
        assertArrayEquals(new long[] {11}, set.finish());
    }

    private static long[] sorted(long[] ids) {
        long[] copy = ids.clone();
        Arrays.sort(copy);
        return copy;
    }
}
