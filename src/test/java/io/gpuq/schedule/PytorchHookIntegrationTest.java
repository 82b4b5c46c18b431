package io.gpuq.schedule;

import static io.gpuq.support.JobJson.aJob;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.gpuq.launch.env.PythonHookTest;
import io.gpuq.support.IntegrationTest;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("A pytorch job gets its budget applied by gpuq's hook, without changes to its code")
class PytorchHookIntegrationTest extends IntegrationTest {

  @Test
  void the_fraction_is_set_on_each_visible_device_when_cuda_initialises() throws Exception {
    Path project = Files.createTempDirectory(dataDir(), "torch-project-");
    Files.createDirectories(project.resolve("torch/cuda"));
    Files.writeString(project.resolve("torch/__init__.py"), PythonHookTest.FAKE_TORCH_INIT);
    Files.writeString(project.resolve("torch/cuda/__init__.py"), PythonHookTest.FAKE_TORCH_CUDA);
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
