package org.traindeck.engine.train.state;

/**
 * The costly work of a run's start, told as it happens: compiling the model from its config and reading a dataset.
 * A Start should do each once; tests pass a counter in to hold it so, production passes {@link #NONE}.
 */
public interface StartWork {

    StartWork NONE = new StartWork() {
        @Override
        public void modelCompiled() {}

        @Override
        public void dataRead() {}
    };

    /** A model was compiled from its config (a DL4J configuration built from the model section). */
    void modelCompiled();

    /** A data config's sources were read from their files (or generated). */
    void dataRead();
}
