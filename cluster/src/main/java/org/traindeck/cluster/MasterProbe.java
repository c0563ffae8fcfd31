package org.traindeck.cluster;

import java.io.IOException;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.concurrent.TimeoutException;
import org.apache.spark.SecurityManager;
import org.apache.spark.SparkConf;
import org.apache.spark.internal.config.package$;
import org.apache.spark.rpc.RpcAddress;
import org.apache.spark.rpc.RpcEnv;
import org.apache.spark.rpc.RpcTimeoutException;
import org.traindeck.engine.parallel.TierFailure;

/**
 * Asks the master, before a driver starts, whether it is there and takes this secret: Spark's own driver would only
 * retry for a minute and give up with "All masters are unresponsive".
 */
final class MasterProbe {

    private MasterProbe() {}

    /** The local address a connection to the master leaves from: the interface the executors can call back. */
    static String localAddressTowards(String host, int port) {
        try (DatagramSocket s = new DatagramSocket()) {
            s.connect(InetAddress.getByName(host), port);
            InetAddress local = s.getLocalAddress();
            return local == null || local.isAnyLocalAddress()
                    ? InetAddress.getLocalHost().getHostAddress()
                    : local.getHostAddress();
        } catch (IOException e) {
            throw new TierFailure("cannot resolve the master's host " + host + ": " + e.getMessage(), true, e);
        }
    }

    /** @throws TierFailure naming the master when nothing listens there or it refuses the secret */
    static void check(String host, int port, String secret, String localIp, int timeoutSeconds) {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress(host, port), timeoutSeconds * 1000);
        } catch (IOException e) {
            throw new TierFailure(
                    "nothing answers at " + host + ":" + port + " (" + e.getMessage()
                            + "): is \"traindeck cluster master\"" + " running there, bound to that interface?",
                    true,
                    e);
        }
        SparkConf conf = new SparkConf(false)
                .set("spark.authenticate", "true")
                .set("spark.authenticate.secret", secret)
                .set("spark.network.crypto.enabled", "true")
                .set("spark.rpc.lookupTimeout", timeoutSeconds + "s")
                .set("spark.rpc.askTimeout", timeoutSeconds + "s");
        SecurityManager security =
                new SecurityManager(conf, scala.Option.empty(), package$.MODULE$.AUTH_SECRET_FILE_DRIVER());
        RpcEnv rpc = RpcEnv.create("traindeck-probe", localIp, 0, conf, security, true);
        try {
            rpc.setupEndpointRef(new RpcAddress(host, port), "Master");
        } catch (Exception e) {
            // Scala's SparkException is checked in Java's eyes, and undeclared
            throw new TierFailure(refusal(host, port, timeoutSeconds, e), true, e);
        } finally {
            rpc.shutdown();
        }
    }

    /**
     * Why the master did not take this driver. The TCP connection was accepted (the kernel does that even for a frozen
     * process), so no reply in time is a master that is stopped, overloaded or not Spark, and a closed or failed
     * handshake is one that refused the secret.
     */
    static String refusal(String host, int port, int timeoutSeconds, Throwable e) {
        String at = "the master at " + host + ":" + port;
        if (timedOut(e)) {
            return at + " accepted the connection but did not answer within " + timeoutSeconds + " s: it is frozen"
                    + " (a stopped process, a machine swapping or out of memory) or overloaded, or what listens there is"
                    + " not a Spark master; look at that machine, restart \"traindeck cluster master\" if it hangs,"
                    + " and try again";
        }
        return at + " refused this driver (" + rootMessage(e) + "): a wrong cluster secret? Use a copy of the"
                + " master's secret file (--secret-file, or parallel.clusterSecretFile)";
    }

    private static boolean timedOut(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof TimeoutException || t instanceof RpcTimeoutException) {
                return true;
            }
        }
        return false;
    }

    static String rootMessage(Throwable t) {
        Throwable root = t;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        return root.getClass().getSimpleName() + ": " + root.getMessage();
    }
}
