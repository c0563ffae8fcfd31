package org.traindeck.engine.train.batch;

import org.deeplearning4j.nn.conf.ComputationGraphConfiguration;
import org.traindeck.engine.config.DataConfig;
import org.traindeck.engine.data.DataLoader;
import org.traindeck.engine.model.ModelInput;
import org.traindeck.engine.model.kernels.KernelUse;

/**
 * What preparing a run found, for the run to use rather than do again: the run's data as read (open until the run's
 * stages close it), and the model compiled against it.
 *
 * @param data    the data config that was read (the run's {@code data})
 * @param loaded  its training and validation data
 * @param model   the model's DL4J configuration, checked against {@code loaded}
 * @param input   what the network sees of the data
 * @param kernels the kernels {@code model} was compiled with
 */
public record PreparedStart(
        DataConfig data,
        DataLoader.Loaded loaded,
        ComputationGraphConfiguration model,
        ModelInput input,
        KernelUse kernels) {}
