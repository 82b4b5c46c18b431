package io.gpuq.launch;

import org.junit.jupiter.api.DisplayName;

@DisplayName("Workers started with ProcessBuilder (the fallback)")
class ProcessBuilderWorkerLauncherTest extends WorkerLauncherContract {

  @Override
  SpawnMechanism mechanism() {
    return SpawnMechanism.PROCESS_BUILDER;
  }
}
