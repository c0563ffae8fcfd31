package org.traindeck.engine.data;

import java.util.List;
import org.traindeck.engine.config.Task;

/**
 * How a dataset is put into words: what it holds ("60000 samples, images of 28x28x1, 10 classes") and, beside
 * another, why the two cannot feed the same network.
 */
final class DatasetWords {

    private DatasetWords() {}

    /** What {@code d} holds: its size, its inputs' shapes and its task. */
    static String describe(Dataset d) {
        int outputs = d.outputCount();
        String what = switch (d.task()) {
            case CLASSIFICATION -> outputs + " classes";
            case SEGMENTATION -> "masks of " + outputs + " classes";
            case RECONSTRUCTION -> "reconstruction";
            case SEQUENCE -> "next tokens of " + outputs;
            case REGRESSION -> outputs == 1 ? "regression" : "regression of " + outputs + " targets";
            case DIFFUSION ->
                "diffusion (" + d.diffusion().prediction() + ", "
                        + d.diffusion().timesteps() + " steps)";
        };
        if (d.namedInputs()) {
            String each = String.join(
                    ", ",
                    d.inputs().stream().map(in -> in.name() + " " + in.shape()).toList());
            return d.size() + " samples, inputs " + each + ", " + what;
        }
        return d.size() + " samples, " + (d.shape() instanceof SampleShape.Flat ? d.shape() : shapeOf(d)) + ", " + what;
    }

    /** Why {@code other} cannot feed the network {@code mine} trains (other inputs, task or outputs), or null. */
    static String mismatch(Dataset mine, Dataset other) {
        if (mine.namedInputs() || other.namedInputs()) {
            String named = namedMismatch(mine, other);
            if (named != null) {
                return named;
            }
        } else if (!mine.shape().equals(other.shape())) {
            return (other.shape() instanceof SampleShape.Flat
                            ? "flat features (" + other.shape() + ")"
                            : shapeOf(other))
                    + " instead of "
                    + (mine.shape() instanceof SampleShape.Flat
                            ? "flat features (" + mine.shape() + ")"
                            : shapeOf(mine));
        }
        Task task = mine.task();
        if (task != other.task()) {
            return other.task().json + " labels instead of " + task.json;
        }
        if (mine.outputCount() != other.outputCount()) {
            return other.outputCount()
                    + (task == Task.SEQUENCE
                            ? " tokens in its vocabulary"
                            : task == Task.REGRESSION ? " targets" : " classes")
                    + " instead of " + mine.outputCount();
        }
        if (mine.targetLength() != other.targetLength()) {
            return "targets of " + other.targetLength() + " values instead of " + mine.targetLength();
        }
        return null;
    }

    private static String namedMismatch(Dataset mine, Dataset other) {
        List<String> names = mine.inputs().stream().map(InputArray::name).toList();
        List<String> otherNames = other.inputs().stream().map(InputArray::name).toList();
        if (!names.equals(otherNames)) {
            return "the inputs " + otherNames + " instead of " + names;
        }
        for (int k = 0; k < mine.inputs().size(); k++) {
            InputArray ours = mine.inputs().get(k);
            InputArray theirs = other.inputs().get(k);
            if (!ours.shape().equals(theirs.shape())) {
                return "input \"" + ours.name() + "\" of " + theirs.shape() + " instead of " + ours.shape();
            }
            if (theirs.vocabulary() > ours.vocabulary()) {
                return "input \"" + ours.name() + "\" with token ids up to " + (theirs.vocabulary() - 1)
                        + ", beyond the training data's " + (ours.vocabulary() - 1);
            }
        }
        return null;
    }

    private static String shapeOf(Dataset d) {
        if (d.shape() instanceof SampleShape.Image i) {
            return "images of " + i;
        }
        if (d.shape() instanceof SampleShape.Volume v) {
            return "volumes of " + v;
        }
        return d.shape().toString();
    }
}
