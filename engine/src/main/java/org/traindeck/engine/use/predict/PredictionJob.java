package org.traindeck.engine.use.predict;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Consumer;
import org.traindeck.engine.config.Task;
import org.traindeck.engine.data.SampleShape;
import org.traindeck.engine.outputs.PredictionInputException;
import org.traindeck.engine.outputs.Sampling;
import org.traindeck.engine.outputs.TextGenerator;

/**
 * Carries out a {@link PredictionRequest} on an opened model: checks where the output goes before any work (an
 * existing file is kept unless forced; the output suits the task), reads and converts the inputs, predicts, and
 * writes every file at once or none; or continues a prompt.
 */
public final class PredictionJob {

    /** Classifier lines shown to the user; the file has them all. */
    static final int SHOWN = 10;

    private PredictionJob() {}

    /** @param eachCharacter receives a continuation's characters as they are drawn */
    public static PredictionReport run(PredictionModel model, PredictionRequest request, Consumer<String> eachCharacter)
            throws IOException {
        checkArrayOptions(model, request);
        if (request.prompt() != null) {
            return continuation(model, request, eachCharacter);
        }
        if (model.task() == Task.DIFFUSION) {
            return DiffusionPrediction.run(model, request);
        }
        if (request.generation().count() > 0) {
            throw new PredictionInputException("--count generates samples of a diffusion model; this model's task is "
                    + model.task().json + ": give inputs to predict on");
        }
        if (request.inputs().isEmpty()) {
            throw new PredictionInputException(
                    model.vocabulary() != null
                            ? "a text model continues a prompt: give --prompt TEXT (or windows of token ids as .npy)"
                            : "no inputs: give .npy/.npz files, image files or a folder of images to predict on");
        }
        if (request.out() == null) {
            throw new PredictionInputException(
                    "--out is required: a .npy file" + (model.task() == Task.CLASSIFICATION ? ", a .csv" : "")
                            + (model.task() == Task.SEGMENTATION ? ", or a folder for PNG masks" : ""));
        }
        Target target = target(model, request);
        if (!model.named().isEmpty()) {
            return named(model, request, target.out(), target.classFile());
        }
        InputRows rows = read(request.inputs(), model, request.arrays());
        ArrayLayout layout = request.arrays().layout() != null
                ? request.arrays().layout()
                : rows.layout() != null ? rows.layout() : ArrayLayout.of(model.source());
        Predictions p = OutputLayout.arrange(Predictor.predict(model, rows), layout);
        List<Path> written = write(model, request, target, rows, p);
        return new PredictionReport(model.task(), p.count(), written, lines(model, p), null, rows.warnings());
    }

    /** Where the predictions go: a .npy (and beside it the classes), a .csv, or a folder of PNG masks. */
    private record Target(Path out, boolean npy, boolean csv, Path classFile) {
        boolean folder() {
            return !npy && !csv;
        }
    }

    /** The --out the request names, checked against the task and kept unless forced, before any work. */
    private static Target target(PredictionModel model, PredictionRequest request) {
        Path out = request.out();
        String name = out.getFileName().toString().toLowerCase(Locale.ROOT);
        boolean npy = name.endsWith(".npy");
        boolean csv = name.endsWith(".csv");
        boolean classes = model.task() == Task.CLASSIFICATION
                || model.task() == Task.SEGMENTATION
                || model.task() == Task.SEQUENCE;
        Path classFile = npy && classes
                ? out.resolveSibling(out.getFileName().toString().replaceAll("(?i)\\.npy$", "") + ".classes.npy")
                : null;
        if (csv && model.task() != Task.CLASSIFICATION) {
            throw new PredictionInputException("--out " + out
                    + ": a CSV holds one class per input, for a classifier; this model's task is " + model.task().json
                    + ": write a .npy" + (model.task() == Task.SEGMENTATION ? " or a folder of PNG masks" : ""));
        }
        if (!npy && !csv && !(model.task() == Task.SEGMENTATION && model.shape() instanceof SampleShape.Image)) {
            throw new PredictionInputException("--out " + out + " is neither a .npy"
                    + (model.task() == Task.CLASSIFICATION ? " nor a .csv" : "")
                    + " file" + (model.task() == Task.SEGMENTATION ? " (a volume's masks go to .npy, not PNG)" : "")
                    + ": name the file the predictions go to, as predictions.npy");
        }
        if (request.overlays() && (npy || csv)) {
            throw new PredictionInputException(
                    "--overlay draws masks over their images, in a folder of PNG masks: give a folder as --out");
        }
        Target target = new Target(out, npy, csv, classFile);
        AtomicOutput.checkFree(out, request.force(), target.folder());
        if (classFile != null) {
            AtomicOutput.checkFree(classFile, request.force(), false);
        }
        return target;
    }

    /** Writes every file of the predictions at once, or none. */
    private static List<Path> write(
            PredictionModel model, PredictionRequest request, Target target, InputRows rows, Predictions p)
            throws IOException {
        if (target.folder()) {
            AtomicOutput.writeFolder(
                    target.out(),
                    request.force(),
                    dir -> MaskPngWriter.write(p, rows, (SampleShape.Image) model.shape(), request.overlays(), dir));
            return List.of(target.out());
        }
        Map<Path, AtomicOutput.Content> files = new LinkedHashMap<>();
        if (target.csv()) {
            files.put(target.out(), stream -> ClassCsvWriter.write(p, model, stream));
        } else {
            files.put(target.out(), stream -> NpyOutput.writeFloats(p.values(), p.shape(), stream));
            if (target.classFile() != null) {
                files.put(target.classFile(), stream -> NpyOutput.writeLongs(p.classes(), p.classShape(), stream));
            }
        }
        AtomicOutput.writeFiles(files, request.force());
        return List.copyOf(files.keySet());
    }

