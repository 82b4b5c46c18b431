package io.gpuq.wiring;

import io.gpuq.config.GpuqProperties;
import io.gpuq.gpu.GpuBackend;
import io.gpuq.gpu.GpuBackendException;
import io.gpuq.gpu.GpuBackendSettings;
import io.gpuq.gpu.GpuInventory;
import io.gpuq.gpu.GpuPoller;
import io.gpuq.gpu.choice.GpuBackends;
import io.gpuq.gpu.choice.SelectedBackend;
import io.gpuq.guard.BudgetGuard;
import io.gpuq.guard.PeakRecorder;
import io.gpuq.job.JobService;
import io.gpuq.launch.Workers;
import io.gpuq.meters.GpuMetrics;
import io.gpuq.meters.GuardActionCounter;
import io.gpuq.proc.ProcFs;
import io.gpuq.startup.StartRefusedException;
import io.gpuq.text.MemorySize;
import java.time.Clock;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** Opens the GPU backend at start-up and polls it. */
@Configuration(proxyBeanMethods = false)
public class GpuConfiguration {

  private static final Logger log = LoggerFactory.getLogger(GpuConfiguration.class);

  @Bean
  ProcFs procFs() {
    return ProcFs.system();
  }

  @Bean
  SelectedBackend selectedGpuBackend(GpuqProperties properties, ProcFs procFs, Clock clock) {
    GpuqProperties.Gpu gpu = properties.gpu();
    String nvmlLibrary =
        gpu.nvmlLibrary() == null || gpu.nvmlLibrary().isBlank()
            ? GpuBackendSettings.DEFAULT_NVML_LIBRARY
            : gpu.nvmlLibrary();
    GpuBackendSettings settings =
        new GpuBackendSettings(
            gpu.backend(),
            nvmlLibrary,
            gpu.emulated().count(),
            MemorySize.parse(gpu.emulated().memory()),
            gpu.emulated().name(),
            procFs,
            clock);
    SelectedBackend selected;
    try {
      selected = GpuBackends.open(settings);
    } catch (GpuBackendException e) {
      throw new StartRefusedException(
          "gpuq.gpu.backend=" + gpu.backend() + " but no GPU can be used: " + e.getMessage(),
          "check the NVIDIA driver (nvidia-smi) and gpuq.gpu.nvml-library, or set"
              + " gpuq.gpu.backend=auto to run on emulated GPUs",
          e);
    }
    selected
        .fallbackReason()
        .ifPresent(
            reason ->
                log.warn(
                    "\n*****************************************************************\n"
                        + "*  NO REAL GPU: gpuq runs on EMULATED GPUs.\n"
                        + "*  {}\n"
                        + "*  A worker's 'GPU memory' is the resident memory of its process\n"
                        + "*  tree. Set gpuq.gpu.backend=nvml to refuse to start instead.\n"
                        + "*****************************************************************",
                    reason));
    log.info(
        "GPU backend {}: {}",
        selected.backend().kind(),
        selected.backend().devices().stream()
            .map(d -> d.index() + "=" + d.name() + " " + MemorySize.format(d.memoryTotalBytes()))
            .toList());
    return selected;
  }

  @Bean(destroyMethod = "close")
  GpuBackend gpuBackend(SelectedBackend selected) {
    return selected.backend();
  }

  @Bean
  GpuInventory gpuInventory(SelectedBackend selected) {
    return new GpuInventory(
        selected.backend().kind(), selected.backend().devices(), selected.fallbackReason());
  }

  /**
   * Each poll is heard, in this order, by the guard (which stops jobs over their budget), the peak
   * recorder (which writes new peaks to the jobs) and the GPU metrics.
   */
  @Bean
  GpuPoller gpuPoller(
      GpuBackend backend,
      ProcFs procFs,
      Clock clock,
      Workers workers,
      BudgetGuard budgetGuard,
      PeakRecorder peakRecorder,
      GpuMetrics gpuMetrics) {
    return new GpuPoller(
        backend,
        procFs,
        clock,
        workers::roots,
        List.of(budgetGuard, peakRecorder, gpuMetrics::refresh));
  }

  /** Each action of the guard is counted (docs/metrics.md). */
  @Bean
  BudgetGuard budgetGuard(
      Workers workers, GpuqProperties properties, GuardActionCounter guardActions) {
    GpuqProperties.Guard guard = properties.guard();
    return new BudgetGuard(
        workers,
        guard.policy(),
        new BudgetGuard.Tolerance(guard.tolerance(), MemorySize.parse(guard.toleranceBytes())),
        guard.consecutivePolls(),
        guardActions);
  }

  @Bean
  PeakRecorder peakRecorder(JobService jobs) {
    return new PeakRecorder(jobs::observeGpuMemory);
  }

  @Bean
  HealthIndicator gpu(GpuInventory inventory) {
    return () ->
        Health.up()
            .withDetail("backend", inventory.backendKind())
            .withDetail("devices", inventory.devices().size())
            .withDetail("fallbackReason", inventory.fallbackReason().orElse(""))
            .build();
  }
}
