package org.traindeck.engine.train.callback;

import java.util.ArrayList;
import java.util.List;
import org.traindeck.engine.api.runs.EnergyReport.StageEnergy;
import org.traindeck.engine.devices.energy.EnergyMeter;
import org.traindeck.engine.train.batch.StagePlan;
import org.traindeck.engine.train.state.StepReport;
import org.traindeck.engine.train.state.TrainingState;

/**
 * Each stage's share of a run's energy: the meter read as a stage starts, and the samples its steps trained, so that
 * the end-of-run line can say Wh per stage and per 1,000 samples. Training thread only.
 */
public final class EnergyByStage implements TrainingCallback {

    private final EnergyMeter meter;
    private final List<StageEnergy> finished = new ArrayList<>();
    private String stage;
    private double startWattHours;
    private long samples;

    public EnergyByStage(EnergyMeter meter) {
        this.meter = meter;
    }

    @Override
    public void onStageStart(TrainingState state, StagePlan plan) {
        double now = meter.measuredSoFar();
        close(now);
        stage = plan.stage.name();
        startWattHours = now;
        samples = 0;
    }

    @Override
    public void onStep(TrainingState state, StagePlan plan, StepReport step) {
        samples += step.examples();
    }

    private void close(double now) {
        if (stage != null && !Double.isNaN(now) && !Double.isNaN(startWattHours)) {
            finished.add(new StageEnergy(stage, Math.max(0, now - startWattHours), samples));
        }
        stage = null;
    }

    /** The stages trained, the last one ending at {@code totalWattHours} (the meter's final figure). */
    public List<StageEnergy> stages(double totalWattHours) {
        close(totalWattHours);
        return List.copyOf(finished);
    }
}
