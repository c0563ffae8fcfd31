package org.traindeck.engine.train.batch;

import java.util.HashMap;
import java.util.Map;
import org.deeplearning4j.nn.graph.ComputationGraph;
import org.nd4j.linalg.api.buffer.DataType;
import org.traindeck.engine.config.DataConfig;
import org.traindeck.engine.config.InvalidConfigException;
import org.traindeck.engine.config.RunConfig;
import org.traindeck.engine.config.StageConfig;
import org.traindeck.engine.data.Augmenter;
import org.traindeck.engine.data.DataLoader;
import org.traindeck.engine.model.ModelCompiler;
import org.traindeck.engine.train.state.RunEvents;
import org.traindeck.engine.train.state.StartWork;

/**
 * Gets a stage ready to train: its data (loaded once per distinct data config, and checked against the data its
 * network was built for), the network in the stage's precision, and its batches.
 */
public final class StageSetup implements AutoCloseable {

    private final RunConfig config;
    private final RunEvents events;
    private final Map<DataConfig, DataLoader.Loaded> cache = new HashMap<>();
    private final StartWork work;

    public StageSetup(RunConfig config, RunEvents events) {
        this(config, events, null, StartWork.NONE);
    }

    /**
     * @param start what preparing the run read (its data is not read again), or null
     * @param work  told of each data read
     */
    public StageSetup(RunConfig config, RunEvents events, PreparedStart start, StartWork work) {
        this.config = config;
        this.events = events;
        this.work = work;
        if (start != null) {
            cache.put(start.data(), start.loaded());
        }
    }

    public DataLoader.Loaded load(int stage) {
        StageConfig s = config.stages().get(stage);
        DataConfig data = config.dataFor(s);
        String at = s.data() != null ? "stages[" + stage + "].data" : "data";
        DataLoader.Loaded loaded = cache.computeIfAbsent(data, d -> {
            work.dataRead();
            return DataLoader.load(config, d, at);
        });
        return loaded;
    }

    /** Closes the data files the stages read. */
    @Override
    public void close() {
        cache.values().forEach(DataLoader.Loaded::close);
        cache.clear();
    }

    /** The network in the stage's precision (DL4J's conversion keeps the optimizer state). */
    public ComputationGraph inPrecision(ComputationGraph net, StageConfig stage) {
        DataType dataType = dataType(stage);
        if (net.getConfiguration().getDataType() == dataType) {
            return net;
        }
        events.logLine("stage " + stage.name() + ": network converted to " + dataType);
        return net.convertDataType(dataType);
    }

    static DataType dataType(StageConfig stage) {
        return stage.precision() == StageConfig.Precision.FLOAT16 ? DataType.HALF : DataType.FLOAT;
    }

    public StagePlan plan(int index) {
        StageConfig stage = config.stages().get(index);
        DataLoader.Loaded data = load(index);
        int start = config.networkStart(index);
        String mismatch = load(start).train().incompatibilityWith(data.train());
        if (mismatch != null) {
            throw new InvalidConfigException(
                    "stages[" + index + "].data.train",
                    "does not fit the model built for stage " + (start + 1) + "'s data: it has " + mismatch);
        }
        String misfit = Augmenter.misfit(stage.augmentation(), data.train());
        if (misfit != null) {
            throw new InvalidConfigException("stages[" + index + "].augmentation", misfit);
        }
        if (stage.augmentation() != null
                && stage.augmentation().rotate90()
                && data.train().isImage()
                && data.train().imageShape().height()
                        != data.train().imageShape().width()) {
            throw new InvalidConfigException(
                    "stages[" + index + "].augmentation.rotate90",
                    "needs square images, but they are " + data.train().imageShape());
        }
        DataType dataType = dataType(stage);
        boolean images = ModelCompiler.wantsImages(config.modelAt(index));
        return new StagePlan(
                index,
                stage,
                data,
                new BatchMaker(
                        data.train(),
                        images,
                        stage.augmentation(),
                        dataType,
                        config.dataFor(stage).train().reconstructionNoise()),
                dataType,
                images);
    }
}