    /** --scale divides one input's real values, --layout lays out images: refused where they would be ignored. */
    private static void checkArrayOptions(PredictionModel model, PredictionRequest request) {
        boolean scaled = request.arrays().divideBy() != 1;
        if (scaled && (request.prompt() != null || model.shape() instanceof SampleShape.Tokens)) {
            throw new PredictionInputException("--scale divides real values; token ids are given as they are");
        }
        if (scaled && model.task() == Task.DIFFUSION) {
            throw new PredictionInputException("--scale divides inputs to predict on; a diffusion model's "
                    + "conditioning is read as its training source read it");
        }
        if ((scaled || request.arrays().layout() != null) && !model.named().isEmpty()) {
            throw new PredictionInputException((scaled ? "--scale" : "--layout") + ": a model of named inputs reads "
                    + "each array as its training source did (its layout and scale); give them so");
        }
    }

    private static PredictionReport named(PredictionModel model, PredictionRequest request, Path out, Path classFile)
            throws IOException {
        if (!out.getFileName().toString().toLowerCase(Locale.ROOT).endsWith(".npy")) {
            throw new PredictionInputException(
                    "--out " + out + ": a model of named inputs writes its predictions to a .npy file");
        }
        Predictions p = OutputLayout.arrange(
                NamedInputsPrediction.predict(model, request.inputs()),
                request.arrays().layout() != null ? request.arrays().layout() : ArrayLayout.of(model.source()));
        Map<Path, AtomicOutput.Content> files = new LinkedHashMap<>();
        files.put(out, stream -> NpyOutput.writeFloats(p.values(), p.shape(), stream));
        if (classFile != null) {
            files.put(classFile, stream -> NpyOutput.writeLongs(p.classes(), p.classShape(), stream));
        }
        AtomicOutput.writeFiles(files, request.force());
        return new PredictionReport(model.task(), p.count(), List.copyOf(files.keySet()), lines(model, p), null);
    }

    private static InputRows read(List<Path> inputs, PredictionModel model, ArrayOptions options) throws IOException {
        long numpy = inputs.stream().filter(NumpyInputs::isNumpy).count();
        if (numpy > 0 && numpy < inputs.size()) {
            throw new PredictionInputException("the inputs mix NumPy files and images: give one kind per prediction");
        }
        if (numpy == 0 && options.divideBy() != 1) {
            throw new PredictionInputException(
                    "--scale divides NumPy inputs; images are read as the training source read its pixels");
        }
        return numpy > 0
                ? NumpyInputs.read(inputs, model, options)
                : ImageInputs.read(ImageInputs.files(inputs), model);
    }

    private static List<String> lines(PredictionModel model, Predictions p) {
        List<String> lines = new ArrayList<>();
        if (model.task() == Task.CLASSIFICATION) {
            int classes = (int) p.shape()[1];
            for (int i = 0; i < Math.min(SHOWN, p.count()); i++) {
                int best = (int) p.classes()[i];
                lines.add(String.format(
                        Locale.ROOT,
                        "%s  %s  %.3f",
                        p.names().get(i),
                        model.className(best),
                        p.values()[i * classes + best]));
            }
            if (p.count() > SHOWN) {
                lines.add("… " + (p.count() - SHOWN) + " more");
            }
        }
        lines.add(p.count() + " prediction" + (p.count() == 1 ? "" : "s") + " of shape "
                + Arrays.toString(Arrays.copyOfRange(p.shape(), 1, p.shape().length)) + " each");
        return lines;
    }

    private static PredictionReport continuation(
            PredictionModel model, PredictionRequest request, Consumer<String> eachCharacter) throws IOException {
        if (model.vocabulary() == null || !(model.shape() instanceof SampleShape.Tokens tokens)) {
            throw new PredictionInputException(
                    "--prompt continues a text, but this model was trained for " + model.task().json + " on a "
                            + model.source().type() + " source"
                            + (model.task() == Task.SEQUENCE
                                    ? " of token ids, without characters: give " + "windows of token ids as .npy"
                                    : ": give inputs to predict on instead"));
        }
        if (!request.inputs().isEmpty()) {
            throw new PredictionInputException("give either --prompt or inputs, not both");
        }
        Sampling sampling = request.sampling() != null ? request.sampling() : Sampling.greedy(200);
        if (request.out() != null) {
            AtomicOutput.checkFree(request.out(), request.force(), false);
        }
        String text = new TextGenerator(model.forward()::output, model.vocabulary(), tokens.length())
                .generate(request.prompt(), sampling, eachCharacter);
        List<Path> written = new ArrayList<>();
        if (request.out() != null) {
            AtomicOutput.writeFiles(
                    Map.of(request.out(), stream -> stream.write(text.getBytes(StandardCharsets.UTF_8))),
                    request.force());
            written.add(request.out());
        }
        return new PredictionReport(model.task(), 1, written, List.of(), text);
    }
}
