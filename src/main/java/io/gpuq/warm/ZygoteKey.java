package io.gpuq.warm;

import io.gpuq.job.ClaimedJob;
import io.gpuq.job.PythonCommand;
import io.gpuq.launch.LaunchRequest;
import java.nio.file.Path;
import java.util.List;

/**
 * What must match for a fork of a zygote to be what a fresh interpreter would have been, and for
 * two trials to share one: the owner (two owners never share a zygote, even on one account), the
 * account, the interpreter and its options, the modules imported, the working directory, the first
 * entry of {@code sys.path} and {@code PYTHONPATH}.
 *
 * @param uid the account's uid; -1 for gpuq's own
 * @param workingDir the job's working directory; empty for the job's own work directory
 * @param pathEntry {@code sys.path[0]} as the interpreter sets it: the script's directory, or the
 *     working directory for {@code -m} and {@code -c}
 */
record ZygoteKey(
    String owner,
    int uid,
    String interpreter,
    List<String> options,
    List<String> preload,
    String workingDir,
    String pathEntry,
    String pythonPath) {

  static ZygoteKey of(ClaimedJob job, PythonCommand python, LaunchRequest setup) {
    String workingDir = job.workingDir() == null ? "" : job.workingDir();
    String pathEntry;
    if (python.kind() == PythonCommand.Kind.SCRIPT) {
      Path script = Path.of(python.target());
      if (!script.isAbsolute() && !workingDir.isEmpty()) {
        script = Path.of(workingDir).resolve(script);
      }
      Path parent = script.toAbsolutePath().normalize().getParent();
      pathEntry = parent == null ? "/" : parent.toString();
    } else {
      pathEntry = workingDir;
    }
    return new ZygoteKey(
        job.owner(),
        setup.switchTo() == null ? -1 : setup.switchTo().uid(),
        python.interpreter(),
        python.options(),
        job.preload(),
        workingDir,
        pathEntry,
        setup.environment().getOrDefault("PYTHONPATH", ""));
  }

  /** The name of its directory: the same key, the same zygote, on every start of gpuq. */
  String id() {
    return WarmStarts.sha256(
            String.join(
                "\u0000",
                owner,
                Integer.toString(uid),
                interpreter,
                String.join("\u0001", options),
                String.join("\u0001", preload),
                workingDir,
                pathEntry,
                pythonPath))
        .substring(0, 24);
  }
}
