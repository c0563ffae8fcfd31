package org.traindeck.engine.library.tfevents;

import java.util.ArrayList;
import java.util.List;
import org.traindeck.engine.library.tfevents.ProtoInput.Malformed;

/**
 * Reads what a chart needs from one tensorflow.Event record: its wall time and step, the file-version header, a
 * session restart, and the scalars of its summary, both as {@code simple_value} (TensorFlow 1, PyTorch's
 * SummaryWriter) and as a one-element numeric {@code tensor} (TensorFlow 2's tf.summary, PyTorch with
 * {@code new_style=True}). Histograms, images, text and everything else are skipped without being decoded.
 */
final class TfEventDecoder {

    /** One decoded event; {@code scalars} is empty for anything but a scalar summary. */
    record Decoded(double wallTime, long step, String fileVersion, boolean sessionStart, List<Scalar> scalars) {}

    record Scalar(String tag, double value) {}

    // tensorflow.Event
    private static final int WALL_TIME = 1;
    private static final int STEP = 2;
    private static final int FILE_VERSION = 3;
    private static final int SUMMARY = 5;
    private static final int SESSION_LOG = 7;
    // tensorflow.Summary and Summary.Value
    private static final int SUMMARY_VALUE = 1;
    private static final int TAG = 1;
    private static final int SIMPLE_VALUE = 2;
    private static final int TENSOR = 8;
    private static final int METADATA = 9;
    // SessionLog.status START
    private static final int START = 1;

    private TfEventDecoder() {}

    static Decoded decode(byte[] record) throws Malformed {
        ProtoInput in = new ProtoInput(record, 0, record.length);
        double wallTime = 0;
        long step = 0;
        String fileVersion = null;
        boolean sessionStart = false;
        List<Scalar> scalars = List.of();
        while (!in.atEnd()) {
            long key = in.key();
            int field = (int) (key >>> 3);
            int wire = (int) (key & 7);
            if (field == WALL_TIME && wire == ProtoInput.FIXED64) {
                wallTime = in.float64();
            } else if (field == STEP && wire == ProtoInput.VARINT) {
                step = in.varint();
            } else if (field == FILE_VERSION && wire == ProtoInput.LENGTH_DELIMITED) {
                fileVersion = in.string();
            } else if (field == SUMMARY && wire == ProtoInput.LENGTH_DELIMITED) {
                scalars = summary(in.message());
            } else if (field == SESSION_LOG && wire == ProtoInput.LENGTH_DELIMITED) {
                sessionStart = isStart(in.message());
            } else {
                in.skip(wire);
            }
        }
        return new Decoded(wallTime, step, fileVersion, sessionStart, scalars);
    }

    private static List<Scalar> summary(ProtoInput in) throws Malformed {
        List<Scalar> scalars = new ArrayList<>(2);
        while (!in.atEnd()) {
            long key = in.key();
            if ((key >>> 3) == SUMMARY_VALUE && (key & 7) == ProtoInput.LENGTH_DELIMITED) {
                Scalar s = value(in.message());
                if (s != null) {
                    scalars.add(s);
                }
            } else {
                in.skip((int) (key & 7));
            }
        }
        return scalars;
    }

    /** A Summary.Value's scalar, or null when it holds something else (a histogram, an image, a text). */
    private static Scalar value(ProtoInput in) throws Malformed {
        String tag = null;
        Double value = null;
        TensorScalar tensor = null;
        boolean scalarsPlugin = true;
        while (!in.atEnd()) {
            long key = in.key();
            int field = (int) (key >>> 3);
            int wire = (int) (key & 7);
            if (field == TAG && wire == ProtoInput.LENGTH_DELIMITED) {
                tag = in.string();
            } else if (field == SIMPLE_VALUE && wire == ProtoInput.FIXED32) {
                value = (double) in.float32();
            } else if (field == TENSOR && wire == ProtoInput.LENGTH_DELIMITED) {
                tensor = TensorScalar.read(in.message());
            } else if (field == METADATA && wire == ProtoInput.LENGTH_DELIMITED) {
                scalarsPlugin = isScalarsPlugin(in.message());
            } else {
                in.skip(wire);
            }
        }
        if (value == null && tensor != null && tensor.isScalar() && scalarsPlugin) {
            value = tensor.value();
        }
        return tag == null || value == null ? null : new Scalar(tag, value);
    }

    /** SummaryMetadata{plugin_data=1 {plugin_name=1}, data_class=4}: absent, or the scalars plugin's. */
    private static boolean isScalarsPlugin(ProtoInput in) throws Malformed {
        boolean scalars = true;
        while (!in.atEnd()) {
            long key = in.key();
            int field = (int) (key >>> 3);
            int wire = (int) (key & 7);
            if (field == 1 && wire == ProtoInput.LENGTH_DELIMITED) {
                ProtoInput pluginData = in.message();
                while (!pluginData.atEnd()) {
                    long k = pluginData.key();
                    if ((k >>> 3) == 1 && (k & 7) == ProtoInput.LENGTH_DELIMITED) {
                        String plugin = pluginData.string();
                        scalars &= plugin.isEmpty() || plugin.equals("scalars");
                    } else {
                        pluginData.skip((int) (k & 7));
                    }
                }
            } else if (field == 4 && wire == ProtoInput.VARINT) {
                long dataClass = in.varint();
                // DATA_CLASS_UNKNOWN (0) or DATA_CLASS_SCALAR (1)
                scalars &= dataClass <= 1;
            } else {
                in.skip(wire);
            }
        }
        return scalars;
    }

    private static boolean isStart(ProtoInput in) throws Malformed {
        boolean start = false;
        while (!in.atEnd()) {
            long key = in.key();
            if ((key >>> 3) == 1 && (key & 7) == ProtoInput.VARINT) {
                start = in.varint() == START;
            } else {
                in.skip((int) (key & 7));
            }
        }
        return start;
    }
}
