package org.traindeck.engine.weights;

/** IEEE 754 half precision to float (Java 17 has no Float.float16ToFloat). */
final class HalfFloats {

    private HalfFloats() {}

    static float toFloat(short half) {
        int h = half & 0xFFFF;
        int sign = (h & 0x8000) << 16;
        int exponent = (h >>> 10) & 0x1F;
        int mantissa = h & 0x3FF;
        if (exponent == 0x1F) {
            return Float.intBitsToFloat(sign | 0x7F800000 | (mantissa << 13));
        }
        if (exponent == 0) {
            float subnormal = mantissa * 0x1p-24f;
            return sign == 0 ? subnormal : -subnormal;
        }
        return Float.intBitsToFloat(sign | ((exponent + 112) << 23) | (mantissa << 13));
    }
}
