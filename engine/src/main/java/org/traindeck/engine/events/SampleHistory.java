package org.traindeck.engine.events;

/**
 * Which sample intervals a long run keeps (in memory in the app, on disk in the run folder): the last {@code recent}
 * ones, and of the older ones every {@code stride}-th, the stride doubling whenever more than {@code older} of them
 * would be kept. So at most {@code recent + older} intervals are kept whatever the run's length, spread evenly over
 * its history, and an interval once dropped never has to come back.
 */
public final class SampleHistory {

    /** The intervals kept in full. */
    public static final int RECENT = 16;
    /** The most older intervals kept, thinned. */
    public static final int OLDER = 16;

    private SampleHistory() {}

    /** Whether interval {@code ordinal} (0-based) is kept once {@code count} intervals have been made. */
    public static boolean keeps(int ordinal, int count, int recent, int older) {
        if (ordinal < 0 || ordinal >= count) {
            return false;
        }
        int oldOnes = count - recent;
        if (ordinal >= oldOnes) {
            return true;
        }
        return ordinal % stride(oldOnes, older) == 0;
    }

    public static boolean keeps(int ordinal, int count) {
        return keeps(ordinal, count, RECENT, OLDER);
    }

    /** The smallest power of two at which the multiples among {@code n} older intervals are at most {@code older}. */
    private static int stride(int n, int older) {
        int stride = 1;
        while ((n + stride - 1) / stride > Math.max(1, older)) {
            stride *= 2;
        }
        return stride;
    }
}
