package org.traindeck.app.run;

import javafx.geometry.Insets;
import javafx.geometry.Pos;
import javafx.scene.control.Label;
import javafx.scene.control.ProgressBar;
import javafx.scene.layout.HBox;
import javafx.scene.layout.Priority;
import javafx.scene.layout.Region;
import org.traindeck.engine.events.LifecycleEvent;
import org.traindeck.engine.events.MetricEvent;
import org.traindeck.engine.events.MetricNames;

import java.util.Locale;

/** Stage, epoch, step, elapsed time and ETA of the run, with its progress through the current stage. */
public final class StatusBar extends HBox {

    private final Label run = new Label();
    private final Label stage = new Label("no run");
    private final Label epoch = new Label();
    private final Label step = new Label();
    private final Label elapsed = new Label();
    private final Label eta = new Label();
    private final ProgressBar progress = new ProgressBar(0);
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

    public StatusBar() {
        super(14);
        setId("status-bar");
        setAlignment(Pos.CENTER_LEFT);
        setPadding(new Insets(3, 6, 3, 6));
        run.setId("status-run");
        run.getStyleClass().add("status-run");
        stage.setId("status-stage");
        epoch.setId("status-epoch");
        step.setId("status-step");
        elapsed.setId("status-elapsed");
        eta.setId("status-eta");
        progress.setId("status-progress");
        progress.setPrefWidth(180);
        Region spacer = new Region();
        HBox.setHgrow(spacer, Priority.ALWAYS);
        getChildren().addAll(run, stage, epoch, step, elapsed, eta, spacer, progress);
    }

    void reset() {
        run.setText("");
        stage.setText("no run");
        epoch.setText("");
        step.setText("");
        elapsed.setText("");
        eta.setText("");
        progress.setProgress(0);
        currentStep = 0;
        finishedEpochs = 0;
        finishedStage = -1;
    }

    /** Names the run on screen (a live one, or one opened from its folder). */
    public void run(String name) {
        runName = name == null ? "" : name;
        run.setText(name == null ? "" : "run " + name);
    }

    /** The name of the run shown, as given to {@link #run(String)}. */
    public String runName() {
        return runName;
    }

    public String runText() {
        return run.getText();
    }

    public String epochText() {
        return epoch.getText();
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
        if (m.name().equals(MetricNames.STEPS_PER_EPOCH)) {
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
            eta.setText(switch (l.kind()) {
                case RUN_FINISHED -> "finished";
                case RUN_STOPPED -> "stopped";
                default -> "failed";
            });
            if (l.kind() == LifecycleEvent.Kind.RUN_FINISHED) {
                progress.setProgress(1);
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
        stage.setText(String.format(Locale.ROOT, "stage %d/%d %s", stageIndex + 1, stages, stageName));
        epoch.setText(String.format(Locale.ROOT, "epoch %d/%d", currentEpoch + 1, epochs));
        step.setText("step " + currentStep);
        elapsed.setText("elapsed " + clock(currentElapsed));
        double inEpoch = Math.min(1, (currentStep - epochStartStep) / (double) stepsPerEpoch);
        double epochsDone = currentEpoch + Math.max(0, inEpoch);
        if (stageIndex == finishedStage) {
            epochsDone = Math.max(epochsDone, finishedEpochs);
        }
        double stageProgress = Math.min(1, epochsDone / epochs);
        double overall = (stageIndex + stageProgress) / stages;
        progress.setProgress(overall);
        if (stageProgress > 0.001 && currentElapsed > 0) {
            double remaining = currentElapsed * (1 - stageProgress) / stageProgress;
            eta.setText("stage ETA " + clock(remaining));
        }
    }

    private static String clock(double seconds) {
        long s = Math.round(seconds);
        return s >= 3600 ? String.format(Locale.ROOT, "%d:%02d:%02d", s / 3600, (s / 60) % 60, s % 60)
                : String.format(Locale.ROOT, "%d:%02d", s / 60, s % 60);
    }

    public String stepText() {
        return step.getText();
    }

    public double progressValue() {
        return progress.getProgress();
    }
}
