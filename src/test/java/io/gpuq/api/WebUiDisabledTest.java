package io.gpuq.api;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpuq.support.GpuqProcess;
import io.gpuq.support.HttpApi;
import io.gpuq.support.IntegrationTier;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@IntegrationTier
@DisplayName("gpuq.ui.enabled=false leaves only the API")
class WebUiDisabledTest {

  private static final String TOKEN = "ui-disabled-token-0123456789";

  @Test
  @DisplayName("no page, no redirect, nothing open without a token; the API works as before")
  void the_page_is_gone_and_its_paths_need_a_token_like_any_other() throws Exception {
    Path dataDir =
        Files.createTempDirectory(
            Files.createDirectories(Path.of("target/test-data")).toAbsolutePath(), "ui-off-");
    try (GpuqProcess gpuq = GpuqProcess.start(dataDir, TOKEN, "--gpuq.ui.enabled=false")) {
      HttpApi anonymous = gpuq.api(null);
      HttpApi admin = gpuq.api(TOKEN);

      assertThat(anonymous.get("/ui/").status()).isEqualTo(401);
      assertThat(anonymous.get("/ui/app.js").status()).isEqualTo(401);
      assertThat(anonymous.get("/").status()).isEqualTo(401);
      assertThat(admin.get("/ui/app.js").status()).isEqualTo(404);
      assertThat(admin.get("/").status()).isEqualTo(404);
      assertThat(admin.get("/api/v1/jobs").status()).isEqualTo(200);
    }
  }
}
