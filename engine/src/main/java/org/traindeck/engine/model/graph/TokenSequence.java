package org.traindeck.engine.model.graph;

import org.deeplearning4j.nn.conf.RNNFormat;
import org.deeplearning4j.nn.conf.inputs.InputType;

/**
 * The data's token ids as the layer kinds see them: to DL4J a sequence [vocabulary, steps] (so an embedding's nIn
 * becomes the vocabulary), but its values are ids, one per step, so only an "embedding" may read it. It exists only
 * inside the compiler: DL4J's configuration keeps the plain recurrent type.
 */
public final class TokenSequence extends InputType.InputTypeRecurrent {

    public TokenSequence(long vocabulary, long steps) {
        super(vocabulary, steps, RNNFormat.NCW);
    }

    public long vocabulary() {
        return getSize();
    }

    public long steps() {
        return getTimeSeriesLength();
    }
}
