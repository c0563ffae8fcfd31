package org.traindeck.engine.model.graph;

import java.util.List;
import org.deeplearning4j.nn.conf.inputs.InputType;

/**
 * One layer type of the graph config: the name its schema entry gives it, what inputs it takes, and how it builds.
 * Adding a layer type is one schema entry (docs/run-config.schema.json, {@code $defs.layer}) plus one class like
 * this, listed in {@link org.traindeck.engine.model.LayerKinds}. The options are already bounded by the schema; a kind
 * checks what depends on its inputs' shapes and says so in the user's words ({@link ShapeError}); DL4J infers the rest (nIn, the output).
 */
public interface LayerKind {

    /** The type's name in the config: its schema entry's "type" const. */
    String type();

    /** The fewest inputs the node takes. */
    default int minInputs() {
        return 1;
    }

    /** The most inputs the node takes. */
    default int maxInputs() {
        return 1;
    }

    /**
     * Whether the node reads token ids (one id a step) as they come from a text or token source; every other node
     * needs them turned into vectors first, and the compiler refuses it on them.
     */
    default boolean readsTokenIds() {
        return false;
    }

    /**
     * Checks the inputs against the options and builds the DL4J layer or vertex.
     *
     * @throws ShapeError when the inputs do not fit, with what would
     */
    Built build(NodeOptions options, List<InputType> inputs);
}
