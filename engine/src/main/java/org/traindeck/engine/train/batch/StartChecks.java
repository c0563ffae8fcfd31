package org.traindeck.engine.train.batch;

import java.util.List;
import org.traindeck.engine.api.devices.DeviceInventory;
import org.traindeck.engine.config.ConfigProblem;
import org.traindeck.engine.config.DeviceSelection;
import org.traindeck.engine.config.InvalidConfigException;
import org.traindeck.engine.config.RunConfig;
import org.traindeck.engine.config.ValidationResult;
import org.traindeck.engine.data.DataLoader;
import org.traindeck.engine.devices.DeviceDiscovery;
import org.traindeck.engine.model.ModelCheck;
import org.traindeck.engine.model.fit.DeviceMemory;
import org.traindeck.engine.model.fit.StageFits;
import org.traindeck.engine.model.kernels.KernelUse;
import org.traindeck.engine.train.state.StartWork;

/**
 * What stops a run before anything runs (the model's problems, the stages that do not fit the devices' memory), and
 * the one data read and model compilation of a run's start, which the run then trains on.
 */
public final class StartChecks {

    private StartChecks() {}

    /**
     * Reads a run's data and compiles its model against it, once, for the run to train on (neither is done again),
     * after refusing a run with every error that would stop it, as {@link #refusals} does. ND4J must be loaded.
     *
     * @param located the run's config, with where each of its fields is in its text (for the refusals' line/column)
     * @param work    told of the data read and the compilation
     * @throws InvalidConfigException every problem that stops the run, a line each
     */
    public static PreparedStart readAndCompile(ValidationResult located, DeviceDiscovery discovery, StartWork work) {
        RunConfig config = located.config();
        DataLoader.Loaded data;
        try {
            work.dataRead();
            data = DataLoader.load(config, config.data(), "data");
        } catch (InvalidConfigException e) {
            throw new InvalidConfigException(located.with(e.problems()).errors());
        }
        try {
            work.modelCompiled();
            ModelCheck.Checked checked = InitCheck.with(
                    ModelCheck.checkAgainst(located, data.train(), data.train().toString()), config);
            List<ConfigProblem> refused = refusals(config, checked, discovery);
            if (!refused.isEmpty()) {
                throw new InvalidConfigException(refused);
            }
            return new PreparedStart(
                    config.data(), data, checked.conf(), checked.input(), KernelUse.forCurrentBackend());
        } catch (RuntimeException e) {
            data.close();
            throw e;
        }
    }

    /** Every error that stops a run of {@code config}: the model's (as it compiled), then stages that do not fit. */
    public static List<ConfigProblem> refusals(
            RunConfig config, ModelCheck.Checked checked, DeviceDiscovery discovery) {
        // a cluster's executors have their own memory, which this machine cannot see
        if (checked.result().errors().isEmpty() && config.parallel().cluster().isEmpty()) {
            return checked.result()
                    .with(StageFits.of(config, checked, memoryOf(config.devices(), discovery))
                            .problems())
                    .errors();
        }
        return checked.result().errors();
    }

    /** The memory of the devices {@code selection} names, as found by {@code discovery}. */
    public static List<DeviceMemory> memoryOf(DeviceSelection selection, DeviceDiscovery discovery) {
        if (selection.kind() == DeviceSelection.Kind.CPU) {
            return DeviceMemory.of(selection, discovery.host(), List.of(), StageFits.offHeapLimit());
        }
        DeviceInventory inventory = discovery.discover();
        return DeviceMemory.of(selection, inventory.host(), inventory.gpus(), StageFits.offHeapLimit());
    }
}
