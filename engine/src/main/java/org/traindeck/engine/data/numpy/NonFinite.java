package org.traindeck.engine.data.numpy;

import java.util.Arrays;

/**
 * The first NaN or infinity of a float array in C order (sample by sample), and how many the array holds in all, so that
 * a user can find the bad row in the tool that wrote it.
 */
public record NonFinite(String source, long sample, long[] index, String kind, long count) {

    public NonFinite {
        index = index.clone();
    }

    @Override
    public long[] index() {
        return index.clone();
    }

    /** e.g. {@code x.npy: NaN at sample 17, index [17, 3, 4] (2 non-finite values in all)}. */
    public String describe() {
        return source + ": " + kind + " at sample " + sample + ", index " + Arrays.toString(index) + " (" + count
                + " non-finite value" + (count == 1 ? "" : "s") + " in all)";
    }

    @Override
    public String toString() {
        return describe();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof NonFinite n
                && n.source.equals(source)
                && n.sample == sample
                && Arrays.equals(n.index, index)
                && n.kind.equals(kind)
                && n.count == count;
    }

    @Override
    public int hashCode() {
        return Long.hashCode(sample) * 31 + Arrays.hashCode(index);
    }
}
