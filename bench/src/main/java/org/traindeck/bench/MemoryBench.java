package org.traindeck.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.traindeck.engine.config.ValidationResult;
import org.traindeck.engine.model.ModelCheck;

/**
 * Gradient checkpointing's cost and gain: the same training run without and with {@code "recompute": true}, each in a
 * JVM of its own ({@link MemoryChildRun}) so that the peaks do not mix, alternated (without, with, with, without, …).
 * Activation memory is the peak of ND4J's allocations (off-heap arrays and buffers, and the workspaces) above the
 * level before the run, less the model's state (weights, gradients and Adam's two moments, 16 bytes a parameter),
 * which both runs hold alike; the peak of the live heap (where the own kernels keep their Java-side buffers) and the
 * process's peak resident size (VmHWM) are rows of their own.
 */
final class MemoryBench {

    /** One case: a workload whose model JSON has no recompute, and how to turn it on in that JSON. */
    record Case(EngineBench.Workload plain, EngineBench.Workload recompute, String described) {}

    private static final ObjectMapper JSON = new ObjectMapper();

    private MemoryBench() {}

    /** text-gpt.json's GPT at context 256 (batch 32, {@code samples} windows), recompute on every block. */
    static Case gpt(Path home, int samples) throws Exception {
        ObjectNode model = (ObjectNode)
                JSON.readTree(home.resolve("sample-configs/text-gpt.json").toFile())
                        .get("model");
        Path text = home.resolve("data/text/gpl-3.txt").toAbsolutePath();
        String data = "{\"type\": \"text\", \"path\": \"" + text.toString().replace("\\", "/")
                + "\", \"context\": 256, \"stride\": 16, \"limit\": " + samples + "}";
        ObjectNode on = model.deepCopy().put("recompute", true);
        return new Case(
                new EngineBench.Workload("GPT ctx 256", model.toString(), data, samples, 32),
                new EngineBench.Workload("GPT ctx 256, recompute", on.toString(), data, samples, 32),
                "text-gpt.json's GPT at context 256 (" + model.get("width") + " wide, " + model.get("depth")
                        + " blocks; gpl-3.txt, " + samples + " windows, batch 32)");
    }

    /**
     * volumes-autoencoder.json's 3D autoencoder (16³ volumes, batch 16, {@code samples} of them), recompute on every
     * conv3d node.
     */
    static Case autoencoder(Path home, int samples) throws Exception {
        Path volumes = home.resolve("data/volumes/volumes.npz").toAbsolutePath();
        String data = "{\"type\": \"numpy\", \"task\": \"reconstruction\", \"inputs\": \""
                + volumes.toString().replace("\\", "/") + ":x\", \"scale\": 0.00392156862745098, \"limit\": "
                + samples + "}";
        return convolutions(
                home.resolve("sample-configs/volumes-autoencoder.json"),
                "conv3d",
                "3D autoencoder",
                data,
                samples,
                16,
                "volumes-autoencoder.json's 3D autoencoder (16³ volumes, " + samples + " of them, batch 16)");
    }

    /**
     * shapes-unet.json's U-Net (32×32 images, batch 32, {@code samples} of them), recompute on every conv2d node; with
     * oneDNN where it loads, whose convolutions keep no im2col matrix to leave out.
     */
    static Case unet(Path home, int samples) throws Exception {
        String shapes = home.resolve("data/shapes/shapes.npz")
                .toAbsolutePath()
                .toString()
                .replace("\\", "/");
        String data = "{\"type\": \"numpy\", \"task\": \"segmentation\", \"inputs\": \"" + shapes
                + ":x\", \"targets\": \"" + shapes + ":y\", \"numClasses\": 3, \"scale\": 0.00392156862745098,"
                + " \"limit\": " + samples + "}";
        return convolutions(
                home.resolve("sample-configs/shapes-unet.json"),
                "conv2d",
                "U-Net",
                data,
                samples,
                32,
                "shapes-unet.json's U-Net (32×32 images, " + samples + " of them, batch 32)");
    }

