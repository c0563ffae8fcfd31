package org.traindeck.engine.use;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.traindeck.engine.checkpoint.CheckpointException;
import org.traindeck.engine.config.Task;
import org.traindeck.engine.data.InputSignature;
import org.traindeck.engine.data.SampleShape;
import org.traindeck.engine.data.Vocabulary;
import org.traindeck.engine.train.resume.ResumePoint;

/**
 * The data shape a checkpoint's model was built for, read back from its fingerprint ({@code model json|Shape[...]},
 * and a text's vocabulary), so that a trained model opens without its training data. The parse is checked by writing
 * the shape back exactly as training wrote it.
 */
record StoredShape(
        SampleShape shape,
        Task task,
        int outputs,
        int targetLength,
        Vocabulary vocabulary,
        List<InputSignature> named) {

    private static final Pattern NAMED =
            Pattern.compile("Shape\\[named, outputs=(\\d+), task=([A-Z]+), targets=(\\d+), inputs=(.+)]");

    StoredShape(SampleShape shape, Task task, int outputs, int targetLength, Vocabulary vocabulary) {
        this(shape, task, outputs, targetLength, vocabulary, List.of());
    }

    private static final Pattern SHAPE = Pattern.compile(
            "Shape\\[featureCount=(\\d+), image=([^,]+), outputs=(\\d+), task=([A-Z]+)](?:\\[shape=([^,]+), targets=(\\d+)])?");
    private static final Pattern IMAGE = Pattern.compile("(\\d+)×(\\d+)×(\\d+)");
    private static final Pattern VOLUME = Pattern.compile("(\\d+)×(\\d+)×(\\d+)×(\\d+)");
    private static final Pattern TOKENS = Pattern.compile("(\\d+) tokens");

    /** The fingerprint's model part: the model section as training wrote it. */
    static String modelPart(String fingerprint) {
        int at = fingerprint.indexOf("|Shape[");
        return at < 0 ? fingerprint : fingerprint.substring(0, at);
    }

    static StoredShape parse(Path file, String fingerprint) throws CheckpointException {
        int at = fingerprint.indexOf("|Shape[");
        if (at < 0) {
            throw unreadable(file, fingerprint);
        }
        String rest = fingerprint.substring(at + 1);
        if (rest.startsWith("Shape[named,")) {
            return parseNamed(file, fingerprint, rest);
        }
        int v = rest.indexOf(ResumePoint.VOCABULARY);
        String shapePart = v < 0 ? rest : rest.substring(0, v);
        Vocabulary vocabulary = v < 0
                ? null
                : new Vocabulary(Arrays.asList(
                        rest.substring(v + ResumePoint.VOCABULARY.length()).split("\u0000", -1)));
        Matcher m = SHAPE.matcher(shapePart);
        if (!m.matches()) {
            throw unreadable(file, fingerprint);
        }
        int features = Integer.parseInt(m.group(1));
        int outputs = Integer.parseInt(m.group(3));
        Task task;
        try {
            task = Task.valueOf(m.group(4));
        } catch (IllegalArgumentException e) {
            throw unreadable(file, fingerprint);
        }
        SampleShape shape;
        int targets;
        if (m.group(5) != null) {
            targets = Integer.parseInt(m.group(6));
            shape = volumeOrTokens(m.group(5), file, fingerprint);
        } else {
            shape = imageOrFlat(m.group(2), features, file, fingerprint);
            targets = switch (task) {
                case RECONSTRUCTION -> 0;
                case REGRESSION -> outputs;
                case SEGMENTATION ->
                    shape.values() / Math.max(1, shape instanceof SampleShape.Image i ? i.channels() : 1);
                default -> 1;
            };
        }
        StoredShape stored = new StoredShape(shape, task, outputs, targets, vocabulary);
        if (!stored.describe().equals(rest) || shape.values() != features) {
            throw unreadable(file, fingerprint);
        }
        return stored;
    }

    /** The sample shape of a fingerprint that writes its targets' count (volumes and token sequences). */
    private static SampleShape volumeOrTokens(String described, Path file, String fingerprint)
            throws CheckpointException {
        Matcher volume = VOLUME.matcher(described);
        Matcher tokens = TOKENS.matcher(described);
        if (volume.matches()) {
            return new SampleShape.Volume(
                    Integer.parseInt(volume.group(4)),
                    Integer.parseInt(volume.group(1)),
                    Integer.parseInt(volume.group(2)),
                    Integer.parseInt(volume.group(3)));
        }
        if (tokens.matches()) {
            return new SampleShape.Tokens(Integer.parseInt(tokens.group(1)));
        }
        throw unreadable(file, fingerprint);
    }

    private static SampleShape imageOrFlat(String described, int features, Path file, String fingerprint)
            throws CheckpointException {
        Matcher image = IMAGE.matcher(described);
        if (image.matches()) {
            return new SampleShape.Image(
                    Integer.parseInt(image.group(3)),
                    Integer.parseInt(image.group(1)),
                    Integer.parseInt(image.group(2)));
        }
        if ("null".equals(described)) {
            return new SampleShape.Flat(features);
        }
        throw unreadable(file, fingerprint);
    }

    private static StoredShape parseNamed(Path file, String fingerprint, String rest) throws CheckpointException {
        Matcher m = NAMED.matcher(rest);
        List<InputSignature> inputs = m.matches() ? InputSignature.decode(m.group(4)) : null;
        if (inputs == null || inputs.isEmpty()) {
            throw unreadable(file, fingerprint);
        }
        Task task;
        try {
            task = Task.valueOf(m.group(2));
        } catch (IllegalArgumentException e) {
            throw unreadable(file, fingerprint);
        }
        StoredShape stored = new StoredShape(
                inputs.get(0).shape(), task, Integer.parseInt(m.group(1)), Integer.parseInt(m.group(3)), null, inputs);
        if (!stored.describe().equals(rest)) {
            throw unreadable(file, fingerprint);
        }
        return stored;
    }

    /** The shape as training writes it into a fingerprint (Trainer.dataShape). */
    String describe() {
        if (!named.isEmpty()) {
            return "Shape[named, outputs=" + outputs + ", task=" + task.name() + ", targets=" + targetLength
                    + ", inputs=" + InputSignature.encode(named) + "]";
        }
        SampleShape.Image image = shape instanceof SampleShape.Image i ? i : null;
        String s = "Shape[featureCount=" + shape.values() + ", image=" + image + ", outputs=" + outputs + ", task="
                + task.name() + "]";
        if (!(shape instanceof SampleShape.Flat) && !(shape instanceof SampleShape.Image)) {
            s += "[shape=" + shape + ", targets=" + targetLength + "]";
        }
        return vocabulary == null ? s : s + ResumePoint.VOCABULARY + String.join("\u0000", vocabulary.tokens());
    }

    List<String> tokens() {
        return vocabulary == null ? null : vocabulary.tokens();
    }

    private static CheckpointException unreadable(Path file, String fingerprint) {
        String shown = fingerprint.length() > 200 ? fingerprint.substring(0, 200) + "…" : fingerprint;
        return new CheckpointException(
                file + ": its model fingerprint does not say what data the model was built for (\"" + shown
                        + "\"): it was written by another TrainDeck version, and cannot be opened for use");
    }
}
