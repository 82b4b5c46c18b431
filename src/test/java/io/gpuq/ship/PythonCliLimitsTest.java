package io.gpuq.ship;

import io.gpuq.GpuqApplication;
import io.gpuq.support.IntegrationTier;
import io.gpuq.support.TestAccounts;
import io.gpuq.support.TestCores;
import io.gpuq.support.TestDataDirs;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * Runs clients/python/test_cli_limits.py against a gpuq of its own, where alice may run one job and
 * queue one (issue 26): the {@code gpuq} command shows a job held at her limit as {@code Limit},
 * and a submission past {@code max-queued-jobs} prints the 429's detail and exits 3. The shared
 * test gpuq has no limits, which its other tests rely on.
 */
@IntegrationTier
@DisplayName("the gpuq command at an owner's limits")
class PythonCliLimitsTest {

  private static final String ALICE = "limited-alice-0123456789";
  private static final long TIMEOUT_SECONDS = 180;

  @Test
  void unittestPasses() throws IOException, InterruptedException {
    Path dataDir = TestDataDirs.fresh("cli-limits-");
    List<String> args = new ArrayList<>();
    args.add("--server.port=0");
    args.add("--gpuq.node-name=limits-node");
    args.add("--gpuq.data-dir=" + dataDir);
    args.add("--gpuq.gpu.backend=emulated");
    args.add("--gpuq.worker.allow-shared-account=true");
    args.add(TestAccounts.runAsSelfArgument());
    args.addAll(TestCores.argumentsBeside());
    args.add("--gpuq.auth.tokens[0].name=alice");
    args.add("--gpuq.auth.tokens[0].token=" + ALICE);
    args.add("--gpuq.auth.tokens[0].max-running-jobs=1");
    args.add("--gpuq.auth.tokens[0].max-queued-jobs=1");
    try (ConfigurableApplicationContext gpuq =
        new SpringApplicationBuilder(GpuqApplication.class).run(args.toArray(String[]::new))) {
      String port = gpuq.getEnvironment().getProperty("local.server.port");
      PythonUnittest.passes(
          "clients/python/test_cli_limits.py",
          dataDir,
          Map.of("GPUQ_URL", "http://127.0.0.1:" + port, "GPUQ_TOKEN", ALICE),
          TIMEOUT_SECONDS);
    }
  }
}
