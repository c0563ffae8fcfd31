package org.traindeck.engine.use.predict;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.traindeck.engine.checkpoint.CheckpointException;
import org.traindeck.engine.checkpoint.CheckpointStore;
import org.traindeck.engine.config.NumpySource;
import org.traindeck.engine.config.RunConfig;
import org.traindeck.engine.config.Task;
import org.traindeck.engine.config.ValidationResult;
import org.traindeck.engine.config.read.ConfigParser;
import org.traindeck.engine.sinks.RunFolder;
import org.traindeck.engine.train.diffusion.DiffusionSampler;
import org.traindeck.engine.use.TrainedModel;

/**
 * {@code predict} on the run folder of a diffusion cascade (stages with models of their own, the upper ones reading
 * inputs derived from their targets): the first network samples, its samples go through each derived input's
 * transform without noise (upsampled, as the upper stage trained on) into the next network, and so on; the last
 * network's samples are written to {@code --out}, with {@code --all-stages} each lower network's beside it too
 * ({@code samples-<stage>.npy}). Each network's checkpoint is the best of its last stage that kept one, else its
 * newest; every one is opened before anything is sampled. Network k (from 0) draws its starting noise from the
 * seed + k.
 */
public final class CascadePrediction {

    private CascadePrediction() {}

    /**
     * The config of the run folder {@code target} names (or its checkpoints/ folder) when its stages are a diffusion
     * cascade; null for a checkpoint file (one network, predicted alone), another kind of run, or a folder whose
     * config cannot be read here (the usual path then says why).
     */
    public static RunConfig cascadeOf(Path target) {
        Path runDir = runDirOf(target);
        if (runDir == null) {
            return null;
        }
        Path file = RunFolder.of(runDir).config();
        try {
            ValidationResult parsed = ConfigParser.parseStored(Files.readString(file), runDir);
            RunConfig config = parsed.isValid() ? parsed.config() : null;
            return config != null
                            && config.cascade()
                            && config.dataFor(config.stages().get(0)).train().task() == Task.DIFFUSION
                    ? config
                    : null;
        } catch (IOException e) {
            return null;
        }
    }

    private static Path runDirOf(Path target) {
        if (!Files.isDirectory(target)) {
            return null;
        }
        Path dir = target.toAbsolutePath().normalize();
        if (CheckpointStore.FOLDER.equals(String.valueOf(dir.getFileName())) && dir.getParent() != null) {
            dir = dir.getParent();
        }
        return Files.isRegularFile(RunFolder.of(dir).config()) ? dir : null;
    }

    public static PredictionReport run(RunConfig config, PredictionRequest request)
            throws IOException, CheckpointException {
        Path runDir = runDirOf(request.model());
        Generation g = request.generation();
        DiffusionPrediction.checkOut(request.out());
        List<CascadeStage> stages = open(config, runDir, request.ema());
        Map<Path, CascadeStage> outputs = new LinkedHashMap<>();
        for (int k = 0; k < stages.size(); k++) {
            boolean last = k == stages.size() - 1;
            if (last || g.allStages()) {
                outputs.put(
                        last
                                ? request.out()
                                : besideOut(request.out(), stages.get(k).name()),
                        stages.get(k));
            }
        }
        for (Path out : outputs.keySet()) {
            AtomicOutput.checkFree(out, request.force(), false);
        }
        CascadeStage below = null;
        List<String> lines = new ArrayList<>();
        for (int k = 0; k < stages.size(); k++) {
            CascadeStage stage = stages.get(k);
            DiffusionPrediction.checkSampling(stage.source(), g);
            stage.sample(
                    below,
                    request.inputs(),
                    g.withSeed(g.seed() + k),
                    new DiffusionSampler(stage.source().diffusion()));
            lines.add("stage " + stage.name() + ": " + stage.count() + " sample" + (stage.count() == 1 ? "" : "s")
                    + " of shape " + stage.shape() + " (" + g.sampler() + ", " + g.steps() + " steps)");
            below = stage;
        }
        Map<Path, AtomicOutput.Content> files = new LinkedHashMap<>();
        for (Map.Entry<Path, CascadeStage> e : outputs.entrySet()) {
            CascadeStage s = e.getValue();
            SampleLayout layout = SampleLayout.of(
                    s.shape(), s.source().channelsLast(), s.source().scale());
            float[] written = layout.toFile(s.samples(), s.count());
            long[] fileShape = layout.fileShape(s.count());
            files.put(e.getKey(), stream -> NpyOutput.writeFloats(written, fileShape, stream));
        }
        AtomicOutput.writeFiles(files, request.force());
        CascadeStage top = stages.get(stages.size() - 1);
        return new PredictionReport(Task.DIFFUSION, top.count(), List.copyOf(files.keySet()), lines, null);
    }

    /** Every network's checkpoint, opened before anything is sampled (a missing one is refused first). */
    private static List<CascadeStage> open(RunConfig config, Path runDir, boolean ema) throws CheckpointException {
        List<CascadeStage> stages = new ArrayList<>();
        for (int start = 0; start < config.stages().size(); ) {
            int end = start + 1;
            while (end < config.stages().size() && !config.startsNetwork(end)) {
                end++;
            }
            List<String> names = new ArrayList<>();
            for (int i = start; i < end; i++) {
                names.add(config.stages().get(i).name());
            }
            String what = "stage " + (start + 1) + " \"" + names.get(0) + "\" (" + config.modelPathAt(start) + ")";
            TrainedModel model = TrainedModel.openStages(runDir, names, what, ema);
            PredictionModel view = PredictionModel.of(model);
            if (!(view.source() instanceof NumpySource numpy) || numpy.diffusion() == null) {
                throw new CheckpointException(what + " does not train a diffusion model: a cascade's stages all do");
            }
            stages.add(new CascadeStage(names.get(0), start, view, numpy));
            start = end;
        }
        return stages;
    }

    /** {@code samples.npy} → {@code samples-<stage>.npy}, beside it. */
    private static Path besideOut(Path out, String stage) {
        String file = out.getFileName().toString();
        return out.resolveSibling(file.substring(0, file.length() - ".npy".length()) + "-" + stage + ".npy");
    }
}
