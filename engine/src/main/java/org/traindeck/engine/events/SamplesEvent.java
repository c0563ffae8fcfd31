package org.traindeck.engine.events;

import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * The model's predictions on the run's fixed sample examples at one interval ({@code logging.samples}), ready to show:
 * per example its pictures (PNG: an image with its true and predicted mask, a volume's middle slices, a reconstruction
 * beside its input), its true label and the top predicted classes with their probabilities, or a prompt and the
 * continuation the model generated.
 *
 * @param task     the run's task, as the config spells it ({@code "segmentation"})
 * @param interval how many sample intervals came before this one in the run (0 for the first)
 */
public record SamplesEvent(
        String runName,
        String stage,
        int stageIndex,
        int epoch,
        long step,
        long wallTimeMillis,
        double elapsedSeconds,
        String task,
        int interval,
        List<Sample> samples)
        implements RunEvent {

    /** Tag prefix of the samples in TensorBoard, and the folder they are kept in beside the run's files. */
    public static final String PREFIX = "samples";

    public SamplesEvent {
        samples = List.copyOf(samples);
    }

    /**
     * One example's prediction. Fields that do not apply to the task are null (or empty lists).
     *
     * @param index     the example's position in the validation data
     * @param truth     its true label or value ({@code "7 (sneaker)"}); null where the picture shows the truth
     * @param predicted the model's answer in words ({@code "5 (sandal)"}, {@code "mean IoU 0.71"})
     * @param top       the most probable classes, most probable first
     * @param prompt    the text the model continued
     * @param text      the continuation it generated
     */
    public record Sample(
            int index,
            String truth,
            String predicted,
            List<Score> top,
            String prompt,
            String text,
            List<Picture> pictures) {

        public Sample {
            top = top == null ? List.of() : List.copyOf(top);
            pictures = pictures == null ? List.of() : List.copyOf(pictures);
        }

        /** The example in Markdown, as TensorBoard's Text tab shows it. */
        public String markdown() {
            StringBuilder b = new StringBuilder();
            if (truth != null) {
                b.append("**true:** ").append(truth).append("  \n");
            }
            if (predicted != null) {
                b.append("**predicted:** ").append(predicted).append("  \n");
            }
            for (Score s : top) {
                b.append(String.format(Locale.ROOT, "- %s: %.1f %%%n", s.label(), 100 * s.probability()));
            }
            if (prompt != null) {
                b.append("**prompt:** `").append(prompt.replace("`", "'")).append("`  \n");
            }
            if (text != null) {
                b.append("**generated:** `").append(text.replace("`", "'")).append('`');
            }
            return b.toString().strip();
        }
    }

    /** A class and the probability the model gave it. */
    public record Score(String label, double probability) {}

    /**
     * A picture of an example as PNG bytes.
     *
     * @param label    what it shows ({@code "input"}, {@code "true"}, {@code "predicted"}, {@code "slice-d"})
     * @param channels 1 (grey), 3 (RGB) or 4 (RGBA): TensorBoard's colorspace
     */
    public record Picture(String label, int width, int height, int channels, byte[] png) {

        public Picture {
            png = png.clone();
        }

        @Override
        public byte[] png() {
            return png.clone();
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Picture p
                    && p.label.equals(label)
                    && p.width == width
                    && p.height == height
                    && p.channels == channels
                    && Arrays.equals(p.png, png);
        }

        @Override
        public int hashCode() {
            return 31 * label.hashCode() + Arrays.hashCode(png);
        }

        @Override
        public String toString() {
            return "Picture[" + label + " " + width + "×" + height + "×" + channels + ", " + png.length + " bytes]";
        }
    }

    /** The TensorBoard tag of an example's picture: {@code samples/<index>/<label>}. */
    public static String pictureTag(Sample sample, Picture picture) {
        return PREFIX + "/" + sample.index() + "/" + picture.label();
    }

    /** The TensorBoard tag of an example's text: {@code samples/<index>/text}. */
    public static String textTag(Sample sample) {
        return PREFIX + "/" + sample.index() + "/text";
    }
}
