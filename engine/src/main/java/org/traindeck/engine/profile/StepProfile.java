package org.traindeck.engine.profile;

import java.util.List;
import java.util.Locale;

/**
 * Where the training steps of a model went ({@code traindeck profile}): per graph node the forward and backward time,
 * then the sums of gradients at branches, the graph's own bookkeeping, the optimizer update, the data and the rest,
 * each in ms per step; the parts add up to {@link #stepMs()}. Optionally ND4J's time per native op.
 *
 * @param model       the model's type and parameter count
 * @param setting     the device, precision, batch and optimizer the steps ran with
 * @param steps       timed steps (after {@code warmupSteps} untimed ones)
 * @param stepMs      the mean time of a profiled step
 * @param dl4jStepMs  the mean time of the same steps through DL4J's own gradient pass, alternated with the profiled
 *                    ones (how much the walk itself costs)
 * @param ops         ND4J's op profile of further steps ({@code --ops}), empty when not asked for
 * @param opSteps     the steps the op profile covers
 */
public record StepProfile(
        String model,
        String setting,
        int warmupSteps,
        int steps,
        double stepMs,
        double dl4jStepMs,
        List<Node> nodes,
        double branchSumsMs,
        double bookkeepingMs,
        double updateMs,
        double dataMs,
        double otherMs,
        List<OpTime> ops,
        int opSteps) {

    /**
     * One graph node: its type, and its forward and backward time per step. An output layer's forward is its loss:
     * DL4J runs an output layer's forward inside its backward and again for the loss.
     */
    public record Node(String name, String type, double forwardMs, double backwardMs, boolean output) {}

    /** One native op name: its calls and time over the op profile's steps. */
    public record OpTime(String name, long calls, double totalMs) {}

    public StepProfile {
        nodes = List.copyOf(nodes);
        ops = List.copyOf(ops);
    }

    /** The parts of a step, in ms: the nodes' forward and backward, branch sums, bookkeeping, update, data, other. */
    public double partsMs() {
        double sum = branchSumsMs + bookkeepingMs + updateMs + dataMs + otherMs;
        for (Node n : nodes) {
            sum += n.forwardMs() + n.backwardMs();
        }
        return sum;
    }

    public String toText() {
        StringBuilder b = new StringBuilder();
        appendHeader(b);
        int width = Math.max(
                24,
                nodes.stream()
                        .mapToInt(n -> n.name().length() + n.type().length() + 3)
                        .max()
                        .orElse(0));
        appendNodes(b, width);
        appendParts(b, width);
        if (!ops.isEmpty()) {
            appendOps(b);
        }
        return b.toString();
    }

    private void appendHeader(StringBuilder b) {
        b.append(String.format(
                Locale.ROOT,
                "profile of %s%n%s%n%d step(s) timed after %d warm-up step(s): %.2f ms per step "
                        + "(DL4J's own gradient pass, alternated: %.2f ms per step)%n%n",
                model,
                setting,
                steps,
                warmupSteps,
                stepMs,
                dl4jStepMs));
    }

    /** A row per node and their sums; {@code width} fits the longest "name (type)". */
    private void appendNodes(StringBuilder b, int width) {
        String row = "%-" + width + "s %10s %7s %10s %7s%n";
        String figures = "%-" + width + "s %10.3f %6.1f%% %10.3f %6.1f%%%n";
        b.append(String.format(Locale.ROOT, row, "node (type)", "forward ms", "%", "backward", "%"));
        double forward = 0;
        double backward = 0;
        for (Node n : nodes) {
            b.append(String.format(
                    Locale.ROOT,
                    figures,
                    n.name() + " (" + n.type() + ")" + (n.output() ? "*" : ""),
                    n.forwardMs(),
                    percent(n.forwardMs()),
                    n.backwardMs(),
                    percent(n.backwardMs())));
            forward += n.forwardMs();
            backward += n.backwardMs();
        }
        b.append(String.format(
                Locale.ROOT, figures, "all nodes", forward, percent(forward), backward, percent(backward)));
    }

    /** The rest of the step part by part, the step's sum, and what each part holds. */
    private void appendParts(StringBuilder b, int width) {
        String single = "%-" + width + "s %10.3f %6.1f%%%n";
        b.append('\n');
        b.append(String.format(Locale.ROOT, single, "gradient sums at branches", branchSumsMs, percent(branchSumsMs)));
        b.append(String.format(Locale.ROOT, single, "graph bookkeeping", bookkeepingMs, percent(bookkeepingMs)));
        b.append(String.format(Locale.ROOT, single, "optimizer update", updateMs, percent(updateMs)));
        b.append(String.format(Locale.ROOT, single, "data (batch making)", dataMs, percent(dataMs)));
        b.append(String.format(Locale.ROOT, single, "other", otherMs, percent(otherMs)));
        b.append(String.format(Locale.ROOT, single, "step", partsMs(), percent(partsMs())));
        b.append(String.format(
                Locale.ROOT,
                "%n* an output layer's forward is its loss (DL4J runs its forward inside its backward, "
                        + "and again for the loss)%n"));
        b.append(String.format("graph bookkeeping: DL4J's workspaces, handing each node its inputs and gradients%n"
                + "optimizer update: dividing by the batch, clipping, the optimizer's update and its subtraction from the parameters%n"
                + "other: random seeds, summing accumulated micro-batches, clearing the layers' state%n"));
    }

    /** The twenty native ops that took longest, per step. */
    private void appendOps(StringBuilder b) {
        double total = ops.stream().mapToDouble(OpTime::totalMs).sum();
        b.append(String.format(
                Locale.ROOT,
                "%nND4J's native ops over %d further step(s), timed one by one (slower than unprofiled "
                        + "steps): %.2f ms per step in ops%n",
                opSteps,
                total / opSteps));
        b.append(String.format(Locale.ROOT, "%-32s %12s %12s %7s%n", "op", "ms per step", "calls/step", "%"));
        for (OpTime o : ops.subList(0, Math.min(20, ops.size()))) {
            b.append(String.format(
                    Locale.ROOT,
                    "%-32s %12.3f %12.1f %6.1f%%%n",
                    o.name(),
                    o.totalMs() / opSteps,
                    (double) o.calls() / opSteps,
                    100 * o.totalMs() / total));
        }
        if (ops.size() > 20) {
            b.append(String.format(Locale.ROOT, "(%d more op names)%n", ops.size() - 20));
        }
    }

    private double percent(double ms) {
        return stepMs > 0 ? 100 * ms / stepMs : 0;
    }
}
