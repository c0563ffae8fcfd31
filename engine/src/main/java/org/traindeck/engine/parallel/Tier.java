package org.traindeck.engine.parallel;

import java.util.ArrayList;
import java.util.List;

/**
 * How a stage is trained, most to least ambitious. When one fails, the run goes on with the next.
 * <p>
 * The synchronous tiers ("sync", the default) are TrainDeck's own all-reduce: every device computes the gradient of
 * its shard of the global batch, the gradients are summed, and one optimizer step is taken, so N devices are the same
 * training as one device at the global batch. Their fallback to one device keeps the global batch (the one device
 * accumulates every shard), so the run stays the same training. The averaging tiers are DL4J's ParallelWrapper, an
 * explicit opt-in: parameter averaging after independent optimizer steps, not equivalent to single-device training.
 * <p>
 * On the CPU backend the peer-to-peer and host tiers are the same (workers share memory); a CUDA build cannot switch
 * to the CPU backend inside the same process, so its chain ends at one GPU.
 */
public enum Tier {
    SYNC_P2P("synchronous all-reduce over peer-to-peer copies", true, true),
    SYNC_HOST("synchronous all-reduce through host memory", true, true),
    SHARED_GRADIENTS("shared gradients (DL4J ParallelWrapper)", true, false),
    AVERAGING_P2P("parameter averaging with peer-to-peer copies (DL4J ParallelWrapper)", true, false),
    AVERAGING_NO_P2P("parameter averaging without peer-to-peer copies (DL4J ParallelWrapper)", true, false),
    DISTRIBUTED("synchronous all-reduce across a cluster's executors", true, true),
    SINGLE_DEVICE("one device", false, true);

    public final String description;
    private final boolean parallel;
    private final boolean synchronous;

    Tier(String description, boolean parallel, boolean synchronous) {
        this.description = description;
        this.parallel = parallel;
        this.synchronous = synchronous;
    }

    public boolean parallel() {
        return parallel;
    }

    /** One optimizer step per global batch (the all-reduce tiers and one device), as opposed to ParallelWrapper's. */
    public boolean synchronous() {
        return synchronous;
    }

    /**
     * A cluster run has one tier: when it fails the run stops with its checkpoint (resumable on the cluster or on
     * one machine) rather than going on with the driver alone, which may be a laptop.
     */
    public static List<Tier> clusterChain() {
        return List.of(DISTRIBUTED);
    }

    /** The tiers to try, in order, for a run of {@code devices} devices starting at {@code mode}. */
    public static List<Tier> chain(int devices, String mode, boolean p2pDisabled, boolean fallback) {
        List<Tier> chain = new ArrayList<>();
        if (devices > 1) {
            if (mode.equals("sync")) {
                if (!p2pDisabled) {
                    chain.add(SYNC_P2P);
                }
                chain.add(SYNC_HOST);
            } else {
                if (mode.equals("shared_gradients")) {
                    chain.add(SHARED_GRADIENTS);
                }
                if (!p2pDisabled) {
                    chain.add(AVERAGING_P2P);
                }
                chain.add(AVERAGING_NO_P2P);
            }
        }
        chain.add(SINGLE_DEVICE);
        return fallback ? chain : chain.subList(0, 1);
    }
}
