package io.gpuq.api;

import static io.gpuq.support.JobJson.aJob;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.gpuq.support.IntegrationTest;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("A worker's runtimes get as many threads as the job has cores")
class ThreadCountsIntegrationTest extends IntegrationTest {

  private static final Duration SOON = Duration.ofSeconds(60);

  private String outputOf(String id) {
    await().atMost(SOON).until(() -> alice.state(id).equals("SUCCEEDED"));
    return alice.get("/api/v1/jobs/" + id + "/logs").body();
  }

  private static boolean pythonHasTorch() throws Exception {
    Process probe =
        new ProcessBuilder("python3", "-c", "import torch")
            .redirectOutput(ProcessBuilder.Redirect.DISCARD)
            .redirectError(ProcessBuilder.Redirect.DISCARD)
            .start();
    return probe.waitFor(120, TimeUnit.SECONDS) && probe.exitValue() == 0;
  }

  @Test
  void every_thread_count_is_the_cores_and_one_the_job_sets_itself_wins() {
    String id =
        alice.submit(
            aJob()
                .cpus(3)
                .env("MKL_NUM_THREADS", "1")
                .command(
                    "python3",
                    "-c",
                    "import os; print(' '.join(os.environ.get(n, '-') for n in ['OMP_NUM_THREADS',"
                        + " 'MKL_NUM_THREADS', 'OPENBLAS_NUM_THREADS', 'TF_NUM_INTRAOP_THREADS',"
                        + " 'TF_NUM_INTEROP_THREADS']))")
                .json());

    assertThat(outputOf(id)).isEqualTo("3 1 3 3 3\n");
  }

  @Test
  void real_pytorch_on_cpu_runs_as_many_intra_op_threads_as_the_job_has_cores() throws Exception {
    assumeTrue(pythonHasTorch(), "PyTorch is not installed for python3 (.ci/run installs it)");
    String two =
        alice.submit(
            aJob()
                .cpus(2)
                .framework("pytorch")
                .command("python3", "-c", "import torch; print(torch.get_num_threads())")
                .json());
    String one =
        alice.submit(
            aJob()
                .cpus(2)
                .framework("pytorch")
                .env("OMP_NUM_THREADS", "1")
                .command("python3", "-c", "import torch; print(torch.get_num_threads())")
                .json());

    assertThat(outputOf(two)).isEqualTo("2\n");
    assertThat(outputOf(one)).isEqualTo("1\n");
  }
}
