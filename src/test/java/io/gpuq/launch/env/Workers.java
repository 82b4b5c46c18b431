package io.gpuq.launch.env;

import io.gpuq.isolation.Account;
import io.gpuq.job.Framework;
import io.gpuq.placement.PlacedGpu;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/** Test-data builders for worker specs and settings. */
final class Workers {

  static final long GIB = 1L << 30;
  static final Path WORK_DIR = Path.of("/var/lib/gpuq/work/01JD5Q8Z6Y3M");
  static final Account ALICE =
      new Account("alice", 1001, 1001, Optional.of(Path.of("/nonexistent/home/alice")), true);
  static final Account BOB =
      new Account("bob", 1002, 1002, Optional.of(Path.of("/nonexistent/home/bob")), true);
  static final Path NODE_CACHE = Path.of("/var/lib/gpuq/jax-cache");
  static final Path HOOK_DIR = Path.of("/var/lib/gpuq/python");

  private Workers() {}

  static WorkerEnvironmentSettings settings() {
    return WorkerEnvironmentSettings.defaults(NODE_CACHE, HOOK_DIR);
  }

  /** A GPU of this size; the builder gives it the worker's budget. */
  static PlacedGpu aGpu(int index, long totalBytes) {
    return new PlacedGpu(index, "GPU-" + index + "-5e0c", 0, totalBytes);
  }

  static Builder aWorker() {
    return new Builder();
  }

  static final class Builder {
    private String jobId = "01JD5Q8Z6Y3M";
    private Framework framework = Framework.GENERIC;
    private final List<PlacedGpu> gpus = new ArrayList<>(List.of(aGpu(0, 16 * GIB)));
    private long budget = 6 * GIB;
    private Path workDir = WORK_DIR;
    private Account account = ALICE;
    private int cpus = 1;
    private int attempt = 1;

    Builder attempt(int attempt) {
      this.attempt = attempt;
      return this;
    }

    Builder cpus(int cpus) {
      this.cpus = cpus;
      return this;
    }

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

    Builder workDir(Path dir) {
      this.workDir = dir;
      return this;
    }

    Builder runningAs(Account account) {
      this.account = account;
      return this;
    }

    WorkerSpec build() {
      List<PlacedGpu> placed =
          gpus.stream()
              .map(gpu -> new PlacedGpu(gpu.index(), gpu.uuid(), budget, gpu.totalBytes()))
              .toList();
      return new WorkerSpec(jobId, framework, placed, workDir, account, cpus, attempt);
    }
  }
}
