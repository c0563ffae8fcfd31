package org.traindeck.engine.train;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.traindeck.engine.data.Dataset;
import org.traindeck.engine.data.InputRange;
import org.traindeck.engine.data.Vocabulary;
import org.traindeck.engine.sinks.RunFolder;
import org.traindeck.engine.train.state.RunEvents;

/**
 * What the model's inputs and outputs mean, written beside the run's config: the vocabulary and the range of its
 * input values. Neither is needed to train, so a write that fails is a line in the run log, not a failed run.
 */
final class RunDataFiles {

    private RunDataFiles() {}

    static void write(Path runDir, RunEvents events, Dataset firstTrain) {
        writeVocabulary(runDir, events, firstTrain.vocabulary());
        writeInputRange(runDir, events, InputRange.of(firstTrain));
    }

    /** The text's tokens in id order: what the model's outputs mean. */
    private static void writeVocabulary(Path runDir, RunEvents events, Vocabulary vocabulary) {
        if (vocabulary == null) {
            return;
        }
        try {
            Files.writeString(
                    RunFolder.of(runDir).vocabulary(),
                    new ObjectMapper().writeValueAsString(vocabulary.tokens()) + "\n");
        } catch (IOException e) {
            events.logLine("could not write vocabulary.json: " + e.getMessage()
                    + " (the checkpoints hold the vocabulary too)");
        }
    }

    /** The range of values the network trains on: predict warns of inputs far outside it. */
    private static void writeInputRange(Path runDir, RunEvents events, InputRange range) {
        if (range == null) {
            return;
        }
        try {
            range.write(RunFolder.of(runDir).inputRange());
        } catch (IOException e) {
            events.logLine("could not write " + RunFolder.INPUT_RANGE + ": " + e.getMessage()
                    + " (predict will not check its inputs' range)");
        }
    }
}
