package org.traindeck.app.run;

import java.util.Locale;
import javafx.beans.property.ReadOnlyDoubleProperty;
import javafx.beans.property.ReadOnlyDoubleWrapper;
import javafx.beans.property.ReadOnlyStringProperty;
import javafx.beans.property.ReadOnlyStringWrapper;
import org.traindeck.engine.events.LifecycleEvent;
import org.traindeck.engine.events.MetricEvent;
import org.traindeck.engine.events.MetricRoute;
import org.traindeck.engine.events.MetricTable;

/**
 * The status bar's state: which run, stage, epoch and step, elapsed time, ETA and progress through the run, worked
 * out from the run's events as the engine sends them. Read-only properties for the view; FX thread.
 */
public final class StatusViewModel {

    private final ReadOnlyStringWrapper run = new ReadOnlyStringWrapper("");
    private final ReadOnlyStringWrapper stage = new ReadOnlyStringWrapper("no run");
    private final ReadOnlyStringWrapper epoch = new ReadOnlyStringWrapper("");
    private final ReadOnlyStringWrapper step = new ReadOnlyStringWrapper("");
    private final ReadOnlyStringWrapper elapsed = new ReadOnlyStringWrapper("");
    private final ReadOnlyStringWrapper eta = new ReadOnlyStringWrapper("");
    private final ReadOnlyDoubleWrapper progress = new ReadOnlyDoubleWrapper(0);
    private long stepsPerEpoch = 1;
    private long epochStartStep;
    private int[] stageEpochs = {1};
    private int currentEpoch;
    private long currentStep;
    private double currentElapsed;
    // An epoch's own metrics arrive after its end, still labelled with its index: progress must not go back then.
    private int finishedEpochs;
    private int finishedStage = -1;
    private String runName = "";

    public ReadOnlyStringProperty runProperty() {
        return run.getReadOnlyProperty();
    }

    public ReadOnlyStringProperty stageProperty() {
        return stage.getReadOnlyProperty();
    }

    public ReadOnlyStringProperty epochProperty() {
        return epoch.getReadOnlyProperty();
    }

    public ReadOnlyStringProperty stepProperty() {
        return step.getReadOnlyProperty();
    }

    public ReadOnlyStringProperty elapsedProperty() {
        return elapsed.getReadOnlyProperty();
    }

    public ReadOnlyStringProperty etaProperty() {
        return eta.getReadOnlyProperty();
    }

    public ReadOnlyDoubleProperty progressProperty() {
        return progress.getReadOnlyProperty();
    }

    void reset() {
        run.set("");
        runName = "";
        stage.set("no run");
        epoch.set("");
        step.set("");
        elapsed.set("");
        eta.set("");
        progress.set(0);
        currentStep = 0;
        finishedEpochs = 0;
        finishedStage = -1;
    }

    /** Names the run on screen (a live one, or one opened from its folder). */
    public void run(String name) {
        runName = name == null ? "" : name;
        run.set(name == null ? "" : "run " + name);
    }

    /** The name of the run shown, as given to {@link #run(String)}. */
    public String runName() {
        return runName;
    }

    public String runText() {
        return run.get();
    }

    public String epochText() {
        return epoch.get();
    }

    public String stepText() {
        return step.get();
    }

    public double progressValue() {
        return progress.get();
    }

    /** The epochs of each stage of the run being shown (from its config). */
    public void plan(int[] stageEpochs) {
        this.stageEpochs = stageEpochs.length == 0 ? new int[] {1} : stageEpochs.clone();
    }

    void stepsPerEpoch(long n) {
        stepsPerEpoch = Math.max(1, n);
    }

    void metric(MetricEvent m) {
        currentStep = m.step();
        currentEpoch = m.epoch();
        currentElapsed = m.elapsedSeconds();
        if (MetricTable.route(m.name()) == MetricRoute.STEPS_PER_EPOCH) {
            epochStartStep = m.step();
        }
        update(m.stage(), m.stageIndex());
    }

    void lifecycle(LifecycleEvent l) {
        currentElapsed = Math.max(currentElapsed, l.elapsedSeconds());
        if (l.kind() == LifecycleEvent.Kind.EPOCH_FINISHED) {
            epochStartStep = l.step();
            finishedEpochs = l.epoch() + 1;
            finishedStage = l.stageIndex();
        }
        if (l.isTerminal()) {
            eta.set(
                    switch (l.kind()) {
                        case RUN_FINISHED -> "finished";
                        case RUN_STOPPED -> "stopped";
                        default -> "failed";
                    });
            if (l.kind() == LifecycleEvent.Kind.RUN_FINISHED) {
                progress.set(1);
            }
            return;
        }
        if (!l.stage().isEmpty()) {
            update(l.stage(), l.stageIndex());
        }
    }

    private void update(String stageName, int stageIndex) {
        int stages = stageEpochs.length;
        int epochs = Math.max(1, stageEpochs[Math.min(Math.max(0, stageIndex), stages - 1)]);
        stage.set(String.format(Locale.ROOT, "stage %d/%d %s", stageIndex + 1, stages, stageName));
        epoch.set(String.format(Locale.ROOT, "epoch %d/%d", currentEpoch + 1, epochs));
        step.set("step " + currentStep);
        elapsed.set("elapsed " + clock(currentElapsed));
        double inEpoch = Math.min(1, (currentStep - epochStartStep) / (double) stepsPerEpoch);
        double epochsDone = currentEpoch + Math.max(0, inEpoch);
        if (stageIndex == finishedStage) {
            epochsDone = Math.max(epochsDone, finishedEpochs);
        }
        double stageProgress = Math.min(1, epochsDone / epochs);
        double overall = (stageIndex + stageProgress) / stages;
        progress.set(overall);
        if (stageProgress > 0.001 && currentElapsed > 0) {
            double remaining = currentElapsed * (1 - stageProgress) / stageProgress;
            eta.set("stage ETA " + clock(remaining));
        }
    }

    private static String clock(double seconds) {
        long s = Math.round(seconds);
        return s >= 3600
                ? String.format(Locale.ROOT, "%d:%02d:%02d", s / 3600, (s / 60) % 60, s % 60)
                : String.format(Locale.ROOT, "%d:%02d", s / 60, s % 60);
    }
}
