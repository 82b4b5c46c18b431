package io.gpuq.recovery;

import static io.gpuq.support.JobJson.aJob;
import static org.assertj.core.api.Assertions.assertThat;

import io.gpuq.support.GpuqProcess;
import io.gpuq.support.HttpApi;
import io.gpuq.support.IntegrationTier;
import io.gpuq.support.JobJson;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * Issue 24: an OutOfMemoryError in H2's writer left gpuq half alive for 10 minutes and its database
 * corrupted. Here a gpuq with a heap too small for its load, started with the JVM options the
 * README's command gives it, takes large (but allowed) submissions from many clients at once, each
 * stored in H2, until its heap runs out. No test hook: ordinary requests exhaust it.
 */
@IntegrationTier
@DisplayName("A gpuq starved of heap while it writes its database")
class HeapExhaustionTest {

  private static final String TOKEN = "heap-token-0123456789";

  /** Enough to start and answer a few clients; far too little for dozens of 400 KB bodies. */
  private static final String HEAP = "-Xmx96m";

  private static final int SMALL_CLIENTS = 4;

  private static final int LARGE_CLIENTS = 64;

  @Test
  @DisplayName(
      "exits at once, and after a restart its database opens with every acknowledged job in it")
  void exitsAtOnceAndLosesNoAcknowledgedJob() throws Exception {
    Path dataDir =
        Files.createTempDirectory(
            Files.createDirectories(Path.of("target/test-data")).toAbsolutePath(), "heap-");
    Queue<String> acknowledged = new ConcurrentLinkedQueue<>();
    AtomicInteger refused = new AtomicInteger();
    GpuqProcess starved =
        GpuqProcess.startWithJvmOptions(
            shippedJvmOptionsWith(HEAP),
            dataDir,
            TOKEN,
            // One job at a time: the load is the API and the database more than processes.
            "--gpuq.scheduler.cpu-slots=1");
    ExecutorService clients = Executors.newFixedThreadPool(SMALL_CLIENTS + LARGE_CLIENTS);
    int exitStatus;
    try {
      HttpApi api = starved.api(TOKEN);
      for (int i = 0; i < 20; i++) {
        acknowledged.add(api.submit(aJob().name("before-" + i).json()));
      }
      String small = aJob().name("small").json();
      String large = largeButAllowedJob().json();
      long loadStarted = System.nanoTime();
      // Ordinary submissions go on all along, so that H2 is writing acknowledged jobs when the heap
      // runs out; the large ones join one by one until it does.
      for (int i = 0; i < SMALL_CLIENTS; i++) {
        clients.execute(() -> submitUntilGone(api, small, acknowledged, refused));
      }
      for (int i = 0; i < LARGE_CLIENTS && !starved.hasExited(); i++) {
        clients.execute(() -> submitUntilGone(api, large, acknowledged, refused));
        Thread.sleep(250);
      }
      exitStatus = starved.awaitExit(Duration.ofMinutes(3));
      System.out.printf(
          "heap exhaustion: gpuq (%s) exited with %d %.1f s into the load; %d submissions"
              + " acknowledged, %d refused%n",
          HEAP,
          exitStatus,
          (System.nanoTime() - loadStarted) / 1e9,
          acknowledged.size(),
          refused.get());
    } finally {
      clients.shutdownNow();
      starved.crash();
    }

    String output = starved.output();
    assertThat(exitStatus).as(output).isEqualTo(3);
    assertThat(output).contains("Terminating due to java.lang.OutOfMemoryError");
    assertThat(acknowledged).hasSizeGreaterThan(20);

    try (GpuqProcess restarted = GpuqProcess.start(dataDir, TOKEN)) {
      HttpApi api = restarted.api(TOKEN);
      List<String> missing = new ArrayList<>();
      for (String id : acknowledged) {
        if (api.get("/api/v1/jobs/" + id).status() != 200) {
          missing.add(id);
        }
      }
      assertThat(missing).as("acknowledged with 201, then lost").isEmpty();
      // Still writable: the database is whole, not merely readable.
      assertThat(api.submit(aJob().name("after").json())).isNotBlank();
    }
  }

  /**
   * The JVM options of the README's {@code ./mvnw spring-boot:run} (the pom's, which {@code
   * ship.ExitOnOutOfMemoryTest} keeps equal to the image's and the README's {@code java -jar}), and
   * {@code heap}.
   */
  private static List<String> shippedJvmOptionsWith(String heap) throws IOException {
    Matcher options =
        Pattern.compile("<jvmArguments>([^<]*)</jvmArguments>")
            .matcher(Files.readString(Path.of("pom.xml")));
    assertThat(options.find()).isTrue();
    List<String> jvm = new ArrayList<>(List.of(options.group(1).trim().split("\\s+")));
    jvm.add(heap);
    return jvm;
  }

  private static void submitUntilGone(
      HttpApi api, String job, Queue<String> acknowledged, AtomicInteger refused) {
    while (!Thread.currentThread().isInterrupted()) {
      try {
        HttpApi.Response answer = api.post("/api/v1/jobs", job);
        if (answer.status() == 201) {
          acknowledged.add(answer.json().get("id").asString());
        } else {
          refused.incrementAndGet();
        }
      } catch (RuntimeException gone) {
        // gpuq is gone (or going): an answer never received is no acknowledgement.
        return;
      }
    }
  }

  /** About 400 KB of command and environment, each under its own limit (docs/api.md). */
  private static JobJson largeButAllowedJob() {
    List<String> argv = new ArrayList<>();
    argv.add("true");
    for (int i = 0; i < 800; i++) {
      argv.add("a".repeat(250));
    }
    JobJson job = aJob().name("large").command(argv.toArray(String[]::new));
    for (int i = 0; i < 200; i++) {
      job.env("V" + i, "v".repeat(1000));
    }
    return job;
  }
}
