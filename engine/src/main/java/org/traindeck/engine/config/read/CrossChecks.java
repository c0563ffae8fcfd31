package org.traindeck.engine.config.read;

import org.traindeck.engine.config.CsvSource;
import org.traindeck.engine.config.DataConfig;
import org.traindeck.engine.config.IdxSource;
import org.traindeck.engine.config.ImageFolderSource;
import org.traindeck.engine.config.LayerHealthConfig;
import org.traindeck.engine.config.MaskFoldersSource;
import org.traindeck.engine.config.ModelConfig;
import org.traindeck.engine.config.NumpySource;
import org.traindeck.engine.config.OptimizerConfig;
import org.traindeck.engine.config.RunConfig;
import org.traindeck.engine.config.SourceConfig;
import org.traindeck.engine.config.StageConfig;
import org.traindeck.engine.config.SyntheticSource;
import org.traindeck.engine.config.Task;
import org.traindeck.engine.config.TextSource;

/** Checks that need the whole config: the data's shape against the model, the stages against each other and the devices. */
final class CrossChecks {

    private final Problems problems;

    CrossChecks(Problems problems) {
        this.problems = problems;
    }

    /** Reports every cross-field problem of a config whose sections each read cleanly. */
    void check(RunConfig config) {
        cluster(config);
        LayerHealthConfig layers = config.logging().layers();
        if (layers.minUpdateRatio() >= layers.maxUpdateRatio()) {
            problems.error(
                    "logging.layers.minUpdateRatio",
                    "is " + layers.minUpdateRatio() + ", not below maxUpdateRatio (" + layers.maxUpdateRatio()
                            + "): every layer would be warned about. Make it smaller, e.g. 1e-5");
        }
        new EmaChecks(problems).check(config);
        new InputChecks(problems).check(config);
        Task firstTask = null;
        for (int i = 0; i < config.stages().size(); i++) {
            StageAt at = new StageAt(config, i);
            firstTask = firstTask == null ? at.task() : firstTask;
            tasks(at, firstTask);
            modelFitsTask(at);
            augmentation(at);
            parallelMode(config, at.stage(), at.path());
            precision(at.stage(), at.path());
        }
    }

    /** One stage with the data and model it trains, and where each is written in the config. */
    private record StageAt(
            StageConfig stage, String path, DataConfig data, String dataPath, ModelConfig model, String modelPath) {
        StageAt(RunConfig config, int i) {
            this(
                    config.stages().get(i),
                    "stages[" + i + "]",
                    config.dataFor(config.stages().get(i)),
                    config.stages().get(i).data() != null ? "stages[" + i + "].data" : "data",
                    config.modelAt(i),
                    config.modelPathAt(i));
        }

        Task task() {
            return data.train().task();
        }
    }

    private void cluster(RunConfig config) {
        if (config.parallel().onCluster() && !config.parallel().synchronous()) {
            problems.error(
                    "parallel.mode",
                    "a cluster (parallel.cluster) trains synchronously only; \""
                            + config.parallel().mode() + "\" is for this machine's devices");
        }
        if (config.parallel().onCluster()) {
            // the executors exchange once per step (the summed gradient), never inside a forward or backward pass
            String why =
                    "synchronized BatchNorm is not available on a cluster: its executors exchange the step's gradient once, "
                            + "not batch statistics inside each layer's forward and backward pass. Train on this machine's devices "
                            + "(several CPU workers or GPUs), or leave it off (each executor's batch then has its own statistics, as with DDP)";
            if (config.parallel().syncBatchNorm()) {
                problems.error("parallel.syncBatchNorm", why);
            }
            syncedLayers(config, why);
        }
    }

    /** Every stage trains the first stage's kind of output, and its validation and test data are of that kind. */
    private void tasks(StageAt at, Task firstTask) {
        Task task = at.task();
        if (task != firstTask) {
            problems.error(
                    at.dataPath() + ".train",
                    "is " + task.json + " data, but stage 1 trains " + firstTask.json
                            + ": every stage of a run must train the same kind of output");
        }
        DataConfig data = at.data();
        if (data.validation() != null && data.validation().task() != task) {
            problems.error(
                    at.dataPath() + ".validation",
                    "is " + data.validation().task().json + " data, but the training data is " + task.json);
        }
        if (data.test() != null && data.test().task() != task) {
            problems.error(
                    at.dataPath() + ".test",
                    "is " + data.test().task().json + " data, but the training data is " + task.json);
        }
    }

    /** The classic shorthands train classification and regression; LeNet and ResNet need images LeNet can pool. */
    private void modelFitsTask(StageAt at) {
        ModelConfig model = at.model();
        Task task = at.task();
        boolean classic = model instanceof ModelConfig.Mlp
                || model instanceof ModelConfig.LeNet
                || model instanceof ModelConfig.ResNet;
        if (classic && task != Task.CLASSIFICATION && task != Task.REGRESSION) {
            problems.error(
                    at.modelPath() + ".type",
                    "the " + model.type() + " shorthand trains classification and regression only, but the data is "
                            + task.json
                            + ": write the model as a \"graph\" (or use \"vit\" for images, \"gpt\" for text)");
        } else if (model instanceof ModelConfig.LeNet || model instanceof ModelConfig.ResNet) {
            if (!at.data().train().isImage()) {
                problems.error(
                        at.dataPath() + ".train",
                        "the " + model.type()
                                + " model needs image data (idx, images, or csv/synthetic with \"imageShape\"); use \"mlp\" for flat features");
            } else if (model instanceof ModelConfig.LeNet lenet) {
                lenetPools(at, lenet);
            }
        }
    }

