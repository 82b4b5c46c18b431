package io.gpuq;

import io.gpuq.startup.IndexedStart;
import io.gpuq.startup.OutOfMemoryExit;
import java.net.URL;
import java.security.CodeSource;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

@SpringBootApplication
public class GpuqApplication {

  /** Set by {@code -Dspring.aot.enabled=...}, this decides; unset, {@link #main} decides. */
  static final String AOT_ENABLED = "spring.aot.enabled";

  public static void main(String[] args) throws Throwable {
    // First: an OutOfMemoryError in any thread ends gpuq rather than leaving it half alive.
    OutOfMemoryExit.installAsDefaultHandler();
    if (IndexedStart.applies(GpuqApplication.class)) {
      // Before Spring loads its first class: see PackageIndexedClassLoader.
      IndexedStart.runAgainIndexed(GpuqApplication.class, args);
      return;
    }
    if (System.getProperty(AOT_ENABLED) == null && runsFromAJar(GpuqApplication.class)) {
      System.setProperty(AOT_ENABLED, "true");
    }
    SpringApplication.run(GpuqApplication.class, args);
  }

  /**
   * Whether the class was loaded from a jar, which the build makes together with the bean
   * definitions generated ahead of time (the pom's {@code process-aot}): using them saves about a
   * quarter of the start-up's CPU time (docs/benchmarks.md). From a directory of classes (an IDE,
   * {@code spring-boot:run}, tests) they may be left over from an older build, so they are not
   * used.
   */
  static boolean runsFromAJar(Class<?> type) {
    CodeSource source = type.getProtectionDomain().getCodeSource();
    URL location = source == null ? null : source.getLocation();
    if (location == null) {
      return false;
    }
    String url = location.toString();
    return url.startsWith("jar:") || url.startsWith("nested:") || url.endsWith(".jar");
  }
}
