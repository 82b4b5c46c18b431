package io.gpuq.bench;

import io.gpuq.GpuqApplication;
import io.gpuq.job.AttemptEnd;
import io.gpuq.job.AttemptOutcome;
import io.gpuq.job.Framework;
import io.gpuq.job.HostResources;
import io.gpuq.job.JobIds;
import io.gpuq.job.JobPlacement;
import io.gpuq.job.JobSpec;
import io.gpuq.job.JobState;
import io.gpuq.job.JobStore;
import io.gpuq.job.NewJob;
import io.gpuq.job.Preemption;
import io.gpuq.job.SweepTrial;
import io.gpuq.placement.MemoryDemand;
import io.gpuq.reported.MetricsUpdate;
import io.gpuq.reported.ReadingState;
import io.gpuq.reported.ReportedPoint;
import io.gpuq.reported.SweepObjective;
import io.gpuq.schedule.TrialPruning;
import io.gpuq.support.PostgresDatabase;
import io.gpuq.support.PostgresSupport;
import io.gpuq.support.TestAccounts;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * What enforcing early stopping costs a node for one large sweep: {@code trials} trials (half
 * completed, half running on this node), each with {@code points} reported values, in a real gpuq
 * (this JVM, H2 or PostgreSQL). One judgement reads the sweep's series (only the metric) and asks
 * the median rule about every running trial; none is pruned (the running ones are ahead), so every
 * round judges the same sweep. Also times finding this node's reporting jobs, done every poll.
 *
 * <p>Usage: {@code bench/run TrialMetricsBench [trials=1000] [points=100] [rounds=20]
 * [databases=h2,postgres]}
 */
public final class TrialMetricsBench {

  public static void main(String[] args) throws Exception {
    Map<String, String> settings = new HashMap<>();
    for (String arg : args) {
      String[] pair = arg.split("=", 2);
      settings.put(pair[0], pair[1]);
    }
    int trials = Integer.parseInt(settings.getOrDefault("trials", "1000"));
    int points = Integer.parseInt(settings.getOrDefault("points", "100"));
    int rounds = Integer.parseInt(settings.getOrDefault("rounds", "20"));
    List<String> databases = Arrays.asList(settings.getOrDefault("databases", "h2").split(","));
    System.out.printf(
        "TrialMetricsBench: trials=%,d points=%,d rounds=%d, %d CPUs, load average %s%n",
        trials,
        points,
        rounds,
        Runtime.getRuntime().availableProcessors(),
        Files.readString(Path.of("/proc/loadavg")).strip());
    Path root =
        Files.createTempDirectory(
            Files.createDirectories(Path.of("target/bench-data")).toAbsolutePath(), "trials-");
    for (String database : databases) {
      run(database, trials, points, rounds, root.resolve(database));
    }
    System.exit(0); // the embedded PostgreSQL's shutdown hook stops it
  }

