package io.gpuq.launch.env;

import io.gpuq.job.Framework;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** Test-data builders for worker specs and settings. */
final class Workers {

  static final long GIB = 1L << 30;
  static final Path JOB_DIR = Path.of("/var/lib/gpuq/jobs/01JD5Q8Z6Y3M");
  static final Path NODE_CACHE = Path.of("/var/lib/gpuq/jax-cache");
  static final Path HOOK_DIR = Path.of("/var/lib/gpuq/python");

  private Workers() {}

  static WorkerEnvironmentSettings settings() {
    return WorkerEnvironmentSettings.defaults(NODE_CACHE, HOOK_DIR);
  }

  static PlacedGpu aGpu(int index, long totalBytes) {
    return new PlacedGpu(index, "GPU-" + index + "-5e0c", totalBytes);
  }

  static Builder aWorker() {
    return new Builder();
  }

  static final class Builder {
    private String jobId = "01JD5Q8Z6Y3M";
    private Framework framework = Framework.GENERIC;
    private final List<PlacedGpu> gpus = new ArrayList<>(List.of(aGpu(0, 16 * GIB)));
    private long budget = 6 * GIB;
    private Path jobDir = JOB_DIR;

    Builder framework(Framework framework) {
      this.framework = framework;
      return this;
    }

    Builder jobId(String jobId) {
      this.jobId = jobId;
      return this;
    }

    Builder onGpus(PlacedGpu... placed) {
      gpus.clear();
      gpus.addAll(List.of(placed));
      return this;
    }

    Builder budget(long bytes) {
      this.budget = bytes;
      return this;
    }

    Builder cpuOnly() {
      gpus.clear();
      budget = 0;
      return this;
    }

    Builder jobDir(Path dir) {
      this.jobDir = dir;
      return this;
    }

    WorkerSpec build() {
      return new WorkerSpec(jobId, framework, gpus, budget, jobDir);
    }
  }
}
