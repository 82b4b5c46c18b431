package io.gpuq.launch;

import org.junit.jupiter.api.DisplayName;

@DisplayName("Workers started with posix_spawn")
class PosixSpawnWorkerLauncherTest extends WorkerLauncherContract {

  @Override
  SpawnMechanism mechanism() {
    return SpawnMechanism.POSIX_SPAWN;
  }
}
