package org.traindeck.engine.data;

import java.util.ArrayList;
import java.util.List;
import org.deeplearning4j.nn.conf.inputs.InputType;

/**
 * What a network knows of one named input without its data: its name, one sample's shape and, for token ids, the
 * vocabulary. Written into checkpoints' fingerprints ({@link #encode}) so a trained model rebuilds without its data.
 */
public record InputSignature(String name, SampleShape shape, int vocabulary) {

    public boolean tokens() {
        return shape instanceof SampleShape.Tokens;
    }

    public InputType inputType() {
        return shape.inputType(vocabulary);
    }

    public static List<InputSignature> of(List<InputArray> inputs) {
        return inputs.stream()
                .map(in -> new InputSignature(in.name(), in.shape(), in.vocabulary()))
                .toList();
    }

    /** "name=kind:sizes" entries joined by ';', e.g. {@code actions=tokens:64:6;rewards=steps:1:64}. */
    public static String encode(List<InputSignature> inputs) {
        List<String> parts = new ArrayList<>();
        for (InputSignature in : inputs) {
            parts.add(in.name() + "=" + shapeText(in.shape(), in.vocabulary()));
        }
        return String.join(";", parts);
    }

    /** The inputs {@link #encode} wrote, or null when the text is not such a list. */
    public static List<InputSignature> decode(String text) {
        List<InputSignature> out = new ArrayList<>();
        for (String part : text.split(";", -1)) {
            int eq = part.indexOf('=');
            if (eq <= 0) {
                return null;
            }
            InputSignature in =
                    parse(part.substring(0, eq), part.substring(eq + 1).split(":", -1));
            if (in == null) {
                return null;
            }
            out.add(in);
        }
        return out;
    }

    private static String shapeText(SampleShape shape, int vocabulary) {
        if (shape instanceof SampleShape.Flat f) {
            return "flat:" + f.features();
        }
        if (shape instanceof SampleShape.Image i) {
            return "image:" + i.channels() + ":" + i.height() + ":" + i.width();
        }
        if (shape instanceof SampleShape.Volume v) {
            return "volume:" + v.channels() + ":" + v.depth() + ":" + v.height() + ":" + v.width();
        }
        if (shape instanceof SampleShape.Steps s) {
            return "steps:" + s.features() + ":" + s.length();
        }
        return "tokens:" + ((SampleShape.Tokens) shape).length() + ":" + vocabulary;
    }

    private static InputSignature parse(String name, String[] f) {
        try {
            return switch (f[0]) {
                case "flat" -> f.length == 2 ? new InputSignature(name, new SampleShape.Flat(i(f[1])), 0) : null;
                case "image" ->
                    f.length == 4
                            ? new InputSignature(name, new SampleShape.Image(i(f[1]), i(f[2]), i(f[3])), 0)
                            : null;
                case "volume" ->
                    f.length == 5
                            ? new InputSignature(name, new SampleShape.Volume(i(f[1]), i(f[2]), i(f[3]), i(f[4])), 0)
                            : null;
                case "steps" ->
                    f.length == 3 ? new InputSignature(name, new SampleShape.Steps(i(f[1]), i(f[2])), 0) : null;
                case "tokens" ->
                    f.length == 3 ? new InputSignature(name, new SampleShape.Tokens(i(f[1])), i(f[2])) : null;
                default -> null;
            };
        } catch (NumberFormatException e) {
            return null;
        }
    }

    private static int i(String s) {
        int v = Integer.parseInt(s);
        if (v < 1) {
            throw new NumberFormatException("not positive: " + s);
        }
        return v;
    }
}
