package org.traindeck.engine.train.health;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.traindeck.engine.config.LayerHealthConfig;

/**
 * Watches the logged figures for a layer in trouble and says so once per layer and condition, with advice: an
 * update ratio that stays too small or too large, ReLU-like outputs that stay almost all zero, and gradients that
 * vanish or explode from the last layer to the first. A condition must hold for {@code patience} logged steps in a
 * row, so one noisy step says nothing. Not thread-safe: fed by the training thread.
 */
public final class LayerWarnings {

    enum Condition {
        SLOW,
        FAST,
        DEAD,
        VANISHING,
        EXPLODING
    }

    private final LayerHealthConfig config;
    private final Map<String, Integer> streaks = new HashMap<>();
    private final Set<String> said = new HashSet<>();

    public LayerWarnings(LayerHealthConfig config) {
        this.config = config;
    }

    /** The warnings this logged step raises (each at most once per run). */
    public List<String> check(List<LayerFigures> figures) {
        List<String> out = new ArrayList<>();
        LayerFigures first = null;
        LayerFigures last = null;
        for (LayerFigures f : figures) {
            checkLayer(f, out);
            if (Double.isFinite(f.gradNorm())) {
                first = first == null ? f : first;
                last = f;
            }
        }
        if (first != null && last != first && last.gradNorm() > 0) {
            checkDepth(first, last, out);
        }
        return out;
    }

    private void checkLayer(LayerFigures f, List<String> out) {
        double r = f.updateRatio();
        holds(
                f.node(),
                Condition.SLOW,
                Double.isFinite(r) && r < config.minUpdateRatio(),
                out,
                () -> String.format(
                        Locale.ROOT,
                        "layer '%s' hardly learns: its update is %.2g of its parameters (below %.2g) for %d logged steps in a row."
                                + " Raise its learning rate (the stage's, or this node's \"lrScale\"), check that its gradient reaches it"
                                + " (layer/%s/grad_norm) and that its initialisation is not too large",
                        f.node(),
                        r,
                        config.minUpdateRatio(),
                        config.patience(),
                        f.node()));
        holds(
                f.node(),
                Condition.FAST,
                Double.isFinite(r) && r > config.maxUpdateRatio(),
                out,
                () -> String.format(
                        Locale.ROOT,
                        "layer '%s' learns too fast: its update is %.2g of its parameters (above %.2g) for %d logged steps in a row."
                                + " Lower the learning rate (or this node's \"lrScale\"), add warmup, clip gradients, or normalise its"
                                + " input (batchNorm, layerNorm)",
                        f.node(),
                        r,
                        config.maxUpdateRatio(),
                        config.patience()));
        double zeros = f.actZeroFraction();
        holds(
                f.node(),
                Condition.DEAD,
                f.reluLike() && Double.isFinite(zeros) && zeros >= config.deadFraction(),
                out,
                () -> String.format(
                        Locale.ROOT,
                        "layer '%s' is dying: %.0f%% of its ReLU outputs are exactly zero for %d logged"
                                + " steps in a row (dead units no longer learn). Lower the learning rate, use He initialisation, put a"
                                + " batchNorm before it, or use a leaky activation (leakyrelu, gelu)",
                        f.node(),
                        100 * zeros,
                        config.patience()));
    }

    /** Compares the first and the last layer's gradient norms: vanishing or exploding along the depth. */
    private void checkDepth(LayerFigures a, LayerFigures b, List<String> out) {
        double ratio = a.gradNorm() / b.gradNorm();
        holds(
                a.node(),
                Condition.VANISHING,
                ratio < 1 / config.depthGradientRatio(),
                out,
                () -> String.format(
                        Locale.ROOT,
                        "gradients vanish along the depth: the first layer '%s' gets %.2g times the gradient norm of the last, layer '%s'"
                                + " (below 1/%.3g) for %d logged steps in a row. Use residual connections, normalisation (batchNorm,"
                                + " layerNorm), He initialisation with ReLU, or fewer saturating activations (sigmoid, tanh)",
                        a.node(),
                        ratio,
                        b.node(),
                        config.depthGradientRatio(),
                        config.patience()));
        holds(
                a.node(),
                Condition.EXPLODING,
                ratio > config.depthGradientRatio(),
                out,
                () -> String.format(
                        Locale.ROOT,
                        "gradients explode along the depth: the first layer '%s' gets %.3g times the gradient norm of the last, layer '%s'"
                                + " (above %.3g) for %d logged steps in a row. Lower the learning rate, clip gradients (clipNorm), add"
                                + " normalisation, or check the initialisation",
                        a.node(),
                        ratio,
                        b.node(),
                        config.depthGradientRatio(),
                        config.patience()));
    }

    private interface Message {
        String text();
    }

    private void holds(String node, Condition condition, boolean now, List<String> out, Message message) {
        String key = condition + "\u0000" + node;
        if (!now) {
            streaks.remove(key);
            return;
        }
        int streak = streaks.merge(key, 1, Integer::sum);
        if (streak >= config.patience() && said.add(key)) {
            out.add(message.text());
        }
    }
}
