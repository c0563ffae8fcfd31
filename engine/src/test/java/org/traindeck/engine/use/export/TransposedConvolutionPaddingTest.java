package org.traindeck.engine.use.export;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.deeplearning4j.nn.conf.inputs.InputType;
import org.deeplearning4j.nn.conf.layers.Convolution3D;
import org.deeplearning4j.nn.graph.ComputationGraph;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.indexing.INDArrayIndex;
import org.nd4j.linalg.indexing.NDArrayIndex;
import org.traindeck.engine.config.ModelConfig;
import org.traindeck.engine.config.Task;
import org.traindeck.engine.config.read.ConfigParser;
import org.traindeck.engine.model.ModelCompiler;
import org.traindeck.engine.model.ModelInput;

/**
 * What export's {@code torch} arguments and its refusals rest on, checked in DL4J itself (no PyTorch needed): a "same"
 * transposed convolution's output is the full ("valid") one's with {@code (kernel - stride) / 2} rows dropped at the
 * start of each axis and the rest at the end, for both implementations, including the cases export refuses.
 */
class TransposedConvolutionPaddingTest {

    @TempDir
    Path dir;

    @ParameterizedTest
    @CsvSource({
        "2, own, 3, 2",
        "2, dl4j, 3, 2",
        "2, own, 2, 1",
        "2, dl4j, 5, 2",
        "2, own, 4, 2",
        "2, dl4j, 3, 1",
        "3, own, 3, 2",
        "3, dl4j, 3, 2",
        "3, own, 4, 2",
        "3, dl4j, 5, 2"
    })
    void aSameOutputIsTheFullOutputWithTheSmallerHalfDroppedAtTheStart(
            int dims, String implementation, int kernel, int stride) {
        ModelInput input = dims == 2
                ? new ModelInput(InputType.convolutional(3, 5, 2), Task.CLASSIFICATION, 2)
                : new ModelInput(
                        InputType.convolutional3D(Convolution3D.DataFormat.NCDHW, 3, 2, 4, 2), Task.CLASSIFICATION, 2);
        ComputationGraph same = ModelCompiler.build(model(dims, implementation, kernel, stride, "same"), input, 7);
        ComputationGraph full = ModelCompiler.build(model(dims, implementation, kernel, stride, "valid"), input, 7);
        // the whole network's: a 3D layer's own params() is a copy in another order
        full.setParams(same.params());
        long[] xShape = dims == 2 ? new long[] {4, 2, 3, 5} : new long[] {4, 2, 3, 2, 4};
        INDArray x = Nd4j.randn(DataType.FLOAT, xShape);

        INDArray sameOut = same.feedForward(x, false).get("up");
        INDArray fullOut = full.feedForward(x, false).get("up");
        int start = (kernel - stride) / 2;
        INDArrayIndex[] crop = new INDArrayIndex[xShape.length];
        crop[0] = NDArrayIndex.all();
        crop[1] = NDArrayIndex.all();
        for (int axis = 2; axis < xShape.length; axis++) {
            assertThat(sameOut.size(axis)).isEqualTo(xShape[axis] * stride);
            assertThat(fullOut.size(axis)).isEqualTo((xShape[axis] - 1) * stride + kernel);
            crop[axis] = NDArrayIndex.interval(start, start + xShape[axis] * stride);
        }
        assertThat(fullOut.get(crop).sub(sameOut).amaxNumber().doubleValue())
                .as("same output against the full one from row %d", start)
                .isLessThan(1e-5);
    }

    private ModelConfig model(int dims, String implementation, int kernel, int stride, String padding) {
        String config = """
                {"name": "d", "model": {"type": "graph", "layers": [
                  {"name": "up", "type": "deconv%dd", "filters": 3, "kernel": %d, "stride": %d, "padding": "%s",
                   "activation": "relu", "implementation": "%s"},
                  {"type": "globalPool", "mode": "avg"}]},
                 "data": {"train": {"type": "synthetic"}}, "stages": [{"epochs": 1}]}""".formatted(dims, kernel, stride, padding, implementation);
        return ConfigParser.parse(config, dir).orThrow().model();
    }
}
