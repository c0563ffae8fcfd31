package org.traindeck.cluster;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.encoder.PatternLayoutEncoder;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.FileAppender;
import java.nio.file.Path;
import java.util.List;
import org.slf4j.LoggerFactory;

/**
 * Spark's own logging (and that of the Netty and Hadoop code under it) goes to the run's log file, not to the terminal:
 * a lost executor, a refused secret or a stop makes Spark log stack traces of up to a hundred lines, and the terminal
 * gets TrainDeck's one line naming the cause instead. The routing stays until the next cluster run's replaces it: Spark
 * goes on logging from its own threads after a session has ended (a driver still stopping, a probe's connections
 * being torn down), and that belongs to the run that started it.
 */
final class SparkLogFile {

    /** The loggers of the code a Spark driver runs (Spark shades Jetty and Guava under org.sparkproject). */
    private static final List<String> SPARK_LOGGERS =
            List.of("org.apache.spark", "org.sparkproject", "io.netty", "org.apache.hadoop");

    private static FileAppender<ILoggingEvent> current;

    private SparkLogFile() {}

    /** Routes Spark's logging to {@code file} (appended to); nothing changes without a file or without logback. */
    static synchronized void routeTo(Path file) {
        if (file == null || !(LoggerFactory.getILoggerFactory() instanceof LoggerContext context)) {
            return;
        }
        PatternLayoutEncoder encoder = new PatternLayoutEncoder();
        encoder.setContext(context);
        encoder.setPattern("%d{HH:mm:ss.SSS} spark: %-5level %logger{0} - %msg%n");
        encoder.start();
        FileAppender<ILoggingEvent> appender = new FileAppender<>();
        appender.setContext(context);
        appender.setName("traindeck-spark-" + file);
        appender.setFile(file.toAbsolutePath().toString());
        appender.setAppend(true);
        appender.setEncoder(encoder);
        appender.start();
        for (String name : SPARK_LOGGERS) {
            Logger logger = context.getLogger(name);
            if (current != null) {
                logger.detachAppender(current);
            }
            logger.addAppender(appender);
            logger.setAdditive(false);
        }
        if (current != null) {
            current.stop();
        }
        current = appender;
    }
}
