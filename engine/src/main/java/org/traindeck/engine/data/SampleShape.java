package org.traindeck.engine.data;

import org.deeplearning4j.nn.conf.inputs.InputType;
import org.deeplearning4j.nn.conf.layers.Convolution3D;

/**
 * What one sample's input is: a row of features, an image or a volume (stored channels-first, as DL4J's
 * convolutions take them), a sequence of values per step, or a sequence of token ids.
 */
public sealed interface SampleShape {

    /** Values per sample. */
    int values();

    /** The sample as DL4J's input type (a token sequence as its vocabulary × its length, which sets an embedding's nIn). */
    InputType inputType(int vocabulary);

    /** The batch array's shape for {@code n} samples. */
    long[] batchShape(int n);

    /** A row of features. */
    record Flat(int features) implements SampleShape {
        @Override
        public int values() {
            return features;
        }

        @Override
        public InputType inputType(int vocabulary) {
            return InputType.feedForward(features);
        }

        @Override
        public long[] batchShape(int n) {
            return new long[] {n, features};
        }

        @Override
        public String toString() {
            return features + " features";
        }
    }

    /** (channels, height, width) of an image sample. */
    record Image(int channels, int height, int width) implements SampleShape {
        public int pixels() {
            return channels * height * width;
        }

        @Override
        public int values() {
            return pixels();
        }

        @Override
        public InputType inputType(int vocabulary) {
            return InputType.convolutional(height, width, channels);
        }

        @Override
        public long[] batchShape(int n) {
            return new long[] {n, channels, height, width};
        }

        @Override
        public String toString() {
            return height + "×" + width + "×" + channels;
        }
    }

    /** (channels, depth, height, width) of a volume sample. */
    record Volume(int channels, int depth, int height, int width) implements SampleShape {
        @Override
        public int values() {
            return channels * depth * height * width;
        }

        @Override
        public InputType inputType(int vocabulary) {
            return InputType.convolutional3D(Convolution3D.DataFormat.NCDHW, depth, height, width, channels);
        }

        @Override
        public long[] batchShape(int n) {
            return new long[] {n, channels, depth, height, width};
        }

        @Override
        public String toString() {
            return depth + "×" + height + "×" + width + "×" + channels;
        }
    }

    /** A sequence of {@code length} steps of {@code features} values each (stored features-first, [features, steps]). */
    record Steps(int features, int length) implements SampleShape {
        @Override
        public int values() {
            return features * length;
        }

        @Override
        public InputType inputType(int vocabulary) {
            return InputType.recurrent(features, length);
        }

        @Override
        public long[] batchShape(int n) {
            return new long[] {n, features, length};
        }

        @Override
        public String toString() {
            return length + " steps × " + features;
        }
    }

    /** A sequence of {@code length} token ids. */
    record Tokens(int length) implements SampleShape {
        @Override
        public int values() {
            return length;
        }

        @Override
        public InputType inputType(int vocabulary) {
            return InputType.recurrent(vocabulary, length);
        }

        @Override
        public long[] batchShape(int n) {
            // DL4J's EmbeddingSequenceLayer takes [minibatch, 1, length] of ids
            return new long[] {n, 1, length};
        }

        @Override
        public String toString() {
            return length + " tokens";
        }
    }
}
