package io.gpuq.bench;

import io.gpuq.support.Browser;
import io.gpuq.support.SweepJson;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WindowType;

/**
 * The web page against a gpuq with 10,000 jobs: how long the queue's first page takes to render,
 * and what 20 open pages cost gpuq.
 *
 * <p>gpuq runs from its packaged jar as a separate process ({@link GpuqServer}, C1 only, {@code
 * cpu-slots=0} so that nothing starts), and a 100 × 100 grid sweep of CPU-only trials gives it
 * 10,000 queued jobs, each with a {@code queuedReason}. Debian's chromium (headless, through {@link
 * Browser}) then:
 *
 * <ol>
 *   <li>{@code rounds} times loads {@code /ui/#/queue} afresh (a new document: modules, sign-in
 *       from sessionStorage, the listing, the rows) and reads, in the page, the time from the start
 *       of navigation until the table holds its rows ({@code performance.now()}); for the default
 *       page of 100 jobs and for {@code ?limit=1000};
 *   <li>opens {@code pages} windows on the queue, each refreshing itself every second as a user's
 *       would, and measures gpuq's CPU time (utime + stime from /proc) over {@code seconds},
 *       against the same span with no page open, and how many requests reached gpuq meanwhile (its
 *       {@code http.server.requests} meter).
 * </ol>
 *
 * <p>Targets (issue 29): the first page in under 1 s; 20 open pages under 5 % of one core.
 *
 * <p>{@code bench/run UiBench [jar=target/gpuq-0.1.0-SNAPSHOT.jar] [rounds=5] [pages=20]
 * [seconds=60]}
 */
public final class UiBench {

  private UiBench() {}

  public static void main(String[] argv) throws Exception {
    BenchArgs given = new BenchArgs(argv);
    Path jar = Path.of(given.get("jar", "target/gpuq-0.1.0-SNAPSHOT.jar"));
    int rounds = given.getInt("rounds", 5);
    int pages = given.getInt("pages", 20);
    int seconds = given.getInt("seconds", 60);
    given.requireAllRead();
    System.out.println("load average at start: " + loadAverage());
    try (GpuqServer gpuq = GpuqServer.start(jar, 0, GpuqServer.DEFAULT_JVM_OPTIONS);
        Browser browser = Browser.start()) {
      Object[] hundred = IntStream.range(0, 100).boxed().toArray();
      // The machine may be busy: a 10,000-trial sweep gets minutes, not HttpApi's 30 s.
      HttpResponse<String> created =
          HttpClient.newHttpClient()
              .send(
                  HttpRequest.newBuilder(
                          URI.create("http://127.0.0.1:" + gpuq.port() + "/api/v1/sweeps"))
                      .timeout(Duration.ofMinutes(5))
                      .header("Authorization", "Bearer " + GpuqServer.TOKEN)
                      .header("Content-Type", "application/json")
                      .POST(
                          HttpRequest.BodyPublishers.ofString(
                              SweepJson.aGridSweep()
                                  .name("ten-thousand")
                                  .values("a", hundred)
                                  .values("b", hundred)
                                  .json()))
                      .build(),
                  HttpResponse.BodyHandlers.ofString());
      if (created.statusCode() != 201) {
        throw new IllegalStateException("sweep: " + created.statusCode() + " " + created.body());
      }
      System.out.println("jobs queued: 10000");
      String base = "http://127.0.0.1:" + gpuq.port();
      WebDriver page = browser.driver();
      page.get(base + "/ui/#token=" + GpuqServer.TOKEN);

      for (int limit : new int[] {100, 1000}) {
        List<Double> times = new ArrayList<>();
        for (int round = 0; round <= rounds; round++) {
          page.get("about:blank");
          page.get(base + "/ui/#/queue" + (limit == 100 ? "" : "?limit=" + limit));
          double ms = renderedAt(page, limit);
          if (round > 0) { // the first round warms gpuq and the browser's cache of modules
            times.add(ms);
          }
        }
        times.sort(null);
        System.out.printf(
            "queue first page of %d jobs rendered: p50 %.0f ms, max %.0f ms (%d rounds)%n",
            limit, times.get(times.size() / 2), times.get(times.size() - 1), times.size());
      }

      page.get("about:blank");
      double idle = coreShare(gpuq.pid(), seconds);
      System.out.printf("gpuq CPU with no page open: %.2f %% of one core%n", idle * 100);
      for (int i = 0; i < pages; i++) {
        if (i > 0) {
          page.switchTo().newWindow(WindowType.WINDOW);
          // sessionStorage is per tab: each window signs in, as a user's would.
          page.get(base + "/ui/#token=" + GpuqServer.TOKEN);
        }
        page.get(base + "/ui/#/queue");
        renderedAt(page, 100);
      }
      // A hidden page asks nothing (docs/ui.md): say how many of them would refresh.
      int visible = 0;
      for (String window : page.getWindowHandles()) {
        page.switchTo().window(window);
        Object state = ((JavascriptExecutor) page).executeScript("return document.visibilityState");
        visible += "visible".equals(state) ? 1 : 0;
      }
      System.out.println("pages open: " + pages + ", of which visible: " + visible);
      long asked = requests(base);
      long t0 = System.nanoTime();
      double open = coreShare(gpuq.pid(), seconds);
      // Less one: the count read just now is itself a request.
      double perSecond = (requests(base) - asked - 1) * 1e9 / (System.nanoTime() - t0);
      System.out.printf(
          "gpuq CPU with %d queue pages open (each refreshing every 1 s): %.2f %% of one core"
              + " (%.2f %% above idle); requests reaching gpuq: %.1f a second%n",
          pages, open * 100, (open - idle) * 100, perSecond);
    }
    System.out.println("load average at end: " + loadAverage());
  }

