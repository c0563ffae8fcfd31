package org.traindeck.engine.train;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.traindeck.engine.parallel.DistributedBackend;
import org.traindeck.engine.parallel.DistributedSession;
import org.traindeck.engine.parallel.DistributedSpec;
import org.traindeck.engine.parallel.ShardData;
import org.traindeck.engine.parallel.ShardReplica;
import org.traindeck.engine.parallel.ShardResult;
import org.traindeck.engine.parallel.ShardWork;
import org.traindeck.engine.parallel.StepSum;
import org.traindeck.engine.parallel.TierFailure;

/**
 * A distributed backend without a cluster, for the engine's tests: "inprocess://HOST:PORT" runs each shard on its
 * own {@link ShardReplica} in this JVM (the engine's, found as a cluster finds it), through the same bytes a cluster
 * moves. "inprocess://fail-at-K:1" fails step K as a lost executor would.
 */
public final class InProcessBackend implements DistributedBackend {

    @Override
    public boolean accepts(String address) {
        return address.startsWith("inprocess://");
    }

    @Override
    public DistributedSession open(DistributedSpec spec) {
        String host = URI.create(spec.address()).getHost();
        long failAt = host.startsWith("fail-at-") ? Long.parseLong(host.substring("fail-at-".length())) : -1;
        List<ShardReplica> replicas = new ArrayList<>();
        for (int i = 0; i < spec.executors(); i++) {
            String problem = spec.data().problemHere();
            if (problem != null) {
                throw new TierFailure("executor " + i + " on in-process " + problem, true, null);
            }
            replicas.add(ShardReplica.create(
                    spec.modelJson(),
                    spec.dataLossOnly(),
                    spec.oneDnn(),
                    spec.data(),
                    "executor " + i + " on in-process"));
        }
        return new DistributedSession() {
            @Override
            public List<String> executors() {
                return replicas.stream().map(r -> "in-process").toList();
            }

            @Override
            public StepSum step(long step, byte[] params, List<ShardWork> shards) {
                if (step == failAt) {
                    throw new TierFailure("executor 1 on in-process was lost (killed by the test)", true, null);
                }
                double loss = 0;
                int examples = 0;
                int micro = 0;
                long[] perShard = new long[shards.size()];
                INDArray sum = null;
                for (int i = 0; i < shards.size(); i++) {
                    ShardResult r = replicas.get(i).compute(params, shards.get(i));
                    loss += r.lossSum();
                    examples += r.examples();
                    micro += r.microBatches();
                    perShard[i] = r.examples();
                    if (r.gradient() != null) {
                        INDArray g = Nd4j.fromByteArray(r.gradient());
                        sum = sum == null ? g : sum.addi(g);
                    }
                }
                try {
                    return new StepSum(
                            loss, examples, micro, Nd4j.toByteArray(sum), perShard, new long[shards.size()], 0);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            }

            @Override
            public void nextStage(String modelJson, ShardData data, boolean dataLossOnly) {
                for (int i = 0; i < replicas.size(); i++) {
                    String problem = data.problemHere();
                    if (problem != null) {
                        throw new TierFailure("executor " + i + " on in-process " + problem, true, null);
                    }
                    replicas.get(i).moveTo(modelJson, dataLossOnly, data);
                }
            }

            @Override
            public void close() {}
        };
    }
}
