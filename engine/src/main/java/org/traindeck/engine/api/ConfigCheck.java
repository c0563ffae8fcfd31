package org.traindeck.engine.api;

import org.traindeck.engine.config.ValidationResult;
import org.traindeck.engine.model.ModelSummary;
import org.traindeck.engine.model.fit.StageFits;

/**
 * What {@code traindeck validate} says of a config ({@link Engine#check}).
 *
 * @param checked the config with its own problems and the model's, as it compiles against the data
 * @param summary the model's table, or null when it did not compile
 * @param fits    each stage's fit line and the stages that do not fit the devices' memory; null unless {@code checked}
 *                is valid
 */
public record ConfigCheck(ValidationResult checked, ModelSummary summary, StageFits fits) {

    /** Whether a run of it can start: valid, and every stage fits. */
    public boolean ok() {
        return checked.isValid() && fits != null && fits.problems().stream().noneMatch(p -> p.isError());
    }
}
