package org.traindeck.engine.config;

/**
 * Speed settings that do not change what is trained. {@code onednn}: run convolutions and pooling through oneDNN
 * where ND4J's natives have it (Linux x86-64), several times faster than DL4J's own path; off only to compare.
 */
public record PerformanceConfig(boolean onednn) {}
