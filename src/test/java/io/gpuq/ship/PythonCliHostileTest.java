package io.gpuq.ship;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Runs the {@code gpuq} command against hostile servers of its own on 127.0.0.1 (clients/python/
 * test_cli_hostile.py, issue 34): escape sequences in every field are shown escaped, the token is
 * never sent to another origin, and garbled answers or a cursor that does not advance end in one
 * line and exit 5. Needs no gpuq.
 */
@DisplayName("the gpuq command against a hostile server")
class PythonCliHostileTest {

  private static final long TIMEOUT_SECONDS = 300;

  @Test
  void hostileAnswersAreHarmless(@TempDir Path scratch) throws IOException, InterruptedException {
    PythonUnittest.passes("clients/python/test_cli_hostile.py", scratch, Map.of(), TIMEOUT_SECONDS);
  }
}
