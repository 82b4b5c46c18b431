package io.gpuq.bench;

import io.gpuq.gpu.GpuSample;
import io.gpuq.gpu.emulated.EmulatedGpuBackend;
import io.gpuq.proc.ProcFs;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Cost of one emulated {@code sample()} (one /proc snapshot plus the per-GPU accounting) with 8
 * emulated GPUs and 32 real processes on each, and what polling once a second costs in CPU.
 *
 * <p>{@code bench/run GpuPollBench [processes=256] [gpus=8] [polls=1000]}
 */
public final class GpuPollBench {

  public static void main(String[] args) throws Exception {
    int wanted = args.length > 0 ? Integer.parseInt(args[0]) : 256;
    int gpus = args.length > 1 ? Integer.parseInt(args[1]) : 8;
    int polls = args.length > 2 ? Integer.parseInt(args[2]) : 1000;

    List<Process> sleepers = new ArrayList<>();
    Runtime.getRuntime().addShutdownHook(new Thread(() -> killAll(sleepers)));
    try {
      String note = spawn(sleepers, wanted);
      ProcFs procFs = ProcFs.system();
      try (EmulatedGpuBackend backend =
          EmulatedGpuBackend.create(gpus, 16L << 30, "Emulated GPU", procFs, Clock.systemUTC())) {
        for (int i = 0; i < sleepers.size(); i++) {
          backend.attach(sleepers.get(i).pid(), List.of(i % gpus));
        }
        int reported =
            backend.sample().stream().mapToInt(sample -> sample.processes().size()).sum();
        int onMachine = procFs.snapshot().size();
        System.out.printf(
            "setup: %d GPUs x %d processes each (%d attached, %d reported), %d processes in /proc%s%n",
            gpus, sleepers.size() / gpus, sleepers.size(), reported, onMachine, note);

        Stats sample = measure(polls, () -> consume(backend.sample()));
        Stats snapshot = measure(polls, () -> consume(procFs.snapshot().size()));
        sample.print("sample()  ");
        snapshot.print("snapshot()");
        System.out.printf(
            "per process on the machine: %.1f us per sample()%n",
            sample.meanWallMicros / onMachine);
        System.out.printf(
            "CPU share at 1 Hz: %.3f%% of one core (wall: %.3f%%), target < 1%%%n",
            sample.meanCpuMicros / 1e6 * 100, sample.meanWallMicros / 1e6 * 100);
      }
    } finally {
      killAll(sleepers);
    }
  }

  private static String spawn(List<Process> sleepers, int wanted) {
    try {
      for (int i = 0; i < wanted; i++) {
        sleepers.add(
            new ProcessBuilder("sleep", "600")
                .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                .redirectError(ProcessBuilder.Redirect.DISCARD)
                .start());
      }
      return "";
    } catch (IOException e) {
      return " (NOTE: only " + sleepers.size() + " of " + wanted + " could start: " + e + ")";
    }
  }

  private static long sink;

  private static void consume(List<GpuSample> samples) {
    sink += samples.size();
  }

  private static void consume(int value) {
    sink += value;
  }

  private static Stats measure(int polls, Runnable poll) {
    ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    for (int i = 0; i < Math.max(100, polls / 5); i++) {
      poll.run();
    }
    long[] wallNanos = new long[polls];
    long cpuStart = threads.getCurrentThreadCpuTime();
    for (int i = 0; i < polls; i++) {
      long start = System.nanoTime();
      poll.run();
      wallNanos[i] = System.nanoTime() - start;
    }
    long cpuNanos = threads.getCurrentThreadCpuTime() - cpuStart;
    return new Stats(wallNanos, cpuNanos);
  }

  private static final class Stats {
    final double meanWallMicros;
    final double p50Micros;
    final double p99Micros;
    final double meanCpuMicros;

    Stats(long[] wallNanos, long cpuNanos) {
      long[] sorted = wallNanos.clone();
      Arrays.sort(sorted);
      meanWallMicros = Arrays.stream(sorted).average().orElse(0) / 1e3;
      p50Micros = sorted[sorted.length / 2] / 1e3;
      p99Micros = sorted[(int) Math.ceil(sorted.length * 0.99) - 1] / 1e3;
      meanCpuMicros = cpuNanos / 1e3 / sorted.length;
    }

    void print(String what) {
      System.out.printf(
          "%s wall mean %.0f us, p50 %.0f us, p99 %.0f us; CPU mean %.0f us per poll%n",
          what, meanWallMicros, p50Micros, p99Micros, meanCpuMicros);
    }
  }

  private static void killAll(List<Process> processes) {
    for (Process process : processes) {
      process.destroyForcibly();
    }
    for (Process process : processes) {
      try {
        process.waitFor(10, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
  }
}