    /**
     * xray-volume-cascade.json's stage 1, the {@code xray16} row's workload (16³ volumes, batch 8, {@code samples} of
     * the phantoms), recompute on its patches3d, transformerBlock and unpatch3d nodes.
     */
    static Case xray(Path home, int samples) throws Exception {
        EngineBench.Workload stage1 = VolumeDiffusionPeer.stage1(home).workload();
        ObjectNode data = (ObjectNode) JSON.readTree(stage1.data());
        data.put("limit", samples);
        ObjectNode model = (ObjectNode) JSON.readTree(stage1.model());
        ObjectNode on = withRecompute(model, Set.of("patches3d", "transformerBlock", "unpatch3d"));
        String name = "x-ray stage 1";
        return new Case(
                new EngineBench.Workload(name, model.toString(), data.toString(), samples, stage1.batch()),
                new EngineBench.Workload(name + ", recompute", on.toString(), data.toString(), samples, stage1.batch()),
                "xray-volume-cascade.json's stage 1 (16³ volumes, " + samples + " phantoms, batch " + stage1.batch()
                        + ", diffusion)");
    }

    /** A sample's graph model without and with recompute on every node of {@code type}. */
    private static Case convolutions(
            Path config, String type, String name, String data, int samples, int batch, String described)
            throws Exception {
        ObjectNode model = (ObjectNode) JSON.readTree(config.toFile()).get("model");
        ObjectNode on = withRecompute(model, Set.of(type));
        return new Case(
                new EngineBench.Workload(name, model.toString(), data, samples, batch),
                new EngineBench.Workload(name + ", recompute", on.toString(), data, samples, batch),
                described);
    }

    /** A copy of a graph model with {@code "recompute": true} on every node of one of {@code types}. */
    private static ObjectNode withRecompute(ObjectNode model, Set<String> types) {
        ObjectNode on = model.deepCopy();
        on.withArray("layers").forEach(node -> {
            if (types.contains(node.path("type").asText())) {
                ((ObjectNode) node).put("recompute", true);
            }
        });
        return on;
    }

    /**
     * Without and with, {@code pairs} times; one row each for the step time, ND4J's peak less the model state, the
     * live heap's peak and the process's peak resident size.
     */
    static void compare(Case c, Path out, int pairs, Report report) throws Exception {
        long parameters = parameters(c.plain(), out.resolve("check"));
        double stateMb = 16.0 * parameters / 1e6;
        double[][] plain = new double[pairs][];
        double[][] with = new double[pairs][];
        for (int i = 0; i < pairs; i++) {
            // each pair in the other order than the last, so that a load that rises or falls favours neither
            boolean withFirst = i % 2 == 1;
            if (withFirst) {
                with[i] = child(c.recompute(), out.resolve("with" + i));
            }
            plain[i] = child(c.plain(), out.resolve("plain" + i));
            if (!withFirst) {
                with[i] = child(c.recompute(), out.resolve("with" + i));
            }
        }
        stepRows(c, plain, with, report);
        double[] ndWith = new double[pairs];
        double[] ndPlain = new double[pairs];
        for (int i = 0; i < pairs; i++) {
            ndWith[i] = (with[i][1] + with[i][2]) / 1e6 - stateMb;
            ndPlain[i] = (plain[i][1] + plain[i][2]) / 1e6 - stateMb;
        }
        memoryRow(
                report,
                c.described()
                        + String.format(
                                Locale.ROOT,
                                ": peak activation memory, ND4J's allocations (off-heap arrays and buffers, and the"
                                        + " workspaces, above the start, less %.1f MB of weights, gradients and Adam"
                                        + " state)",
                                stateMb),
                ndWith,
                ndPlain,
                "≤ 0.50×");
        memoryRow(
                report,
                c.described() + ": peak live heap (after a collection) above the start: the own kernels' Java-side"
                        + " buffers, and the JVM's own growth",
                column(with, 3, 0),
                column(plain, 3, 0),
                "—");
        memoryRow(
                report,
                c.described() + ": the process's peak resident size (VmHWM)",
                column(with, 4, 0),
                column(plain, 4, 0),
                "—");
    }

