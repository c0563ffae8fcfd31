package org.traindeck.engine.config;

/**
 * Where training and validation data come from. Validation is either its own source or a held-out fraction of the
 * training source ({@code validationSplit}); with neither, the run has no validation.
 */
public record DataConfig(SourceConfig train, SourceConfig validation, double validationSplit, boolean shuffle) {

    public boolean hasValidation() {
        return validation != null || validationSplit > 0;
    }
}