  /** Milliseconds from the start of navigation until the queue holds {@code rows} rows. */
  private static double renderedAt(WebDriver page, int rows) {
    long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    while (System.nanoTime() < deadline) {
      Object at =
          ((JavascriptExecutor) page)
              .executeAsyncScript(
                  "const done = arguments[arguments.length - 1];"
                      + "const want = arguments[0];"
                      + "const check = () => {"
                      + "  const n = document.querySelectorAll('#queue-rows tr').length;"
                      + "  if (n >= want) done(performance.now());"
                      + "  else setTimeout(check, 5);"
                      + "};"
                      + "check();",
                  rows);
      if (at instanceof Number ms) {
        return ms.doubleValue();
      }
    }
    throw new IllegalStateException("the queue never showed " + rows + " rows");
  }

  /** How many HTTP requests gpuq has answered so far, by its own meter. */
  private static long requests(String base) throws Exception {
    HttpResponse<String> scraped =
        HttpClient.newHttpClient()
            .send(
                HttpRequest.newBuilder(URI.create(base + "/actuator/prometheus"))
                    .header("Authorization", "Bearer " + GpuqServer.TOKEN)
                    .build(),
                HttpResponse.BodyHandlers.ofString());
    double sum = 0;
    for (String line : scraped.body().split("\n")) {
      if (line.startsWith("http_server_requests_seconds_count{")) {
        sum += Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
      }
    }
    return Math.round(sum);
  }

  /** gpuq's CPU time over {@code seconds}, as a share of one core. */
  private static double coreShare(long pid, int seconds) throws InterruptedException {
    long before = CpuSnapshot.of(pid).processNanos();
    long t0 = System.nanoTime();
    Thread.sleep(seconds * 1000L);
    long used = CpuSnapshot.of(pid).processNanos() - before;
    return (double) used / (System.nanoTime() - t0);
  }

  private static String loadAverage() {
    try {
      return java.nio.file.Files.readString(Path.of("/proc/loadavg")).strip();
    } catch (java.io.IOException e) {
      return "unknown";
    }
  }
}
