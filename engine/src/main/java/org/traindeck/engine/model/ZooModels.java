package org.traindeck.engine.model;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.deeplearning4j.nn.conf.ComputationGraphConfiguration;
import org.deeplearning4j.nn.conf.ComputationGraphConfiguration.GraphBuilder;
import org.deeplearning4j.nn.conf.inputs.InputType;
import org.deeplearning4j.nn.conf.layers.LossLayer;
import org.traindeck.engine.config.ModelConfig;
import org.traindeck.engine.config.Task;
import org.traindeck.engine.model.graph.GraphProblemsException;
import org.traindeck.engine.model.graph.NodeProblem;
import org.traindeck.engine.model.graph.ShapeError;
import org.traindeck.engine.model.graph.Shapes;

/**
 * The zoo model type: a DL4J zoo architecture built for the data's images, checked against them (a size it cannot take
 * is refused with the smallest it can), and given the task's head in place of its own.
 */
final class ZooModels {

    private static final String AT = "model.architecture";
    /** Smallest square side per architecture and channel count, found once by building (the search builds ~10 configs). */
    private static final Map<String, Integer> SMALLEST = new ConcurrentHashMap<>();

    private static final int MAX_SIDE = 1024;

    private ZooModels() {}

    static ComputationGraphConfiguration configuration(ModelConfig.Zoo zoo, ModelInput input, long seed) {
        ZooArchitecture arch = ZooArchitecture.of(zoo.architecture());
        if (input.input().getType() != InputType.Type.CNN) {
            throw problem(arch.json + " takes images but the data gives " + Shapes.describe(input.input()));
        }
        InputType.InputTypeConvolutional image = (InputType.InputTypeConvolutional) input.input();
        int h = (int) image.getHeight();
        int w = (int) image.getWidth();
        int c = (int) image.getChannels();
        if (arch.multiple > 0 && (h % arch.multiple != 0 || w % arch.multiple != 0)) {
            throw problem(arch.json
                    + " halves the image 4 times and joins each half with its up-sampled copy, so the height and "
                    + "width must be multiples of " + arch.multiple + ", but the data's images are " + h + "×" + w + "×"
                    + c
                    + ": resize or pad them to " + roundUp(h, arch.multiple) + "×" + roundUp(w, arch.multiple));
        }
        checkTask(arch, input.task());
        ComputationGraphConfiguration conf = build(arch, h, w, c, input, seed);
        if (conf == null) {
            int side = smallest(arch, c, input, seed);
            if (side < 0) {
                throw problem("DL4J cannot build " + arch.json + " for images " + h + "×" + w + "×" + c
                        + " at any size up to " + MAX_SIDE + ": choose another architecture or a graph");
            }
            throw problem(arch.json + " needs images of at least " + side + "×" + side
                    + " (it down-samples them on the way), but the " + "data's are " + h + "×" + w + "×" + c
                    + ": resize them, or choose a smaller architecture (simplecnn, lenet) or a graph");
        }
        return conf;
    }

    private static void checkTask(ZooArchitecture arch, Task task) {
        boolean perPixel = arch.kind == ZooArchitecture.Kind.PER_PIXEL;
        if (perPixel && task != Task.SEGMENTATION) {
            throw problem("unet outputs a class for every pixel, so it trains segmentation data, not " + task.json
                    + " data: choose a classifier such as resnet50 or simplecnn");
        }
        if (!perPixel && task != Task.CLASSIFICATION && task != Task.REGRESSION) {
            throw problem(arch.json + " gives one output per image (classes or values), so it cannot train " + task.json
                    + (task == Task.SEGMENTATION
                            ? ": use \"unet\", or a graph that keeps the image size"
                            : ": use a graph"));
        }
    }

    /** The whole model for images h×w×c, or null when the architecture cannot take them. */
    private static ComputationGraphConfiguration build(
            ZooArchitecture arch, int h, int w, int c, ModelInput input, long seed) {
        InputType in = InputType.convolutional(h, w, c);
        ComputationGraphConfiguration conf;
        Map<String, InputType> types;
        try {
            ZooArchitecture.Trunk trunk = arch.trunk(new int[] {c, h, w}, input.outputs(), seed);
            GraphBuilder g = trunk.graph();
            // some zoo graphs set their input type already; DL4J adds to the list rather than replacing it
            g.getNetworkInputTypes().clear();
            g.setInputTypes(in);
            g.setOutputs(trunk.last());
            types = g.build().getLayerActivationTypes(in);
            if (!types.values().stream().allMatch(ZooModels::hasSize)) {
                // ResNet50's last pooling leaves nothing below ~200×200, and DL4J builds it anyway with nIn 0
                return null;
            }
            addHead(g, arch, trunk.last(), types.get(trunk.last()), new ModelInput(in, input.task(), input.outputs()));
            g.setOutputs(Heads.OUTPUT);
            conf = g.build();
        } catch (ShapeError e) {
            throw problem(arch.json + ": " + e.getMessage());
        } catch (RuntimeException e) {
            // a kernel or pooling window larger than what is left of the image
            return null;
        }
        return conf;
    }

    private static void addHead(GraphBuilder g, ZooArchitecture arch, String last, InputType out, ModelInput input) {
        if (arch.kind == ZooArchitecture.Kind.SCORES) {
            // its last conv already has a channel per output and is pooled: only the task's loss is missing
            LossLayer loss = new LossLayer.Builder(Heads.loss(null, input.task()))
                    .activation(Heads.activation(null, input.task()))
                    .build();
            // DL4J's LossLayer reports its output as nOut values, which its builder refuses to set: it would say 0
            loss.setNOut(input.outputs());
            g.addLayer(Heads.OUTPUT, loss, last);
        } else {
            Heads.add(g, last, out, null, input);
        }
    }

    private static boolean hasSize(InputType t) {
        long[] shape = t.getShape(false);
        for (long d : shape) {
            if (d == 0 || d < -1) {
                return false;
            }
        }
        return t.arrayElementsPerExample() != 0;
    }

    private static int smallest(ZooArchitecture arch, int channels, ModelInput input, long seed) {
        return SMALLEST.computeIfAbsent(arch.json + "/" + channels, k -> {
            int step = Math.max(1, arch.multiple);
            int lo = 1;
            int hi = MAX_SIDE / step;
            if (build(arch, hi * step, hi * step, channels, input, seed) == null) {
                return -1;
            }
            while (lo < hi) {
                int mid = (lo + hi) / 2;
                if (build(arch, mid * step, mid * step, channels, input, seed) != null) {
                    hi = mid;
                } else {
                    lo = mid + 1;
                }
            }
            return lo * step;
        });
    }

    private static int roundUp(int n, int multiple) {
        return Math.max(multiple, (n + multiple - 1) / multiple * multiple);
    }

    private static GraphProblemsException problem(String message) {
        return new GraphProblemsException(List.of(new NodeProblem(AT, message)));
    }
}
