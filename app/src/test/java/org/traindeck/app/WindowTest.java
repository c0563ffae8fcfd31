package org.traindeck.app;

import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.extension.ExtendWith;
import org.testfx.api.FxToolkit;
import org.testfx.framework.junit5.ApplicationExtension;

/**
 * A test of the real window: opened before each test with the test's dialogs, closed after it. (TestFX calls only
 * the test class's own {@code @Start} methods, so the window is set up through FxToolkit here.)
 */
@ExtendWith(ApplicationExtension.class)
abstract class WindowTest {

    protected final WindowFixture fixture = new WindowFixture();
    protected MainWindow window;

    @BeforeEach
    void openWindow() throws TimeoutException {
        FxToolkit.setupStage(stage -> window = fixture.open(stage, null));
    }

    @AfterEach
    void closeWindow() {
        fixture.close();
    }
}
