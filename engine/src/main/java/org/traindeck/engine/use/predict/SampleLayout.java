package org.traindeck.engine.use.predict;

import org.traindeck.engine.data.SampleShape;

/**
 * Generated samples as the training targets were stored: the network's channels-first values turned back to
 * channels last where the source was, and divided by the source's {@code scale} (for images and volumes, the only
 * arrays it multiplies).
 */
record SampleLayout(SampleShape shape, boolean channelsLast, double scale) {

    static SampleLayout of(SampleShape shape, boolean channelsLast, double scale) {
        boolean picture = shape instanceof SampleShape.Image || shape instanceof SampleShape.Volume;
        return new SampleLayout(shape, channelsLast && picture, picture ? scale : 1);
    }

    long[] fileShape(int count) {
        long[] first = shape.batchShape(count);
        if (!channelsLast) {
            return first;
        }
        long[] last = new long[first.length];
        last[0] = count;
        System.arraycopy(first, 2, last, 1, first.length - 2);
        last[first.length - 1] = first[1];
        return last;
    }

    float[] toFile(float[] channelsFirst, int count) {
        int d = shape.values();
        float[] out = new float[channelsFirst.length];
        long[] s = shape.batchShape(1);
        int channels = (int) s[1];
        int positions = d / channels;
        for (int i = 0; i < count; i++) {
            for (int c = 0; c < channels; c++) {
                for (int p = 0; p < positions; p++) {
                    int from = i * d + c * positions + p;
                    int to = channelsLast ? i * d + p * channels + c : from;
                    out[to] = (float) (channelsFirst[from] / scale);
                }
            }
        }
        return out;
    }
}
