package org.traindeck.engine.model.fit;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import org.bytedeco.javacpp.Pointer;
import org.nd4j.linalg.factory.Nd4j;

/**
 * The native bytes ND4J and JavaCPP hold outside workspaces: JavaCPP's count (memory JavaCPP allocates itself, such as
 * the transformer kernels' buffers) plus libnd4j's count of host data buffers. The second is the one that sees ND4J's
 * arrays (parameters, gradients, optimizer state, the kernels' {@code HostFloats.Native}): a 40 MB {@code Nd4j.create}
 * adds 40,000,000 to it and 16 bytes to JavaCPP's. Neither counts workspaces (allocated by libnd4j's mallocHost). Used
 * by the memory measurements (the fit tests, the bench's memory group), never by training.
 */
public final class NativeBytes {

    /** libnd4j's memory group of host memory ({@code sd::memory::MemoryType::HOST}). */
    private static final int HOST_GROUP = 0;

    /**
     * The CPU backend's {@code Environment.getGroupCounter}, bound once to its one instance (each {@code getInstance()}
     * makes a new Java object: garbage a sampler calling it in a loop would count in the heap); looked up by name so
     * that the engine builds against the CUDA backend too, where it is null and only JavaCPP's count is read.
     */
    private static final MethodHandle HOST_COUNTER = hostCounter();

    private NativeBytes() {}

    public static long now() {
        return Pointer.totalBytes() + hostBuffers();
    }

    /** libnd4j's host data buffers, or 0 where the backend does not count them. */
    public static long hostBuffers() {
        if (HOST_COUNTER == null) {
            return 0;
        }
        try {
            return (long) HOST_COUNTER.invokeExact(HOST_GROUP);
        } catch (Throwable e) {
            throw new IllegalStateException("libnd4j's host memory counter failed", e);
        }
    }

    private static MethodHandle hostCounter() {
        if (Nd4j.getBackend() == null) { // loads the backend, and with it the native library the bindings need
            return null;
        }
        try {
            Class<?> environment = Class.forName("org.nd4j.linalg.cpu.nativecpu.bindings.Nd4jCpu$Environment");
            Object instance = environment.getMethod("getInstance").invoke(null);
            return MethodHandles.publicLookup()
                    .findVirtual(environment, "getGroupCounter", MethodType.methodType(long.class, int.class))
                    .bindTo(instance);
        } catch (ReflectiveOperationException e) {
            return null;
        }
    }
}
