package org.traindeck.engine.library.tfevents;

/**
 * What a read of event files accepts before it refuses them: a file another tool wrote (or anyone) must not be able to
 * make TrainDeck allocate without bound.
 *
 * @param maxRecordBytes the largest record read (a scalar's is under 100 bytes; an image's a few MB)
 * @param maxPoints      scalar points kept, all tags and files together
 * @param maxTags        distinct scalar tags
 */
public record ReadLimits(long maxRecordBytes, long maxPoints, int maxTags) {

    /** 64 MiB records, 2,000,000 points (about 40 MB held), 1,000 tags. */
    public static final ReadLimits DEFAULT = new ReadLimits(64L << 20, 2_000_000, 1_000);

    public ReadLimits {
        if (maxRecordBytes < 1 || maxPoints < 1 || maxTags < 1) {
            throw new IllegalArgumentException("limits must be positive");
        }
    }
}
