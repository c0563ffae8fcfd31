package org.traindeck.engine.model.fit;

import org.bytedeco.javacpp.Pointer;
import org.nd4j.linalg.cpu.nativecpu.bindings.Nd4jCpu;
import org.nd4j.linalg.factory.Nd4j;

/**
 * The native bytes ND4J and JavaCPP hold outside workspaces: JavaCPP's count (memory JavaCPP allocates itself, such as
 * the transformer kernels' buffers) plus libnd4j's count of host data buffers. The second is the one that sees ND4J's
 * arrays (parameters, gradients, optimizer state, the kernels' {@code HostFloats.Native}): a 40 MB {@code Nd4j.create}
 * adds 40,000,000 to it and 16 bytes to JavaCPP's. Neither counts workspaces (allocated by libnd4j's mallocHost).
 */
public final class NativeBytes {

    /** libnd4j's memory group of host memory ({@code sd::memory::MemoryType::HOST}). */
    private static final int HOST_GROUP = 0;

    /**
     * Held once: each {@code getInstance()} makes a new Java object, garbage that a sampler calling it in a loop would
     * count in the heap. The backend is loaded first, which loads the native library the bindings need.
     */
    private static final Nd4jCpu.Environment ENVIRONMENT =
            Nd4j.getBackend() == null ? null : Nd4jCpu.Environment.getInstance();

    private NativeBytes() {}

    public static long now() {
        return Pointer.totalBytes() + ENVIRONMENT.getGroupCounter(HOST_GROUP);
    }
}