    /**
     * The step time from the wall clock over the epochs after the first, and from the training thread's CPU time over
     * the whole run (opening it and the first epoch included), which other work on the machine does not stretch.
     */
    private static void stepRows(Case c, double[][] plain, double[][] with, Report report) {
        int pairs = plain.length;
        double[] stepRatio = new double[pairs];
        double[] cpuRatio = new double[pairs];
        double[] cpuWith = new double[pairs];
        double[] cpuPlain = new double[pairs];
        int steps = EngineBench.EPOCHS
                * ((c.plain().samples() + c.plain().batch() - 1) / c.plain().batch());
        for (int i = 0; i < pairs; i++) {
            stepRatio[i] = plain[i][0] / with[i][0];
            cpuWith[i] = 1000 * with[i][6] / steps;
            cpuPlain[i] = 1000 * plain[i][6] / steps;
            cpuRatio[i] = cpuWith[i] / cpuPlain[i];
        }
        report.add(
                "gradient checkpointing",
                c.described() + ": step time",
                Stats.of(column(with, 0, c.plain().batch())).format("ms", 1) + " with recompute",
                Stats.of(column(plain, 0, c.plain().batch())).format("ms", 1) + " without",
                ratio(stepRatio, pairs),
                "≤ 1.35×");
        report.add(
                "gradient checkpointing",
                c.described() + ": the training thread's CPU time a step (the whole run: " + steps + " steps)",
                Stats.of(cpuWith).format("ms", 1) + " with recompute",
                Stats.of(cpuPlain).format("ms", 1) + " without",
                ratio(cpuRatio, pairs),
                "≤ 1.35×");
    }

    /** Field {@code f} of each run in MB, or (batch > 0) field 0 as the step time in ms. */
    private static double[] column(double[][] runs, int f, int batch) {
        double[] out = new double[runs.length];
        for (int i = 0; i < runs.length; i++) {
            out[i] = batch > 0 ? 1000.0 * batch / runs[i][0] : runs[i][f] / 1e6;
        }
        return out;
    }

    private static void memoryRow(Report report, String figure, double[] with, double[] plain, String target) {
        double[] ratios = new double[with.length];
        for (int i = 0; i < with.length; i++) {
            ratios[i] = with[i] / plain[i];
        }
        report.add(
                "gradient checkpointing",
                figure,
                Stats.of(with).format("MB", 1) + " with recompute",
                Stats.of(plain).format("MB", 1) + " without",
                ratio(ratios, with.length),
                target);
    }

    private static String ratio(double[] r, int pairs) {
        Stats s = Stats.of(r);
        return String.format(Locale.ROOT, "%.2f× (%.2f–%.2f, %d pairs)", s.median(), s.min(), s.max(), pairs);
    }

    private static long parameters(EngineBench.Workload w, Path out) {
        ModelCheck.Checked checked =
                ModelCheck.checkWithSummary(new ValidationResult(EngineBench.config(w, out, "cpu"), List.of()));
        if (checked.summary() == null) {
            throw new IllegalStateException(
                    "the bench model does not build: " + checked.result().errors());
        }
        return checked.summary().parameters();
    }

    /**
     * One run in a fresh JVM: samples/s, ND4J's off-heap peak and live heap peak above the start, workspaces, VmHWM, the
     * resident size at the start and the training thread's CPU seconds.
     */
    private static double[] child(EngineBench.Workload w, Path out) throws Exception {
        String[] f = ChildJvm.result(
                        MemoryChildRun.class,
                        w.childArgs(out.toString()),
                        Map.of(),
                        MemoryChildRun.RESULT,
                        "the memory run " + w.name())
                .split(" ");
        double[] result = new double[f.length];
        for (int i = 0; i < f.length; i++) {
            result[i] = Double.parseDouble(f[i]);
        }
        System.out.printf(
                Locale.ROOT,
                "    %s: %.1f samples/s (%.1f s of CPU), off-heap peak %.1f MB + workspaces %.1f MB + live heap %.1f MB,"
                        + " VmHWM %.0f MB%n",
                w.name(),
                result[0],
                result[6],
                result[1] / 1e6,
                result[2] / 1e6,
                result[3] / 1e6,
                result[4] / 1e6);
        return result;
    }
}
