package org.traindeck.engine.use.export;

/** An export that cannot be made, saying where (the node, the file) and what to do. */
public class ExportException extends RuntimeException {

    public ExportException(String message) {
        super(message);
    }

    public ExportException(String message, Throwable cause) {
        super(message, cause);
    }
}
