package org.traindeck.engine.train.step;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.deeplearning4j.nn.conf.layers.samediff.AbstractSameDiffLayer;
import org.deeplearning4j.nn.graph.ComputationGraph;
import org.deeplearning4j.nn.updater.UpdaterBlock;

/**
 * Where DL4J's updater state view keeps each parameter's optimizer state: block after block, and inside a block of
 * n values with k states per value (Adam: k = 2, m then v), [state 0 of every parameter of the block, state 1, ...].
 * Blocks group consecutive parameters with equal updaters, so a change of learning rate or of which layers share
 * the optimizer regroups them and moves every parameter's state.
 */
public final class UpdaterStateLayout {

    /** One parameter: layer name + "_" + parameter name, its length, and whether it belongs to a SameDiff layer. */
    record Param(String key, int length, boolean sameDiff) {}

    /** Consecutive parameters with one updater, {@code states} values of state per parameter value. */
    record Block(List<Param> params, int states) {
        int values() {
            return params.stream().mapToInt(Param::length).sum();
        }
    }

    private final List<Block> blocks;

    UpdaterStateLayout(List<Block> blocks) {
        this.blocks = List.copyOf(blocks);
    }

    /** The layout of the network's updater as it is now. */
    public static UpdaterStateLayout of(ComputationGraph net) {
        List<Block> out = new ArrayList<>();
        for (UpdaterBlock ub : net.getUpdater().getUpdaterBlocks()) {
            List<Param> params = new ArrayList<>();
            for (UpdaterBlock.ParamState p : ub.getLayersAndVariablesInBlock()) {
                boolean sameDiff = p.getLayer().getConfig() instanceof AbstractSameDiffLayer;
                params.add(new Param(
                        p.getLayer().getConfig().getLayerName() + "_" + p.getParamName(),
                        p.getParamOffsetEnd() - p.getParamOffsetStart(),
                        sameDiff));
            }
            int values = ub.getParamOffsetEnd() - ub.getParamOffsetStart();
            int states = values == 0 ? 0 : (ub.getUpdaterViewOffsetEnd() - ub.getUpdaterViewOffsetStart()) / values;
            out.add(new Block(params, states));
        }
        return new UpdaterStateLayout(out);
    }

    /**
     * This layout as TrainDeck wrote it before SameDiff layers got the stage's optimizer: their parameters kept DL4J's
     * placeholder Adam (two states), all equal, so consecutive SameDiff parameters formed blocks of their own.
     */
    public UpdaterStateLayout beforeSameDiffOptimizer() {
        List<Block> out = new ArrayList<>();
        for (Block block : blocks) {
            List<Param> run = new ArrayList<>();
            for (Param p : block.params()) {
                boolean open = !run.isEmpty();
                if (open && run.get(0).sameDiff() != p.sameDiff()) {
                    add(out, run, block.states());
                    run = new ArrayList<>();
                }
                run.add(p);
            }
            add(out, run, block.states());
        }
        return new UpdaterStateLayout(out);
    }

    private static void add(List<Block> out, List<Param> run, int states) {
        if (run.isEmpty()) {
            return;
        }
        boolean sameDiff = run.get(0).sameDiff();
        Block last = out.isEmpty() ? null : out.get(out.size() - 1);
        if (sameDiff && last != null && last.params().get(0).sameDiff()) {
            List<Param> merged = new ArrayList<>(last.params());
            merged.addAll(run);
            out.set(out.size() - 1, new Block(merged, 2));
        } else {
            out.add(new Block(List.copyOf(run), sameDiff ? 2 : states));
        }
    }

    public int length() {
        return blocks.stream().mapToInt(b -> b.values() * b.states()).sum();
    }

    /** State values per weight of the SameDiff layers' parameters (0 when there are none). */
    public int sameDiffStatesPerWeight() {
        return blocks.stream()
                .filter(b -> b.params().stream().anyMatch(Param::sameDiff))
                .mapToInt(Block::states)
                .max()
                .orElse(0);
    }

    /** Whether some parameter's state sits elsewhere in {@code other}. */
    public boolean differsFrom(UpdaterStateLayout other) {
        return !blocks.equals(other.blocks);
    }

    /**
     * The same parameters' state laid out as {@code target} lays it out. A parameter with fewer states in
     * {@code target} (an optimizer without moments) drops its own; one with more has none to take.
     *
     * @throws IllegalArgumentException when {@code state} is not of this layout's length, or a parameter of
     *                                  {@code target} has no state here to take
     */
    public float[] moveTo(float[] state, UpdaterStateLayout target) {
        if (state.length != length()) {
            throw new IllegalArgumentException(
                    "the optimizer state has " + state.length + " values where this layout has " + length());
        }
        Map<String, int[]> where = new HashMap<>();
        int offset = 0;
        for (Block block : blocks) {
            int values = block.values();
            int within = 0;
            for (Param p : block.params()) {
                int[] starts = new int[block.states()];
                for (int s = 0; s < starts.length; s++) {
                    starts[s] = offset + s * values + within;
                }
                where.put(p.key(), starts);
                within += p.length();
            }
            offset += values * block.states();
        }
        float[] out = new float[target.length()];
        int to = 0;
        for (Block block : target.blocks) {
            for (int s = 0; s < block.states(); s++) {
                for (Param p : block.params()) {
                    int[] starts = where.get(p.key());
                    if (starts == null || starts.length <= s) {
                        throw new IllegalArgumentException("parameter " + p.key() + " has "
                                + (starts == null ? 0 : starts.length) + " optimizer state value(s) per weight where "
                                + block.states() + " are needed");
                    }
                    System.arraycopy(state, starts[s], out, to, p.length());
                    to += p.length();
                }
            }
        }
        return out;
    }
}