    private void lenetPools(StageAt at, ModelConfig.LeNet lenet) {
        int side = minSide(at.data().train());
        int pools = lenet.channels().size();
        if (side > 0 && side >> pools < 1) {
            problems.error(
                    at.modelPath() + ".channels",
                    pools + " conv/pool blocks halve the image " + pools
                            + " times, but the images are only " + side
                            + " pixels on their short side: use at most "
                            + (31 - Integer.numberOfLeadingZeros(side)) + " blocks");
        }
    }

    private void augmentation(StageAt at) {
        StageConfig stage = at.stage();
        SourceConfig train = at.data().train();
        // a numpy source's shape is known once its header is read: the stage's data check says it
        if (stage.augmentation() != null
                && stage.augmentation().isActive()
                && !train.isImage()
                && !train.type().equals("numpy")) {
            problems.error(
                    at.path() + ".augmentation",
                    "applies to image data only, but this stage's training data is flat features");
        }
        if (stage.augmentation() != null && stage.augmentation().rotate90() && train.isImage()) {
            int[] hw = heightWidth(train);
            if (hw != null && hw[0] != hw[1]) {
                problems.error(
                        at.path() + ".augmentation.rotate90",
                        "needs square images, but they are " + hw[0] + "×" + hw[1]);
            }
        }
    }

    /** What the averaging modes cannot do that sync does. */
    private void parallelMode(RunConfig config, StageConfig stage, String stagePath) {
        boolean averaging =
                config.devices().maybeSeveral() && !config.parallel().synchronous();
        if (averaging && stage.accumulationSteps() > 1) {
            problems.error(
                    stagePath + ".accumulationSteps",
                    "is not supported with parallel.mode \""
                            + config.parallel().mode()
                            + "\": ParallelWrapper fits each batch itself. Use \"mode\": \"sync\" (the default), a larger batchSize "
                            + "per device, or one device");
        }
        if (averaging && stage.clipNorm() > 0) {
            problems.warning(
                    stagePath + ".gradientClipping",
                    "with parallel.mode \"" + config.parallel().mode()
                            + "\" DL4J clips each layer's gradient norm, not the global norm (\"sync\" clips the global norm)");
        }
    }

    private void precision(StageConfig stage, String stagePath) {
        if (stage.precision() != StageConfig.Precision.FLOAT16) {
            return;
        }
        OptimizerConfig opt = stage.optimizer();
        if (opt.usesEpsilon() && opt.epsilon() < 1e-4) {
            problems.error(
                    stagePath + ".optimizer.epsilon",
                    "float16 training is pure fp16 in DL4J (no loss scaling): "
                            + "an epsilon of " + opt.epsilon()
                            + " underflows and the run diverges. Set \"epsilon\": 1e-4 or larger, "
                            + "or use float32");
        }
        problems.warning(
                stagePath + ".precision", "float16 on the CPU backend is emulated and usually slower than float32");
    }

    /** Every layer of every network that asks for synchronized BatchNorm, refused with {@code why}. */
    private void syncedLayers(RunConfig config, String why) {
        for (int s = 0; s < config.stages().size(); s++) {
            if (config.startsNetwork(s) && config.modelAt(s) instanceof ModelConfig.Graph g) {
                for (int i = 0; i < g.layers().size(); i++) {
                    if (Boolean.TRUE.equals(g.layers().get(i).options().get("sync"))) {
                        problems.error(config.modelPathAt(s) + ".layers[" + i + "].sync", why);
                    }
                }
            }
        }
    }

    /** Height and width when the config alone says them (IDX files say theirs only when read). */
    private static int[] heightWidth(SourceConfig source) {
        return source.accept(new SourceConfig.Visitor<int[]>() {
            @Override
            public int[] idx(IdxSource s) {
                return null;
            }

            @Override
            public int[] csv(CsvSource s) {
                return s.imageShape() == null
                        ? null
                        : new int[] {s.imageShape().get(0), s.imageShape().get(1)};
            }

            @Override
            public int[] images(ImageFolderSource s) {
                return new int[] {s.height(), s.width()};
            }

            @Override
            public int[] masks(MaskFoldersSource s) {
                return new int[] {s.height(), s.width()};
            }

            @Override
            public int[] synthetic(SyntheticSource s) {
                return s.imageShape() == null
                        ? null
                        : new int[] {s.imageShape().get(0), s.imageShape().get(1)};
            }

            @Override
            public int[] text(TextSource s) {
                return null;
            }

            @Override
            public int[] numpy(NumpySource s) {
                return null; // known once its header is read
            }
        });
    }

    private static int minSide(SourceConfig source) {
        int[] hw = heightWidth(source);
        return hw == null ? 0 : Math.min(hw[0], hw[1]);
    }
}
