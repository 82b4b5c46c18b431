package io.gpuq.support;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.UUID;

/**
 * A file a test creates to let a job go on: the job waits for it, however loaded the machine,
 * instead of running for a fixed time that a slow machine outlasts or a fast one wastes.
 *
 * @param path where the file appears once the gate is open
 */
public record Gate(Path path) {

  /** A closed gate in {@code dir}, which must be a directory every job's account may look into. */
  public static Gate in(Path dir, String name) {
    return new Gate(dir.resolve(name + "-" + UUID.randomUUID()));
  }

  /** Shell that waits until the gate is open. */
  public String shellWait() {
    return "while [ ! -e " + path + " ]; do sleep 0.1; done";
  }

  /** Python lines that wait until the gate is open, ten minutes at most. */
  public String pythonWait() {
    return "import os, time\n"
        + "deadline = time.time() + 600\n"
        + "while not os.path.exists('"
        + path
        + "') and time.time() < deadline:\n"
        + "    time.sleep(0.1)\n";
  }

  public void open() throws IOException {
    Files.writeString(path, "");
  }
}