  private static void run(String database, int trials, int points, int rounds, Path dataDir)
      throws Exception {
    List<String> args = new ArrayList<>();
    if (database.equals("postgres")) {
      PostgresDatabase pg = PostgresSupport.freshDatabase();
      args.add("--spring.profiles.active=postgres");
      args.add("--GPUQ_DB_URL=" + pg.jdbcUrl());
      args.add("--GPUQ_DB_USER=" + pg.username());
      args.add("--GPUQ_DB_PASSWORD=" + pg.password());
    }
    args.addAll(
        List.of(
            "--server.port=0",
            "--gpuq.data-dir=" + dataDir,
            "--gpuq.node-name=bench",
            "--gpuq.gpu.backend=emulated",
            "--gpuq.scheduler.cpu-slots=0",
            // The metrics duty stays out of the measurement.
            "--gpuq.gpu.poll-interval=1h",
            "--gpuq.auth.tokens[0].name=bench",
            "--gpuq.auth.tokens[0].token=trial-metrics-bench-token",
            "--gpuq.auth.tokens[0].role=ADMIN",
            TestAccounts.runAsSelfArgument(),
            "--logging.level.root=WARN"));
    ConfigurableApplicationContext context =
        new SpringApplicationBuilder(GpuqApplication.class).run(args.toArray(String[]::new));
    try {
      JobStore store = context.getBean(JobStore.class);
      String sweepId = "01BENCHSWEEP00000000000000";
      context
          .getBean(JdbcTemplate.class)
          .update(
              "insert into sweeps (id, owner, name, method, definition, metric_name,"
                  + " metric_goal, early_stopping, trial_count, closed, created_at, version)"
                  + " values (?, 'bench', 'bench', 'grid', '{}', 'loss', 'minimize', ?, ?, true,"
                  + " ?, 0)",
              sweepId,
              "{\"type\":\"median\",\"startupTrials\":5}",
              trials,
              Instant.now().atOffset(ZoneOffset.UTC));
      long seedStart = System.nanoTime();
      seed(store, sweepId, trials, points);
      System.out.printf(
          "%s: seeded %,d trials x %,d points in %.1f s%n",
          database, trials, points, (System.nanoTime() - seedStart) / 1e9);
      TrialPruning pruning = context.getBean(TrialPruning.class);
      SweepObjective sweep =
          new SweepObjective(
              sweepId, "loss", "minimize", "{\"type\":\"median\",\"startupTrials\":5}");
      double[] judge = new double[rounds];
      double[] reporting = new double[rounds];
      double[] series = new double[rounds];
      for (int round = 0; round < rounds; round++) {
        long t0 = System.nanoTime();
        pruning.judge(sweep);
        judge[round] = (System.nanoTime() - t0) / 1e6;
        t0 = System.nanoTime();
        store.sweepSeries(sweepId, "loss");
        series[round] = (System.nanoTime() - t0) / 1e6;
        t0 = System.nanoTime();
        int found = store.jobsReportingOn("bench").size();
        reporting[round] = (System.nanoTime() - t0) / 1e6;
        if (found < trials / 2) {
          throw new IllegalStateException("only " + found + " jobs reporting");
        }
      }
      long pruned = store.countByState().get(JobState.PRUNED);
      System.out.printf(
          "%s: one judgement of the sweep (series + median rule for %,d running trials):"
              + " median %.1f ms, max %.1f ms, of which reading the series: median %.1f ms;"
              + " this node's reporting jobs: median %.1f ms;"
              + " pruned %d (expected 0)%n",
          database,
          trials - trials / 2,
          median(judge),
          Arrays.stream(judge).max().orElse(0),
          median(series),
          median(reporting),
          pruned);
    } finally {
      context.close();
    }
  }

  /** Half the trials completed with a worse loss, half running ahead of them: none is pruned. */
  private static void seed(JobStore store, String sweepId, int trials, int points) {
    JobIds ids = new JobIds(Clock.systemUTC());
    JobSpec spec =
        new JobSpec(
            "trial",
            List.of("true"),
            null,
            Map.of(),
            Framework.GENERIC,
            0,
            MemoryDemand.of(null, null),
            HostResources.ONE_CORE,
            0,
            null,
            1,
            1.5,
            Map.of(),
            Map.of(),
            List.of(),
            Preemption.NONE,
            null);
    Instant now = Instant.now();
    for (int trial = 0; trial < trials; trial++) {
      String id = ids.next();
      store.submit(
          new NewJob(
              id,
              "bench",
              spec,
              null,
              new SweepTrial(sweepId, trial, "{}"),
              now,
              List.of(),
              false,
              List.of()));
      store.claim(Map.of(id, JobPlacement.cpuOnly("bench")), now);
      boolean completed = trial % 2 == 0;
      double offset = completed ? 0.5 : 0.0;
      List<ReportedPoint> reported = new ArrayList<>(points);
      for (int step = 1; step <= points; step++) {
        reported.add(new ReportedPoint(1, step, Map.of("loss", offset + 1.0 / step), now));
      }
      store.recordMetrics(
          new MetricsUpdate(
              id,
              1,
              reported,
              List.of(),
              false,
              new ReadingState(points * 30L, points, false, 0),
              Map.of("loss", offset + 1.0 / points),
              (long) points,
              offset + 1.0 / points,
              offset + 1.0 / points,
              false));
      if (completed) {
        store.endAttempt(new AttemptEnd(id, 1, AttemptOutcome.succeeded(), 0, now)).join();
      }
    }
  }

  private static double median(double[] values) {
    double[] sorted = values.clone();
    Arrays.sort(sorted);
    return sorted[sorted.length / 2];
  }
}
