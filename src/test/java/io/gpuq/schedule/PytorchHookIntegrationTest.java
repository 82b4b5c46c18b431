package io.gpuq.schedule;

import static io.gpuq.support.JobJson.aJob;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.gpuq.support.IntegrationTest;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("A pytorch job gets its budget applied by gpuq's hook, without changes to its code")
class PytorchHookIntegrationTest extends IntegrationTest {

  /** A stand-in for torch.cuda: queues _lazy_call work until init(), records fraction calls. */
  private static final String FAKE_TORCH_CUDA =
      """
      import os
      _initialized = False
      _queued = []

      def _record(line):
          with open(os.environ["FAKE_CALLS"], "a") as calls:
              calls.write(line + "\\n")

      def is_initialized():
          return _initialized

      def device_count():
          visible = os.environ.get("CUDA_VISIBLE_DEVICES", "")
          return len(visible.split(",")) if visible else 0

      def set_per_process_memory_fraction(fraction, device=None):
          _record("fraction %s device %d" % (fraction, device))

      def _lazy_call(callable, **kwargs):
          if _initialized:
              callable()
          else:
              _queued.append(callable)

      def init():
          global _initialized
          _initialized = True
          _record("init")
          for call in _queued:
              call()
      """;

  @Test
  void the_fraction_is_set_on_each_visible_device_when_cuda_initialises() throws Exception {
    Path project = Files.createTempDirectory(dataDir(), "torch-project-");
    Files.createDirectories(project.resolve("torch/cuda"));
    Files.writeString(project.resolve("torch/__init__.py"), "from torch import cuda\n");
    Files.writeString(project.resolve("torch/cuda/__init__.py"), FAKE_TORCH_CUDA);
    Path calls = project.resolve("calls.txt");

    String id =
        alice.submit(
            aJob()
                .command(
                    "python3",
                    "-c",
                    "import torch; print('imported'); torch.cuda.init(); print('initialised')")
                .workingDir(project.toString())
                .env("FAKE_CALLS", calls.toString())
                .framework("pytorch")
                .gpus(1)
                .gpuMemory("4GiB")
                .json());

    await().atMost(Duration.ofSeconds(20)).until(() -> alice.state(id).equals("SUCCEEDED"));
    assertThat(Files.readAllLines(calls)).containsExactly("init", "fraction 0.25 device 0");
    assertThat(alice.get("/api/v1/jobs/" + id + "/logs").body())
        .isEqualTo("imported\ninitialised\n");
  }
}
