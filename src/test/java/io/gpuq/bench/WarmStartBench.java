package io.gpuq.bench;

import io.gpuq.GpuqApplication;
import io.gpuq.support.TestAccounts;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import tools.jackson.databind.JsonNode;

/**
 * The per-trial start cost of issue 36: from a trial's claim (its attempt's {@code startedAt}) to
 * the first line of user code after its imports, cold and warm ({@code preload}), one trial at a
 * time, for a module that takes 2 s of CPU to import and for {@code import torch, gymnasium}
 * ({@code torch} alone where gymnasium is missing; skipped where torch is). The first warm trial
 * also starts its zygote and is shown apart.
 *
 * <p>{@code bench/run WarmStartBench [trials=6] [python=python3] [sets=slow,torch]}
 */
public final class WarmStartBench {

  private static final HttpClient HTTP =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

  public static void main(String[] args) throws Exception {
    BenchArgs given = new BenchArgs(args);
    int trials = given.getInt("trials", 6);
    String python = given.get("python", "python3");
    List<String> sets = List.of(given.get("sets", "slow,torch").split(","));
    given.requireAllRead();

    Path dataDir = Files.createTempDirectory("warm-start-bench-");
    Path scripts = Files.createDirectories(dataDir.resolve("scripts"));
    Files.writeString(
        scripts.resolve("slow2s.py"),
        "import time\nt = time.process_time()\nwhile time.process_time() - t < 2:\n    pass\n");
    int cores = Runtime.getRuntime().availableProcessors();
    try (ConfigurableApplicationContext gpuq =
        new SpringApplicationBuilder(GpuqApplication.class)
            .run(
                "--server.port=0",
                "--gpuq.data-dir=" + dataDir.resolve("data"),
                "--gpuq.node-name=bench",
                "--gpuq.gpu.backend=emulated",
                "--gpuq.auth.tokens[0].name=bench",
                "--gpuq.auth.tokens[0].token=" + GpuqServer.TOKEN,
                "--gpuq.auth.tokens[0].role=ADMIN",
                TestAccounts.runAsSelfArgument(),
                "--gpuq.scheduler.cpu-slots=" + cores,
                "--logging.level.io.gpuq=WARN")) {
      String base =
          "http://localhost:" + gpuq.getEnvironment().getProperty("local.server.port") + "/api/v1";
      System.out.printf(
          "%-18s %-5s %10s %12s %12s%n", "modules", "way", "first ms", "median ms", "max ms");
      for (String set : sets) {
        List<String> modules =
            switch (set) {
              case "slow" -> List.of("slow2s");
              case "torch" ->
                  importable(python, "torch, gymnasium")
                      ? List.of("torch", "gymnasium")
                      : importable(python, "torch") ? List.of("torch") : List.of();
              default -> throw new IllegalArgumentException("no set " + set);
            };
        if (modules.isEmpty()) {
          System.out.printf("%-18s skipped: torch is not installed for %s%n", set, python);
          continue;
        }
        Path script = scripts.resolve("first_" + set + ".py");
        Files.writeString(
            script,
            "import os, time\n"
                + "import "
                + String.join(", ", modules)
                + "\n"
                + "open(os.environ['OUT'], 'w').write(repr(time.time()))\n");
        for (boolean warm : List.of(false, true)) {
          List<Double> millis = new ArrayList<>();
          for (int i = 0; i < trials; i++) {
            Path out = scripts.resolve("out-" + set + "-" + warm + "-" + i);
            millis.add(oneTrial(base, python, script, modules, warm, out));
          }
          List<Double> rest = millis.subList(1, millis.size()).stream().sorted().toList();
          System.out.printf(
              "%-18s %-5s %10.0f %12.0f %12.0f%n",
              String.join(",", modules),
              warm ? "warm" : "cold",
              millis.get(0),
              rest.get(rest.size() / 2),
              rest.get(rest.size() - 1));
        }
      }
      System.out.printf(
          "%ncores %d, load average %s%n",
          cores, Files.readString(Path.of("/proc/loadavg")).trim());
    } finally {
      GpuqServer.deleteTree(dataDir);
    }
  }

  /** Claim to first line after the imports, in ms, of one job run alone. */
  private static double oneTrial(
      String base, String python, Path script, List<String> modules, boolean warm, Path out)
      throws Exception {
    String body =
        """
        {"command": ["%s", "%s"], "workingDir": "%s", "resources": {"gpus": 0},
         "env": {"OUT": "%s"}%s}
        """
            .formatted(
                python,
                script.getFileName(),
                script.getParent(),
                out,
                warm ? ", \"preload\": " + BenchClient.JSON.writeValueAsString(modules) : "");
    String id = send("POST", base + "/jobs", body).get("id").asString();
    JsonNode job = send("GET", base + "/jobs/" + id, null);
    long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(3);
    while (!List.of("SUCCEEDED", "FAILED", "CANCELLED").contains(job.get("state").asString())) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("job " + id + " did not end in 3 minutes");
      }
      TimeUnit.MILLISECONDS.sleep(20); // polling gpuq as a client would; not a test's wait
      job = send("GET", base + "/jobs/" + id, null);
    }
    if (!job.get("state").asString().equals("SUCCEEDED")) {
      throw new IllegalStateException("job " + id + " ended " + job);
    }
    Instant claimed = Instant.parse(job.at("/attempts/0/startedAt").asString());
    double firstLine = Double.parseDouble(Files.readString(out).trim());
    return firstLine * 1000 - claimed.toEpochMilli();
  }

  private static boolean importable(String python, String modules) throws Exception {
    Process process =
        new ProcessBuilder(python, "-c", "import " + modules)
            .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")))
            .redirectOutput(ProcessBuilder.Redirect.DISCARD)
            .redirectError(ProcessBuilder.Redirect.DISCARD)
            .start();
    if (!process.waitFor(60, TimeUnit.SECONDS)) {
      process.destroyForcibly();
      return false;
    }
    return process.exitValue() == 0;
  }

  private static JsonNode send(String method, String url, String body)
      throws IOException, InterruptedException {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(URI.create(url))
            .timeout(Duration.ofSeconds(30))
            .header("Authorization", "Bearer " + GpuqServer.TOKEN)
            .header("Content-Type", "application/json");
    request.method(
        method,
        body == null
            ? HttpRequest.BodyPublishers.noBody()
            : HttpRequest.BodyPublishers.ofString(body, StandardCharsets.UTF_8));
    HttpResponse<String> response =
        HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString());
    if (response.statusCode() >= 300) {
      throw new IllegalStateException(method + " " + url + ": " + response.body());
    }
    return BenchClient.JSON.readTree(response.body());
  }

  private WarmStartBench() {}
}
