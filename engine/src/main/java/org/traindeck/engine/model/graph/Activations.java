package org.traindeck.engine.model.graph;

import org.deeplearning4j.nn.weights.WeightInit;
import org.nd4j.linalg.activations.Activation;

/** The config's activation names as ND4J's functions, and the weight initialisation that suits each. */
public final class Activations {

    private Activations() {}

    public static Activation of(String name) {
        return switch (name) {
            case "identity" -> Activation.IDENTITY;
            case "relu" -> Activation.RELU;
            case "relu6" -> Activation.RELU6;
            case "leakyrelu" -> Activation.LEAKYRELU;
            case "elu" -> Activation.ELU;
            case "selu" -> Activation.SELU;
            case "gelu" -> Activation.GELU;
            case "swish" -> Activation.SWISH;
            case "mish" -> Activation.MISH;
            case "tanh" -> Activation.TANH;
            case "sigmoid" -> Activation.SIGMOID;
            case "hardsigmoid" -> Activation.HARDSIGMOID;
            case "softmax" -> Activation.SOFTMAX;
            case "softplus" -> Activation.SOFTPLUS;
            case "softsign" -> Activation.SOFTSIGN;
            default -> throw new IllegalArgumentException("unknown activation " + name);
        };
    }

    /** He initialisation before ReLU-like functions, Xavier before the others (as Keras' defaults behave in practice). */
    public static WeightInit initFor(Activation a) {
        return switch (a) {
            case RELU, RELU6, LEAKYRELU, ELU, SELU, GELU, SWISH, MISH -> WeightInit.RELU;
            default -> WeightInit.XAVIER;
        };
    }
}
