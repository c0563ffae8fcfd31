package org.traindeck.app;

import org.traindeck.app.config.ConfigDocument;
import org.traindeck.app.config.ConfigForm;
import org.traindeck.app.config.ModelSummaryViewModel;
import org.traindeck.app.config.NcclViewModel;
import org.traindeck.app.devices.DevicesViewModel;
import org.traindeck.app.evaluate.Evaluations;
import org.traindeck.app.run.RunController;
import org.traindeck.app.runs.QueueViewModel;
import org.traindeck.app.runs.RunsViewModel;
import org.traindeck.app.runs.SweepsViewModel;

/**
 * What a tab may build its view from: the window's view models and actions, each created once by the window, and its
 * services (dialogs, the engine, the task executor).
 */
public record TabContext(
        MainWindow.Services services,
        ConfigDocument document,
        ConfigForm form,
        ModelSummaryViewModel modelSummary,
        DevicesViewModel devices,
        NcclViewModel nccl,
        RunsViewModel runs,
        Evaluations evaluations,
        QueueViewModel queue,
        SweepsViewModel sweeps,
        RunController controller,
        RunActions runActions,
        ConfigFileActions files) {}
