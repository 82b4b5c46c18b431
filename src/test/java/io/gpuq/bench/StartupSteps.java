package io.gpuq.bench;

import io.gpuq.GpuqApplication;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.context.metrics.buffering.BufferingApplicationStartup;
import org.springframework.boot.context.metrics.buffering.StartupTimeline;
import org.springframework.boot.context.metrics.buffering.StartupTimeline.TimelineEvent;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.metrics.StartupStep;

/**
 * gpuq started once in this JVM with Spring's {@link BufferingApplicationStartup}, which records
 * every step of the start-up (each bean's instantiation, each configuration class, the refresh);
 * prints the steps that took longest by their own time (less their nested steps) and stops gpuq.
 * Where {@code StartupBench} says how long, this says which beans: {@code StartupBench
 * profile=true} runs it with the bench's own arguments.
 *
 * <p>Runnable alone, with gpuq's arguments: {@code bench/run StartupSteps --gpuq.data-dir=/tmp/x
 * ...}.
 */
public final class StartupSteps {

  public static void main(String[] args) {
    BufferingApplicationStartup recorder = new BufferingApplicationStartup(100_000);
    SpringApplication application = new SpringApplication(GpuqApplication.class);
    application.setApplicationStartup(recorder);
    // Not this class: with -Dspring.aot.enabled=true, Spring looks for GpuqApplication's AOT code.
    application.setMainApplicationClass(GpuqApplication.class);
    long t0 = System.nanoTime();
    try (ConfigurableApplicationContext context = application.run(args)) {
      System.out.printf(
          "%nStartupSteps: context ready after %d ms in this JVM (main() to run() returning)%n",
          (System.nanoTime() - t0) / 1_000_000);
      print(recorder.getBufferedTimeline(), 30);
    }
    System.exit(0); // gpuq's non-daemon threads would otherwise outlive the closed context
  }

  static void print(StartupTimeline timeline, int top) {
    List<TimelineEvent> events = timeline.getEvents();
    Map<Long, Long> childrenNanos = new HashMap<>();
    for (TimelineEvent event : events) {
      Long parent = event.getStartupStep().getParentId();
      if (parent != null) {
        childrenNanos.merge(parent, event.getDuration().toNanos(), Long::sum);
      }
    }
    List<Step> steps = new ArrayList<>();
    Map<String, Long> selfByKind = new TreeMap<>();
    for (TimelineEvent event : events) {
      StartupStep step = event.getStartupStep();
      long self = event.getDuration().toNanos() - childrenNanos.getOrDefault(step.getId(), 0L);
      steps.add(new Step(describe(step), self, event.getDuration().toNanos()));
      selfByKind.merge(step.getName(), self, Long::sum);
    }
    System.out.printf("%nown time per kind of step (ms):%n");
    selfByKind.entrySet().stream()
        .sorted(Map.Entry.<String, Long>comparingByValue().reversed())
        .forEach(e -> System.out.printf("  %7d  %s%n", e.getValue() / 1_000_000, e.getKey()));
    System.out.printf(
        "%nthe %d steps with the most own time (ms own / ms with nested steps):%n", top);
    steps.stream()
        .sorted(Comparator.comparingLong(Step::selfNanos).reversed())
        .limit(top)
        .forEach(
            s ->
                System.out.printf(
                    "  %7d %7d  %s%n", s.selfNanos / 1_000_000, s.totalNanos / 1_000_000, s.what));
  }

  private static String describe(StartupStep step) {
    StringBuilder what = new StringBuilder(step.getName());
    for (StartupStep.Tag tag : step.getTags()) {
      if (tag.getKey().equals("beanName") || tag.getKey().equals("postProcessor")) {
        what.append(' ').append(tag.getValue());
      }
    }
    return what.toString();
  }

  private record Step(String what, long selfNanos, long totalNanos) {}
}
