package io.gpuq.bench;

import java.io.IOException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordedStackTrace;
import jdk.jfr.consumer.RecordingFile;

/**
 * A plain-text summary of a JFR recording of the server: where its Java threads were sampled (per
 * thread group, per library, per gpuq method on the stack, per leaf method), and what native calls
 * gpuq's own code sat in (process spawning does not show in Java samples).
 *
 * <p>Also runnable on its own: {@code bench/run JfrHotSpots FILE.jfr}.
 */
final class JfrHotSpots {

  /** Checked leaf first: a sample counts for the innermost library it is in. */
  private static final List<String[]> LIBRARIES =
      List.of(
          new String[] {"java.lang.ProcessImpl", "process spawn (JDK)"},
          new String[] {"java.lang.ProcessBuilder", "process spawn (JDK)"},
          new String[] {"org.h2.", "H2"},
          new String[] {"org.hibernate.", "Hibernate"},
          new String[] {"com.zaxxer.hikari.", "Hikari"},
          new String[] {"tools.jackson.", "Jackson"},
          new String[] {"com.fasterxml.jackson.", "Jackson"},
          new String[] {"org.springframework.security.", "Spring Security"},
          new String[] {"org.springframework.orm.", "Spring JPA/tx"},
          new String[] {"org.springframework.transaction.", "Spring JPA/tx"},
          new String[] {"org.springframework.data.", "Spring Data"},
          new String[] {"org.springframework.", "Spring (web, other)"},
          new String[] {"org.apache.catalina.", "Tomcat"},
          new String[] {"org.apache.coyote.", "Tomcat"},
          new String[] {"org.apache.tomcat.", "Tomcat"},
          new String[] {"io.micrometer.", "Micrometer"},
          new String[] {"ch.qos.logback.", "Logback"},
          new String[] {"org.slf4j.", "Logback"},
          new String[] {"io.gpuq.", "gpuq (own code)"});

  public static void main(String[] args) throws IOException {
    print(Path.of(args[0]), args.length > 1 ? Integer.parseInt(args[1]) : 15);
  }

  static void print(Path recording, int top) throws IOException {
    Map<String, Integer> byThread = new HashMap<>();
    Map<String, Integer> byLibrary = new HashMap<>();
    Map<String, Integer> byGpuqMethod = new HashMap<>();
    Map<String, Integer> byLeaf = new HashMap<>();
    Map<String, Integer> nativeInGpuq = new HashMap<>();
    int samples = 0;
    int nativeSamples = 0;
    for (RecordedEvent event : RecordingFile.readAllEvents(recording)) {
      String type = event.getEventType().getName();
      RecordedStackTrace stack = event.getStackTrace();
      if (stack == null || stack.getFrames().isEmpty()) {
        continue;
      }
      List<RecordedFrame> frames = stack.getFrames();
      if (type.equals("jdk.ExecutionSample")) {
        samples++;
        String thread = event.getThread("sampledThread").getJavaName();
        byThread.merge(CpuSnapshot.group(thread), 1, Integer::sum);
        byLibrary.merge(library(frames), 1, Integer::sum);
        byLeaf.merge(method(frames.get(0)), 1, Integer::sum);
        gpuqMethods(frames).forEach(m -> byGpuqMethod.merge(m, 1, Integer::sum));
      } else if (type.equals("jdk.NativeMethodSample")) {
        Set<String> gpuq = gpuqMethods(frames);
        if (!gpuq.isEmpty()) {
          nativeSamples++;
          nativeInGpuq.merge(
              method(frames.get(0)) + "  <- " + gpuq.iterator().next(), 1, Integer::sum);
        }
      }
    }
    System.out.printf("JFR %s: %d Java execution samples%n", recording, samples);
    table("by thread group", byThread, samples, top);
    table("by library (innermost on the stack)", byLibrary, samples, top);
    table("by gpuq method anywhere on the stack (inclusive)", byGpuqMethod, samples, top);
    table("by leaf method (self)", byLeaf, samples, top);
    System.out.printf(
        "%nnative-method samples with gpuq code on the stack: %d (threads blocked or working in"
            + " native code, e.g. fork/exec; innermost gpuq frame shown)%n",
        nativeSamples);
    table("native leaf <- gpuq caller", nativeInGpuq, nativeSamples, top);
  }

  private static void table(String title, Map<String, Integer> counts, int total, int top) {
    System.out.printf("%n  %s%n", title);
    counts.entrySet().stream()
        .sorted((a, b) -> b.getValue() - a.getValue())
        .limit(top)
        .forEach(
            e ->
                System.out.printf(
                    "    %5.1f%%  %5d  %s%n",
                    100.0 * e.getValue() / Math.max(1, total), e.getValue(), e.getKey()));
  }

  private static String library(List<RecordedFrame> frames) {
    for (RecordedFrame frame : frames) {
      String cls = frame.getMethod().getType().getName();
      for (String[] library : LIBRARIES) {
        if (cls.startsWith(library[0])) {
          return library[1];
        }
      }
    }
    return "JDK / other";
  }

  /** gpuq's methods on the stack, innermost first, each once. */
  private static Set<String> gpuqMethods(List<RecordedFrame> frames) {
    Set<String> methods = new LinkedHashSet<>();
    for (RecordedFrame frame : frames) {
      String cls = frame.getMethod().getType().getName();
      if (cls.startsWith("io.gpuq.") && !generated(cls)) {
        methods.add(method(frame));
      }
    }
    return methods;
  }

  /** Lambdas and Spring proxies: they only repeat the method that follows on the stack. */
  private static boolean generated(String cls) {
    String simple = cls.substring(cls.lastIndexOf('.') + 1);
    return cls.contains("$$") || simple.isEmpty() || Character.isDigit(simple.charAt(0));
  }

  private static String method(RecordedFrame frame) {
    String cls = frame.getMethod().getType().getName();
    return cls.substring(cls.lastIndexOf('.') + 1) + "." + frame.getMethod().getName();
  }
}
