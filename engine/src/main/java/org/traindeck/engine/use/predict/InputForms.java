package org.traindeck.engine.use.predict;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;
import org.traindeck.engine.data.SampleShape;
import org.traindeck.engine.data.numpy.NpyArray;
import org.traindeck.engine.outputs.PredictionInputException;

/**
 * The per-sample shapes a NumPy input may have for a model, and the layout each says: an image [H, W, C] channels
 * last, [C, H, W] channels first, [H, W] (one channel) either; a volume likewise; a vector, token ids or a flat row
 * in no layout. A file whose shape fits both layouts (an image with H = W = C) is refused unless the layout is given.
 */
final class InputForms {

    /** One accepted per-sample shape; {@code layout} null where the shape says nothing about channels. */
    record Form(long[] sample, ArrayLayout layout) {}

    private InputForms() {}

    /** The shapes a file may have, channels last first; only {@code only}'s (and layout-free ones) when it is given. */
    static List<Form> of(PredictionModel model, ArrayLayout only) {
        List<Form> out = new ArrayList<>();
        SampleShape shape = model.shape();
        if (shape instanceof SampleShape.Flat f) {
            out.add(new Form(new long[] {f.features()}, null));
            if (f.features() == 1) {
                out.add(new Form(new long[0], null));
            }
        } else if (shape instanceof SampleShape.Tokens t) {
            out.add(new Form(new long[] {t.length()}, null));
        } else if (shape instanceof SampleShape.Image i) {
            out.add(new Form(new long[] {i.height(), i.width(), i.channels()}, ArrayLayout.CHANNELS_LAST));
            if (i.channels() == 1) {
                out.add(new Form(new long[] {i.height(), i.width()}, null));
            }
            out.add(new Form(new long[] {i.channels(), i.height(), i.width()}, ArrayLayout.CHANNELS_FIRST));
        } else if (shape instanceof SampleShape.Volume v) {
            out.add(new Form(new long[] {v.depth(), v.height(), v.width(), v.channels()}, ArrayLayout.CHANNELS_LAST));
            out.add(new Form(new long[] {v.channels(), v.depth(), v.height(), v.width()}, ArrayLayout.CHANNELS_FIRST));
        }
        if (model.takesRows() && !(shape instanceof SampleShape.Flat)) {
            out.add(new Form(new long[] {shape.values()}, null));
        }
        return out.stream()
                .filter(f -> only == null || f.layout() == null || f.layout() == only)
                .toList();
    }

    /**
     * The layout the array's shape says (null where it says none), given or read from the shape; an array of no
     * accepted shape, or of one that fits both layouts while none is given, is refused naming the file.
     */
    static ArrayLayout layoutOf(NpyArray array, long[] sample, PredictionModel model, ArrayLayout given) {
        List<Form> fits = of(model, given).stream()
                .filter(f -> Arrays.equals(f.sample(), sample))
                .toList();
        if (fits.isEmpty()) {
            throw new PredictionInputException(array.source() + " is " + array.describe() + ", one sample per row of "
                    + Arrays.toString(sample) + ", but the model takes " + expected(model, given));
        }
        List<ArrayLayout> layouts = fits.stream().map(Form::layout).distinct().toList();
        if (layouts.size() > 1) {
            throw new PredictionInputException(array.source() + " is " + array.describe() + ": its samples "
                    + Arrays.toString(sample) + " read as " + model.shape() + " with the channels last or first"
                    + ": say which with --layout " + ArrayLayout.choices());
        }
        return layouts.get(0);
    }

    /** e.g. "[N, 28, 28, 1] or [N, 28, 28] or [N, 1, 28, 28] (N samples of 28×28×1, numbers; channels last or first)". */
    static String expected(PredictionModel model, ArrayLayout given) {
        List<Form> forms = of(model, given);
        String shapes = forms.stream()
                .map(f -> Arrays.stream(f.sample())
                        .mapToObj(Long::toString)
                        .collect(Collectors.joining(", ", "[N" + (f.sample().length > 0 ? ", " : ""), "]")))
                .collect(Collectors.joining(" or "));
        String what = model.shape() instanceof SampleShape.Tokens ? "integer token ids" : "numbers";
        boolean laidOut = forms.stream().anyMatch(f -> f.layout() != null);
        String layout = !laidOut ? "" : given != null ? "; " + given.words() : "; channels last or first";
        return shapes + " (N samples of " + model.shape() + ", " + what + layout + ")";
    }
}
