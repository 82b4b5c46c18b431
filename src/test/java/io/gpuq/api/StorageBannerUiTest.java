package io.gpuq.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.gpuq.support.Browser;
import io.gpuq.support.GpuqProcess;
import io.gpuq.support.IntegrationTier;
import io.gpuq.support.Tmpfs;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIf;
import org.openqa.selenium.By;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;

/**
 * The admin's page says when gpuq's data directory runs short and who holds its space, from
 * /actuator/health's storage details; an owner's page, which gets no details, says nothing.
 */
@IntegrationTier
@DisplayName("The web page's storage banner, in a real browser")
@EnabledIf(
    value = "io.gpuq.support.Tmpfs#canMount",
    disabledReason = "mounting a tmpfs needs root (CI runs as root)")
class StorageBannerUiTest {

  private static final String ADMIN = "banner-admin-0123456789";
  private static final String ALICE = "banner-alice-0123456789";
  private static final String HOLDER = "01JSTORAGEH0LDER000000000X";
  private static final Duration SOON = Duration.ofSeconds(60);

  private Tmpfs disk;
  private Path dataDir;
  private GpuqProcess gpuq;
  private Browser browser;
  private WebDriver page;

  @BeforeEach
  void startGpuqOnASmallDisk() throws Exception {
    disk = Tmpfs.mount("storage-banner", 64);
    dataDir = disk.root().resolve("data");
    gpuq =
        GpuqProcess.start(
            dataDir,
            ADMIN,
            "--gpuq.storage.min-free=16MiB",
            "--gpuq.storage.check-interval=200ms",
            "--gpuq.worker.allow-shared-account=true",
            "--gpuq.auth.tokens[1].name=alice",
            "--gpuq.auth.tokens[1].token=" + ALICE);
    browser = Browser.start();
    page = browser.driver();
  }

  @AfterEach
  void noConsoleErrorsAndStop() throws Exception {
    try {
      if (browser != null) {
        try {
          // While short, health answers 503 by design (readiness), which the browser logs.
          assertThat(browser.consoleErrors())
              .as("errors in the browser's console")
              .allMatch(e -> e.contains("/actuator/health - ") && e.contains("status of 503"));
        } finally {
          browser.close();
        }
      }
    } finally {
      try {
        gpuq.close();
      } finally {
        disk.close();
      }
    }
  }

  @Test
  void an_admin_sees_the_shortage_and_the_job_holding_the_space_an_owner_sees_no_banner()
      throws Exception {
    signIn(ADMIN);
    // The page has asked and shows nothing while space is left.
    await()
        .atMost(SOON)
        .ignoreExceptions()
        .until(
            () ->
                "true".equals(page.findElement(By.id("storage-low")).getAttribute("data-checked")));
    assertThat(page.findElement(By.id("storage-low")).isDisplayed()).isFalse();

    // A job's files take the disk down to under gpuq.storage.min-free.
    Path work = Files.createDirectories(dataDir.resolve("work").resolve(HOLDER));
    Files.write(work.resolve("checkpoint"), new byte[52 * 1024 * 1024]);

    WebElement banner = visible(By.id("storage-low"));
    await()
        .atMost(SOON)
        .ignoreExceptions()
        .until(() -> page.findElement(By.id("storage-holders")).getText().contains(HOLDER));
    assertThat(banner.getText())
        .contains("The data directory is short of space")
        .contains("below gpuq.storage.min-free (")
        .contains("DELETE /api/v1/jobs/{id}/files");
    WebElement link =
        page.findElement(By.cssSelector("#storage-holders a[href='#/job/" + HOLDER + "']"));
    assertThat(link.getText()).isEqualTo("job " + HOLDER);
    assertThat(page.findElement(By.id("storage-holders")).getText())
        .contains("job " + HOLDER + " (");
    browser.screenshot("storage-low");

    page.get(base() + "/ui/#token=" + ALICE);
    page.navigate().refresh();
    await()
        .atMost(SOON)
        .ignoreExceptions()
        .until(
            () ->
                "true".equals(page.findElement(By.id("storage-low")).getAttribute("data-checked")));
    assertThat(page.findElement(By.id("storage-low")).isDisplayed()).isFalse();
  }

  private void signIn(String token) {
    page.get(base() + "/ui/#token=" + token);
    visible(By.id("queue"));
  }

  private WebElement visible(By by) {
    await().atMost(SOON).ignoreExceptions().until(() -> page.findElement(by).isDisplayed());
    return page.findElement(by);
  }

  private String base() {
    return "http://127.0.0.1:" + gpuq.port();
  }
}
