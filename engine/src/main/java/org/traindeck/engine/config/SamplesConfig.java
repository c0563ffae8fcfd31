package org.traindeck.engine.config;

/**
 * Sample predictions during training ({@code logging.samples}): how many fixed validation examples are predicted and
 * how often. Off unless the section is present (its absence reads as {@code count} 0).
 *
 * @param count       examples predicted at each interval; 0 = off
 * @param everyEpochs every N epochs, and at each stage's last epoch
 */
public record SamplesConfig(int count, int everyEpochs) {

    /** What a config without the section means. */
    public static final SamplesConfig OFF = new SamplesConfig(0, 1);

    public boolean on() {
        return count > 0 && everyEpochs > 0;
    }

    /** Whether the end of 0-based {@code epoch} of a stage of {@code epochs} epochs predicts the samples. */
    public boolean dueAfter(int epoch, int epochs) {
        return on() && ((epoch + 1) % everyEpochs == 0 || epoch == epochs - 1);
    }
}
