package org.traindeck.engine.library.tfevents;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import org.traindeck.engine.api.library.TagSeries;

/**
 * Scalar points gathered from the events of one run's files, with restarts applied as TensorBoard applies them: an
 * event whose step is below the latest one seen (a resumed run writing again from its checkpoint), or a session-log
 * START, drops every point at or after its step, in every tag.
 */
final class ScalarLog {

    private final Path source;
    private final ReadLimits limits;
    private final Map<String, Growing> tags = new LinkedHashMap<>();
    private long points;
    private long latestStep = Long.MIN_VALUE;
    private long restarts;

    ScalarLog(Path source, ReadLimits limits) {
        this.source = source;
        this.limits = limits;
    }

    void add(TfEventDecoder.Decoded e) throws EventFileException {
        if (e.sessionStart()) {
            restartAt(e.step());
        }
        if (e.scalars().isEmpty()) {
            return;
        }
        if (e.step() < latestStep) {
            restartAt(e.step());
        }
        latestStep = Math.max(latestStep, e.step());
        for (TfEventDecoder.Scalar s : e.scalars()) {
            Growing g = tags.get(s.tag());
            if (g == null) {
                if (tags.size() >= limits.maxTags()) {
                    throw new EventFileException(
                            source, "more than " + limits.maxTags() + " scalar tags (refused: not a training log)");
                }
                g = new Growing();
                tags.put(s.tag(), g);
            }
            if (++points > limits.maxPoints()) {
                throw new EventFileException(
                        source, "more than " + limits.maxPoints() + " scalar points (refused: too large to draw)");
            }
            g.add(e.step(), e.wallTime(), s.value());
        }
    }

    private void restartAt(long step) {
        boolean dropped = false;
        for (Growing g : tags.values()) {
            int before = g.size;
            g.dropFrom(step);
            points -= before - g.size;
            dropped |= g.size < before;
        }
        restarts += dropped ? 1 : 0;
        latestStep = step;
    }

    /** How many restarts dropped points. */
    long restarts() {
        return restarts;
    }

    Map<String, TagSeries> series() {
        Map<String, TagSeries> out = new LinkedHashMap<>();
        tags.forEach((tag, g) -> {
            if (g.size > 0) {
                out.put(tag, g.done());
            }
        });
        return out;
    }

    private static final class Growing {
        long[] steps = new long[16];
        double[] wallTimes = new double[16];
        double[] values = new double[16];
        int size;

        void add(long step, double wallTime, double value) {
            if (size == steps.length) {
                int n = size * 2;
                steps = Arrays.copyOf(steps, n);
                wallTimes = Arrays.copyOf(wallTimes, n);
                values = Arrays.copyOf(values, n);
            }
            steps[size] = step;
            wallTimes[size] = wallTime;
            values[size] = value;
            size++;
        }

        /**
         * Drops the points at or after {@code step}: a tag's steps never go down (a lower one restarts first), so they
         * are the last ones, and a restart costs what it drops.
         */
        void dropFrom(long step) {
            while (size > 0 && steps[size - 1] >= step) {
                size--;
            }
        }

        TagSeries done() {
            return new TagSeries(
                    Arrays.copyOf(steps, size), Arrays.copyOf(wallTimes, size), Arrays.copyOf(values, size));
        }
    }
}
