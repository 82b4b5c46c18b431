package io.gpuq.support;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.logging.Level;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.logging.LogEntry;
import org.openqa.selenium.logging.LogType;
import org.openqa.selenium.logging.LoggingPreferences;

/**
 * Debian's chromium, headless, driven through Debian's chromedriver: nothing is downloaded
 * (Selenium Manager is never asked, as both paths are given) and the browser reaches nothing
 * outside the machine. Where either is missing or will not start, the test is skipped, saying why.
 */
public final class Browser implements AutoCloseable {

  public static final Path CHROMIUM = Path.of("/usr/bin/chromium");
  public static final Path CHROMEDRIVER = Path.of("/usr/bin/chromedriver");

  private final ChromeDriver driver;
  private final Path profile;
  private final List<LogEntry> console = new ArrayList<>();

  private Browser(ChromeDriver driver, Path profile) {
    this.driver = driver;
    this.profile = profile;
  }

  /** A fresh browser with an empty profile, or the test is skipped when none can start. */
  public static Browser start() {
    assumeTrue(
        Files.isExecutable(CHROMIUM) && Files.isExecutable(CHROMEDRIVER),
        "no browser: install Debian's chromium and chromium-driver (.ci/run does)");
    System.setProperty("webdriver.chrome.driver", CHROMEDRIVER.toString());
    Path profile;
    try {
      profile = Files.createTempDirectory("gpuq-chromium-");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    ChromeOptions options = new ChromeOptions();
    options.setBinary(CHROMIUM.toFile());
    options.addArguments(
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--disable-extensions",
        "--disable-default-apps",
        "--window-size=1280,900",
        "--user-data-dir=" + profile);
    LoggingPreferences logs = new LoggingPreferences();
    logs.enable(LogType.BROWSER, Level.ALL);
    options.setCapability("goog:loggingPrefs", logs);
    ChromeDriverService service =
        new ChromeDriverService.Builder()
            .usingDriverExecutable(new File(CHROMEDRIVER.toString()))
            .usingAnyFreePort()
            .build();
    ChromeDriver driver;
    try {
      driver = new ChromeDriver(service, options);
    } catch (RuntimeException e) {
      assumeTrue(
          false, "chromium would not start: " + e.getMessage().lines().findFirst().orElse(""));
      throw e;
    }
    driver.manage().timeouts().scriptTimeout(Duration.ofSeconds(10));
    return new Browser(driver, profile);
  }

  public WebDriver driver() {
    return driver;
  }

  /** Everything the page wrote to its console since the browser started. */
  public List<LogEntry> console() {
    console.addAll(driver.manage().logs().get(LogType.BROWSER).getAll());
    return List.copyOf(console);
  }

  /** Errors only (SEVERE): failed loads, uncaught exceptions, Content-Security-Policy refusals. */
  public List<String> consoleErrors() {
    return console().stream()
        .filter(entry -> entry.getLevel().intValue() >= Level.SEVERE.intValue())
        .map(LogEntry::getMessage)
        .toList();
  }

  /**
   * A PNG of the window into {@code target/ui-screenshots/NAME.png}; with {@code
   * -Dgpuq.ui.screenshots=docs/ui} into the ones the README and docs/ui.md show.
   */
  public void screenshot(String name) {
    try {
      Path dir = Path.of(System.getProperty("gpuq.ui.screenshots", "target/ui-screenshots"));
      Files.createDirectories(dir);
      byte[] png = ((TakesScreenshot) driver).getScreenshotAs(OutputType.BYTES);
      Files.write(dir.resolve(name + ".png"), png);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Override
  public void close() {
    try {
      driver.quit();
    } finally {
      try (var files = Files.walk(profile)) {
        files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
      } catch (IOException e) {
        // A profile left in /tmp is harmless.
      }
    }
  }
}
