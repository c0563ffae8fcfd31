package org.traindeck.engine.config;

import com.fasterxml.jackson.annotation.JsonInclude;

/**
 * Where training and validation data come from. Validation is either its own source or a held-out fraction of the
 * training source ({@code validationSplit}); with neither, the run has no validation.
 */
public record DataConfig(SourceConfig train, @JsonInclude(JsonInclude.Include.NON_NULL) SourceConfig validation,
                         @JsonInclude(JsonInclude.Include.NON_DEFAULT) double validationSplit, boolean shuffle) {
}
