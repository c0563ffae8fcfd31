package org.traindeck.engine.parallel;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * How a stage is trained, most to least ambitious. When one fails, the run goes on with the next. On the CPU backend
 * the two averaging tiers are the same (there is no peer-to-peer copy between CPU workers), and one device is the CPU
 * itself; a CUDA build cannot switch to the CPU backend inside the same process, so its chain ends at one GPU.
 */
public enum Tier {
    SHARED_GRADIENTS("shared gradients"),
    AVERAGING_P2P("parameter averaging with peer-to-peer copies"),
    AVERAGING_NO_P2P("parameter averaging without peer-to-peer copies"),
    SINGLE_DEVICE("one device");

    public final String description;

    Tier(String description) {
        this.description = description;
    }

    public boolean parallel() {
        return this != SINGLE_DEVICE;
    }

    /** The tiers to try, in order, for a run of {@code devices} devices starting at {@code mode}. */
    public static List<Tier> chain(int devices, String mode, boolean p2pDisabled, boolean fallback) {
        List<Tier> chain = new ArrayList<>();
        if (devices > 1) {
            if (mode.equals("shared_gradients")) {
                chain.add(SHARED_GRADIENTS);
            }
            if (!p2pDisabled) {
                chain.add(AVERAGING_P2P);
            }
            chain.add(AVERAGING_NO_P2P);
        }
        chain.add(SINGLE_DEVICE);
        return fallback ? chain : chain.subList(0, 1);
    }

    /** The switch for {@code traindeck.inject.failTiers}: names, lower case accepted. */
    public static boolean injectedFailure(Tier tier, String property) {
        String list = System.getProperty("traindeck.inject." + property, "");
        for (String name : list.split(",")) {
            if (name.strip().toUpperCase(Locale.ROOT).equals(tier.name())) {
                return true;
            }
        }
        return false;
    }
}
