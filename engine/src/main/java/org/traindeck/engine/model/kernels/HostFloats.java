package org.traindeck.engine.model.kernels;

import java.nio.FloatBuffer;
import java.util.Arrays;
import org.bytedeco.javacpp.FloatPointer;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.memory.MemoryWorkspace;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;

/**
 * Bulk copies between ND4J arrays and Java float arrays, and native scratch memory that outlives the workspaces, for
 * the embedding and head kernels (elementwise work on float[] loops, which the JIT vectorises; products by {@link Sgemm}
 * on native memory).
 */
public final class HostFloats {

    private HostFloats() {}

    /** Copies {@code a}'s values in row-major order into {@code into} (which is at least as long). */
    public static void read(INDArray a, float[] into) {
        int n = (int) a.length();
        if (Sgemm.isDenseRowMajor(a)) {
            Sgemm.buffer(a).get(0, into, 0, n);
        } else {
            a.castTo(DataType.FLOAT).dup('c').data().asNioFloat().get(into, 0, n);
        }
    }

    /** Writes {@code from}'s first values into {@code a} in row-major order. */
    public static void write(float[] from, INDArray a) {
        int n = (int) a.length();
        if (Sgemm.isDenseRowMajor(a)) {
            Sgemm.buffer(a).put(0, from, 0, n);
        } else {
            a.assign(Nd4j.createFromArray(Arrays.copyOf(from, n)).reshape('c', a.shape()));
        }
    }

    /** Grows {@code a} to at least {@code n} values (contents lost when it grows). */
    public static float[] atLeast(float[] a, long n) {
        return a.length >= n ? a : new float[Math.toIntExact(n)];
    }

    /** Native float memory for matrix products, outside every workspace; freed by the garbage collector. */
    public static final class Native {
        public final INDArray array;
        public final FloatPointer pointer;
        public final FloatBuffer buffer;

        private Native(INDArray array) {
            this.array = array;
            this.pointer = Sgemm.pointerTo(array);
            this.buffer = pointer.asBuffer();
        }

        public static Native of(long floats) {
            try (MemoryWorkspace ignored = Nd4j.getWorkspaceManager().scopeOutOfWorkspaces()) {
                return new Native(Nd4j.createUninitializedDetached(DataType.FLOAT, Math.max(1, floats)));
            }
        }

        /** {@code current} if it holds {@code floats} values, else a new one. */
        public static Native fit(Native current, long floats) {
            return current != null && current.array.length() >= floats ? current : of(floats);
        }

        public long length() {
            return array.length();
        }
    }
}
