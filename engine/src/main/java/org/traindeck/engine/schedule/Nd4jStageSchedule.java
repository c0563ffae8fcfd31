package org.traindeck.engine.schedule;

import org.nd4j.linalg.schedule.ISchedule;
import org.nd4j.shade.jackson.annotation.JsonProperty;

/**
 * Hands a stage's {@link LrSchedule} to DL4J's updater. DL4J evaluates it at the iteration TrainDeck passes, which is
 * the run's global step; {@code stageStartStep} turns that into the step within the stage. Annotated with ND4J's
 * shaded Jackson so that it survives DL4J's configuration JSON (replicas and saved models are rebuilt from it).
 */
public final class Nd4jStageSchedule implements ISchedule {

    private final LrSchedule.Kind kind;
    private final double baseLr;
    private final long totalSteps;
    private final long warmupSteps;
    private final long stepEvery;
    private final double gamma;
    private final double minLr;
    private final long stageStartStep;

    public Nd4jStageSchedule(LrSchedule schedule, long stageStartStep) {
        this(
                schedule.kind(),
                schedule.baseLr(),
                schedule.totalSteps(),
                schedule.warmupSteps(),
                schedule.stepEvery(),
                schedule.gamma(),
                schedule.minLr(),
                stageStartStep);
    }

    public Nd4jStageSchedule(
            @JsonProperty("kind") LrSchedule.Kind kind,
            @JsonProperty("baseLr") double baseLr,
            @JsonProperty("totalSteps") long totalSteps,
            @JsonProperty("warmupSteps") long warmupSteps,
            @JsonProperty("stepEvery") long stepEvery,
            @JsonProperty("gamma") double gamma,
            @JsonProperty("minLr") double minLr,
            @JsonProperty("stageStartStep") long stageStartStep) {
        this.kind = kind;
        this.baseLr = baseLr;
        this.totalSteps = totalSteps;
        this.warmupSteps = warmupSteps;
        this.stepEvery = stepEvery;
        this.gamma = gamma;
        this.minLr = minLr;
        this.stageStartStep = stageStartStep;
    }

    public LrSchedule schedule() {
        return new LrSchedule(kind, baseLr, totalSteps, warmupSteps, stepEvery, gamma, minLr);
    }

    @Override
    public double valueAt(int iteration, int epoch) {
        return schedule().lrAt(iteration - stageStartStep);
    }

    @Override
    public ISchedule clone() {
        return new Nd4jStageSchedule(kind, baseLr, totalSteps, warmupSteps, stepEvery, gamma, minLr, stageStartStep);
    }

    @JsonProperty("kind")
    public LrSchedule.Kind getKind() {
        return kind;
    }

    @JsonProperty("baseLr")
    public double getBaseLr() {
        return baseLr;
    }

    @JsonProperty("totalSteps")
    public long getTotalSteps() {
        return totalSteps;
    }

    @JsonProperty("warmupSteps")
    public long getWarmupSteps() {
        return warmupSteps;
    }

    @JsonProperty("stepEvery")
    public long getStepEvery() {
        return stepEvery;
    }

    @JsonProperty("gamma")
    public double getGamma() {
        return gamma;
    }

    @JsonProperty("minLr")
    public double getMinLr() {
        return minLr;
    }

    @JsonProperty("stageStartStep")
    public long getStageStartStep() {
        return stageStartStep;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Nd4jStageSchedule other
                && schedule().equals(other.schedule())
                && stageStartStep == other.stageStartStep;
    }

    @Override
    public int hashCode() {
        return schedule().hashCode() * 31 + Long.hashCode(stageStartStep);
    }
}
