package io.gpuq.bench;

import static io.gpuq.job.JobBuilder.aQueuedJob;

import io.gpuq.GpuqApplication;
import io.gpuq.job.JobBuilder;
import io.gpuq.job.JobStore;
import io.gpuq.job.SweepTrial;
import io.gpuq.support.SweepRows;
import io.gpuq.support.TestAccounts;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * Whether a sweep's trials start as fast as single jobs: one gpuq (in this JVM, H2, 8 CPU slots)
 * runs N jobs of {@code true}, stored queued at once, as single jobs, as the trials of one sweep
 * without a limit, and as the trials of one sweep with {@code maxConcurrent} = the slots (so the
 * limit is checked at every claim and binds as often as the slots do). Starts/s = N / time from the
 * first start to the last, from the attempts' {@code started_at}; the ratio is each kind's rate
 * over the single jobs'. Rounds alternate the kinds, so that drift of the machine falls on all of
 * them.
 *
 * <p>{@code bench/run SweepStartBench [jobs=1000] [rounds=2] [slots=8]}
 */
public final class SweepStartBench {

  private enum Kind {
    SINGLE_JOBS,
    TRIALS_NO_LIMIT,
    TRIALS_LIMITED
  }

  public static void main(String[] args) throws Exception {
    BenchArgs given = new BenchArgs(args);
    int jobs = given.getInt("jobs", 1000);
    int rounds = given.getInt("rounds", 2);
    int slots = given.getInt("slots", 8);
    given.requireAllRead();

    Path dataDir = Files.createTempDirectory("sweep-start-bench-");
    try (ConfigurableApplicationContext gpuq =
        new SpringApplicationBuilder(GpuqApplication.class)
            .run(
                "--server.port=0",
                "--gpuq.data-dir=" + dataDir,
                "--gpuq.node-name=bench",
                "--gpuq.gpu.backend=emulated",
                "--gpuq.auth.tokens[0].name=bench",
                "--gpuq.auth.tokens[0].token=" + GpuqServer.TOKEN,
                "--gpuq.auth.tokens[0].role=ADMIN",
                TestAccounts.runAsSelfArgument(),
                "--gpuq.scheduler.cpu-slots=" + slots,
                "--logging.level.io.gpuq=WARN")) {
      JobStore store = gpuq.getBean(JobStore.class);
      DataSource dataSource = gpuq.getBean(DataSource.class);
      JdbcTemplate jdbc = new JdbcTemplate(dataSource);
      SweepRows sweeps = new SweepRows(dataSource);

      run(Kind.SINGLE_JOBS, Math.min(200, jobs), slots, store, sweeps, jdbc); // warm-up
      Map<Kind, List<Double>> rates = new java.util.EnumMap<>(Kind.class);
      for (int round = 0; round < rounds; round++) {
        for (Kind kind : Kind.values()) {
          double rate = run(kind, jobs, slots, store, sweeps, jdbc);
          rates.computeIfAbsent(kind, k -> new ArrayList<>()).add(rate);
          System.out.printf("round %d %-16s %8.1f starts/s%n", round + 1, kind, rate);
        }
      }
      double single = median(rates.get(Kind.SINGLE_JOBS));
      System.out.printf(
          "%n%d jobs of `true`, %d CPU slots, H2, median of %d rounds%n", jobs, slots, rounds);
      for (Kind kind : Kind.values()) {
        double rate = median(rates.get(kind));
        System.out.printf(
            "%-16s %8.1f starts/s  ratio to single jobs %.2f%n", kind, rate, rate / single);
      }
    } finally {
      GpuqServer.deleteTree(dataDir);
    }
  }

  /** Stores {@code jobs} queued jobs of one kind, waits until all have ended; their starts/s. */
  private static double run(
      Kind kind, int jobs, int slots, JobStore store, SweepRows sweeps, JdbcTemplate jdbc)
      throws InterruptedException {
    String sweep =
        switch (kind) {
          case SINGLE_JOBS -> null;
          case TRIALS_NO_LIMIT -> sweeps.sweep(null, null);
          case TRIALS_LIMITED -> sweeps.sweep(slots, null);
        };
    String batch = "b" + System.nanoTime();
    for (int n = 0; n < jobs; n++) {
      JobBuilder job =
          aQueuedJob()
              .ownedBy("bench")
              .at(java.time.Instant.now())
              .spec(s -> s.name(batch).command("true").gpus(0));
      if (sweep != null) {
        job.trialOf(new SweepTrial(sweep, n, "{}"));
      }
      job.in(store);
    }
    // Stored past the scheduler's back: its safety net (2 s) finds them, then each end wakes it.
    while (jdbc.queryForObject(
            "select count(*) from jobs where name = ? and state in ('QUEUED', 'RUNNING')",
            Long.class,
            batch)
        > 0) {
      Thread.sleep(100);
    }
    return jdbc.queryForObject(
        "select min(a.started_at), max(a.started_at), count(*) from job_attempts a"
            + " join jobs j on j.id = a.job_id where j.name = ?",
        (row, n) -> {
          Duration span =
              Duration.between(
                  row.getObject(1, OffsetDateTime.class), row.getObject(2, OffsetDateTime.class));
          return (row.getLong(3) - 1) / (span.toNanos() / 1e9);
        },
        batch);
  }

  private static double median(List<Double> values) {
    List<Double> sorted = values.stream().sorted().toList();
    int n = sorted.size();
    return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
  }
}
