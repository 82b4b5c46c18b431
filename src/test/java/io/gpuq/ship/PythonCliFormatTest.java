package io.gpuq.ship;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Runs the golden-output tests of the {@code gpuq} command's tables (clients/python/
 * test_cli_format.py): fixed API answers, an 80-column terminal, the exact text. Needs no gpuq.
 */
@DisplayName("the gpuq command's tables on fixed API answers")
class PythonCliFormatTest {

  private static final long TIMEOUT_SECONDS = 60;

  @Test
  void goldenOutputsMatch(@TempDir Path scratch) throws IOException, InterruptedException {
    PythonUnittest.passes("clients/python/test_cli_format.py", scratch, Map.of(), TIMEOUT_SECONDS);
  }
}
