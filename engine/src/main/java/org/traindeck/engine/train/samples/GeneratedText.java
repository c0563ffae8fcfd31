package org.traindeck.engine.train.samples;

import java.util.ArrayList;
import java.util.List;
import org.deeplearning4j.nn.graph.ComputationGraph;
import org.traindeck.engine.data.Dataset;
import org.traindeck.engine.data.Vocabulary;
import org.traindeck.engine.events.SamplesEvent;
import org.traindeck.engine.outputs.Sampling;
import org.traindeck.engine.outputs.TextGenerator;

/**
 * A text model's samples, drawn as the predict command draws them ({@link TextGenerator}): the first half (at most
 * {@value #PROMPT} characters) of each fixed validation window is the prompt, and the model continues it by
 * {@value #TOKENS} characters at temperature {@value #TEMPERATURE}, from a seed that is the run's for the first
 * interval and changes with each (the same run gives the same texts).
 */
public final class GeneratedText implements TextSamples {

    static final int PROMPT = 32;
    static final int TOKENS = 48;
    static final double TEMPERATURE = 0.8;

    private final long seed;

    public GeneratedText(long seed) {
        this.seed = seed;
    }

    @Override
    public List<SamplesEvent.Sample> continuations(ComputationGraph net, SampleSet set, int interval) {
        Dataset data = set.data();
        Vocabulary vocabulary = data.vocabulary();
        if (vocabulary == null) {
            // token ids from NumPy files have no characters to show
            return List.of();
        }
        int window = data.featureCount();
        TextGenerator generator = new TextGenerator(net, vocabulary, window);
        float[] ids = new float[window];
        List<SamplesEvent.Sample> samples = new ArrayList<>(set.size());
        for (int i = 0; i < set.size(); i++) {
            data.copyFeatures(i, ids, 0);
            StringBuilder prompt = new StringBuilder();
            for (int p = 0; p < Math.max(1, Math.min(PROMPT, window / 2)); p++) {
                prompt.append(vocabulary.tokens().get((int) ids[p]));
            }
            String text = generator.generate(
                    prompt.toString(), new Sampling(TOKENS, TEMPERATURE, 0, seed + 1_000_003L * interval + i));
            samples.add(new SamplesEvent.Sample(set.indices()[i], null, null, null, prompt.toString(), text, null));
        }
        return samples;
    }
}
