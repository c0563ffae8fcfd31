package org.traindeck.engine.api;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
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
 * @param stageSummaries the tables of the networks that stages with models of their own start (a cascade's), by
 *                the stage's name
 */
public record ConfigCheck(
        ValidationResult checked, ModelSummary summary, StageFits fits, Map<String, ModelSummary> stageSummaries) {

    public ConfigCheck {
        stageSummaries =
                stageSummaries == null ? Map.of() : Collections.unmodifiableMap(new LinkedHashMap<>(stageSummaries));
    }

    public ConfigCheck(ValidationResult checked, ModelSummary summary, StageFits fits) {
        this(checked, summary, fits, Map.of());
    }

    /** Whether a run of it can start: valid, and every stage fits. */
    public boolean ok() {
        return checked.isValid() && fits != null && fits.problems().stream().noneMatch(p -> p.isError());
    }
}
