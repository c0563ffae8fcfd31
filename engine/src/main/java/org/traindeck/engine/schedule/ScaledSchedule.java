package org.traindeck.engine.schedule;

import org.nd4j.linalg.schedule.ISchedule;
import org.nd4j.shade.jackson.annotation.JsonProperty;

/**
 * A layer's own learning rate: the stage's schedule times the node's {@code lrScale}. Annotated with ND4J's shaded
 * Jackson so that it survives DL4J's configuration JSON, as {@link Nd4jStageSchedule} does.
 */
public final class ScaledSchedule implements ISchedule {

    private final ISchedule base;
    private final double scale;

    public ScaledSchedule(@JsonProperty("base") ISchedule base, @JsonProperty("scale") double scale) {
        this.base = base;
        this.scale = scale;
    }

    @Override
    public double valueAt(int iteration, int epoch) {
        return base.valueAt(iteration, epoch) * scale;
    }

    @Override
    public ISchedule clone() {
        return new ScaledSchedule(base.clone(), scale);
    }

    @JsonProperty("base")
    public ISchedule getBase() {
        return base;
    }

    @JsonProperty("scale")
    public double getScale() {
        return scale;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ScaledSchedule other && base.equals(other.base) && scale == other.scale;
    }

    @Override
    public int hashCode() {
        return base.hashCode() * 31 + Double.hashCode(scale);
    }
}
