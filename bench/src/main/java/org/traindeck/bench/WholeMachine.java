package org.traindeck.bench;

/**
 * TrainDeck's whole-machine settings for a workload: every core as OpenMP threads of one device ({@code workload}),
 * or as {@code cpu:workers} workers of one thread each, at the same global batch ({@code perWorker}'s batch times the
 * workers).
 */
record WholeMachine(int cores, int workers, EngineBench.Workload workload, EngineBench.Workload perWorker) {

    static WholeMachine of(EngineBench.Workload w, int cores) {
        int workers = Math.min(cores, w.batch());
        while (w.batch() % workers != 0) {
            workers--; // the same global batch on every setting
        }
        return new WholeMachine(
                cores,
                workers,
                w,
                new EngineBench.Workload(w.name(), w.model(), w.data(), w.samples(), w.batch() / workers));
    }

    /** The devices of the worker setting, as a run config names them. */
    String devices() {
        return "cpu:" + workers;
    }

    /** How a row names the worker setting. */
    String describeWorkers() {
        return "cpu:" + workers + " (sync all-reduce, " + workers + " × batch " + perWorker.batch()
                + ", OMP_NUM_THREADS=1)";
    }
}
