package org.traindeck.engine.config;

import com.fasterxml.jackson.annotation.JsonInclude;

/**
 * Where training and validation data come from. Validation is either its own source or a held-out fraction of the
 * training source ({@code validationSplit}); with neither, the run has no validation. {@code test} is the held-out
 * source {@code traindeck evaluate} reports on (never trained or validated on); null when the config names none.
 */
public record DataConfig(
        SourceConfig train,
        @JsonInclude(JsonInclude.Include.NON_NULL) SourceConfig validation,
        @JsonInclude(JsonInclude.Include.NON_DEFAULT) double validationSplit,
        boolean shuffle,
        @JsonInclude(JsonInclude.Include.NON_NULL) SourceConfig test) {

    public DataConfig(SourceConfig train, SourceConfig validation, double validationSplit, boolean shuffle) {
        this(train, validation, validationSplit, shuffle, null);
    }
}
