package io.gpuq.api;

import static io.gpuq.support.JobJson.aJob;
import static io.gpuq.support.SweepJson.anExternalSweep;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.gpuq.support.Browser;
import io.gpuq.support.Gate;
import io.gpuq.support.IntegrationTest;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.Dimension;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.NoAlertPresentException;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.WindowType;

/**
 * The web page in a real browser (Debian's chromium) against the real gpuq of {@link
 * IntegrationTest}: jobs, logs, GPUs and sweeps made over the API, looked at and acted on through
 * the page. After each test the browser's console must hold no error.
 */
@DisplayName("The web page, in a real browser")
class WebUiTest extends IntegrationTest {

  private static final String HOSTILE = "<img src=x onerror=alert(1)>";
  private static final Duration SOON = Duration.ofSeconds(20);

  private Browser browser;
  private WebDriver page;

  @BeforeEach
  void openBrowser() {
    browser = Browser.start();
    page = browser.driver();
  }

  @AfterEach
  void noConsoleErrorsAndCloseBrowser() {
    if (browser == null) {
      return;
    }
    try {
      assertThat(browser.consoleErrors()).as("errors in the browser's console").isEmpty();
    } finally {
      browser.close();
    }
  }

  @Test
  @DisplayName("/ leads to the page, which asks for a token and signs in with a typed one")
  void signs_in_with_a_typed_token() {
    page.get(base() + "/");
    assertThat(page.getCurrentUrl()).startsWith(base() + "/ui/");
    WebElement token = visible(By.id("token"));
    browser.screenshot("sign-in");

    token.sendKeys(ALICE_TOKEN);
    page.findElement(By.id("signin-button")).click();

    visible(By.id("queue"));
    assertThat(js("return sessionStorage.getItem('gpuq.token')")).isEqualTo(ALICE_TOKEN);
    assertThat(js("return document.cookie")).isEqualTo("");
  }

  @Test
  @DisplayName("a token in the fragment signs in and is then removed from the address bar")
  void signs_in_by_fragment() {
    page.get(base() + "/ui/#token=" + ALICE_TOKEN);

    visible(By.id("queue"));
    assertThat(page.getCurrentUrl()).doesNotContain(ALICE_TOKEN).doesNotContain("token=");
    assertThat(js("return sessionStorage.getItem('gpuq.token')")).isEqualTo(ALICE_TOKEN);
  }

  @Test
  @DisplayName("a job submitted over the API appears in the queue within 2 s")
  void a_submitted_job_appears_in_the_queue() throws IOException {
    Gate gate = Gate.in(dataDir(), "queue");
    signIn(ALICE_TOKEN, "/queue");
    visible(By.id("queue"));

    String id =
        alice.submit(
            aJob()
                .name("appears-" + System.nanoTime())
                .label("team", "rl")
                .shell(gate.shellWait())
                .json());

    await()
        .atMost(Duration.ofSeconds(2))
        .pollInterval(Duration.ofMillis(50))
        .ignoreExceptions()
        .until(() -> row(id).getText().contains("team=rl"));
    await().atMost(SOON).ignoreExceptions().until(() -> row(id).getText().contains("RUNNING"));

    // Three runs of 10GiB on two 16GiB GPUs: one of them waits, and the page says why.
    List<String> big = new ArrayList<>();
    for (String name : List.of("train-a", "train-b", "train-c")) {
      big.add(
          alice.submit(
              aJob()
                  .name(name)
                  .label("team", "rl")
                  .gpus(1)
                  .gpuMemory("10GiB")
                  .shell(gate.shellWait())
                  .json()));
    }
    await()
        .atMost(SOON)
        .ignoreExceptions()
        .until(
            () ->
                big.stream()
                    .anyMatch(
                        job ->
                            row(job).getText().contains("QUEUED")
                                && !row(job)
                                    .findElement(By.cssSelector("td.reason"))
                                    .getText()
                                    .isBlank()));
    browser.screenshot("queue");
    gate.open();
  }

  @Test
  @DisplayName("the Usage view shows a row per owner and the total (issue 37)")
  void the_usage_view_shows_each_owner_and_the_total() {
    String id = admin.submit(aJob().name("used").json());
    await().atMost(SOON).until(() -> admin.state(id).equals("SUCCEEDED"));
    signIn(ADMIN_TOKEN, "/usage");

    await()
        .atMost(SOON)
        .ignoreExceptions()
        .until(
            () ->
                !page.findElements(By.cssSelector("#usage-by-owner tr[data-key='root']"))
                    .isEmpty());
    assertThat(text(By.id("usage-by-owner"))).contains("total");
    assertThat(text(By.id("usage-by-day"))).contains("total");
    // A chart per owner over the last 30 days: a bar a day, today's holding the job's hours.
    String today = java.time.LocalDate.now(java.time.ZoneOffset.UTC).toString();
    assertThat(page.findElements(By.cssSelector(".usage-chart[data-owner='root'] rect")))
        .hasSize(30);
    assertThat(
            page.findElement(
                    By.cssSelector(
                        ".usage-chart[data-owner='root'] rect[data-day='" + today + "']"))
                .getAttribute("height"))
        .isNotEqualTo("0");
  }

  @Test
  @DisplayName("a job's page shows what it depends on, each a link to that job (issue 37)")
  void a_jobs_page_links_its_dependencies() throws IOException {
    Gate gate = Gate.in(dataDir(), "ui-dependency");
    String first = alice.submit(aJob().name("first").shell(gate.shellWait()).json());
    String second =
        alice.submit(
            aJob()
                .name("second")
                .field("dependsOn", java.util.List.of(java.util.Map.of("job", first)))
                .json());
    try {
      signIn(ALICE_TOKEN, "/job/" + second);

      await()
          .atMost(SOON)
          .until(() -> text(By.id("job-depends-on")).contains("afterok job " + first));
      assertThat(text(By.id("job-reason"))).contains("waiting for job " + first + " to succeed");
      visible(By.cssSelector("#job-depends-on a.dependency")).click();
      await().atMost(SOON).until(() -> text(By.id("job-name")).equals("first"));
    } finally {
      gate.open();
    }
    await().atMost(SOON).until(() -> alice.state(second).equals("SUCCEEDED"));
  }

  @Test
  @DisplayName(
      "a job's page shows its PREEMPTED attempt apart, and an admin reads whom a preemption served"
          + " (issue 35)")
  void a_jobs_page_shows_a_preempted_attempt() {
    // The requeue exit code ends attempt 1 PREEMPTED; attempt 2 succeeds.
    String id =
        alice.submit(
            aJob()
                .name("requeues-once")
                .shell("[ \"$GPUQ_ATTEMPT\" = 1 ] && exit $GPUQ_REQUEUE_EXIT_CODE; exit 0")
                .json());
    await().atMost(SOON).until(() -> alice.state(id).equals("SUCCEEDED"));

    signIn(ALICE_TOKEN, "/job/" + id);

    await()
        .atMost(SOON)
        .ignoreExceptions()
        .until(() -> page.findElements(By.cssSelector("#job-attempts tbody tr")).size() == 2);
    List<WebElement> preempted = page.findElements(By.cssSelector("#job-attempts tr.preempted"));
    assertThat(preempted).hasSize(1);
    assertThat(preempted.get(0).getText()).contains("PREEMPTED").contains("requeued by its exit");
    assertThat(
            page.findElements(By.cssSelector("#job-attempts thead th")).stream()
                .map(WebElement::getText)
                .toList())
        .contains("outcome", "preemptedFor");
    assertThat(text(By.cssSelector("#job-fields tr[data-field=requeues] td"))).isEqualTo("1");
  }

  @Test
  @DisplayName(
      "a job's page shows where its notifications stand, and why one is not delivered (issue 37)")
  void a_jobs_page_shows_its_notifications_last_error() throws IOException {
    Gate gate = Gate.in(dataDir(), "ui-notifications");
    // Port 1 of the loopback address: nothing listens, every try is refused.
    String id =
        alice.submit(
            aJob()
                .shell(gate.shellWait())
                .field(
                    "notify",
                    java.util.List.of(
                        java.util.Map.of(
                            "url", "http://127.0.0.1:1/hook", "on", java.util.List.of("STARTED"))))
                .json());
    try {
      signIn(ALICE_TOKEN, "/job/" + id);

      await()
          .atMost(SOON)
          .until(() -> text(By.id("job-notifications")).contains("STARTED due after"));
      assertThat(text(By.id("job-notifications"))).contains("ConnectException");
      assertThat(text(By.id("job-notifications"))).doesNotContain("127.0.0.1");
    } finally {
      gate.open();
    }
    await().atMost(SOON).until(() -> alice.state(id).equals("SUCCEEDED"));
  }

  @Test
  @DisplayName(
      "an ended job's page keeps refreshing its notifications line until each one is delivered")
  void an_ended_jobs_page_follows_its_notifications_until_delivered() throws IOException {
    // A receiver that answers 503 until the test lets it accept.
    java.util.concurrent.atomic.AtomicBoolean accept =
        new java.util.concurrent.atomic.AtomicBoolean();
    com.sun.net.httpserver.HttpServer receiver =
        com.sun.net.httpserver.HttpServer.create(
            new java.net.InetSocketAddress(java.net.InetAddress.getLoopbackAddress(), 0), 4);
    receiver.createContext(
        "/",
        exchange -> {
          try (exchange) {
            exchange.getRequestBody().readAllBytes();
            exchange.sendResponseHeaders(accept.get() ? 204 : 503, -1);
          }
        });
    receiver.start();
    try {
      String url = "http://127.0.0.1:" + receiver.getAddress().getPort() + "/hook";
      String id =
          alice.submit(
              aJob()
                  .field(
                      "notify",
                      java.util.List.of(
                          java.util.Map.of("url", url, "on", java.util.List.of("ENDED"))))
                  .json());
      await().atMost(SOON).until(() -> alice.state(id).equals("SUCCEEDED"));
      signIn(ALICE_TOKEN, "/job/" + id);
      await()
          .atMost(SOON)
          .until(() -> text(By.id("job-notifications")).contains("ENDED due after"));

      accept.set(true);

      await()
          .atMost(Duration.ofSeconds(45))
          .until(() -> text(By.id("job-notifications")).contains("ENDED delivered"));
    } finally {
      receiver.stop(0);
    }
  }

  @Test
  @DisplayName(
      "a job's page follows its log live, charts its metrics, and its cancel ends it CANCELLED")
  void a_jobs_page_follows_its_log_and_cancels_it() throws IOException {
    Gate second = Gate.in(dataDir(), "log-second");
    String id =
        alice.submit(
            aJob()
                .name("follow-me")
                .command(
                    "python3",
                    "-u",
                    "-c",
                    "import json, os\n"
                        + "m = open(os.environ['GPUQ_METRICS_FILE'], 'a')\n"
                        + "for s in range(1, 6):\n"
                        + "    m.write(json.dumps({'step': s, 'loss': 1 / s, 'acc': s / 10}) + '\\n')\n"
                        + "m.close()\n"
                        + "print('first line')\n"
                        + second.pythonWait()
                        + "print('second line')\n"
                        + "time.sleep(600)\n")
                .json());
    signIn(ALICE_TOKEN, "/job/" + id);

    await().atMost(SOON).until(() -> text(By.id("job-log")).contains("first line"));
    assertThat(text(By.id("job-log"))).doesNotContain("second line");
    second.open();
    await().atMost(SOON).until(() -> text(By.id("job-log")).contains("second line"));
    await()
        .atMost(SOON)
        .ignoreExceptions()
        .until(() -> page.findElements(By.cssSelector("#job-metrics svg path.curve")).size() == 2);
    browser.screenshot("job");

    visible(By.id("job-cancel")).click();

    await().atMost(SOON).until(() -> alice.state(id).equals("CANCELLED"));
    await().atMost(SOON).until(() -> text(By.id("job-state")).equals("CANCELLED"));
    await().atMost(SOON).until(() -> text(By.id("job-log-state")).contains("complete"));
  }

  @Test
  @DisplayName(
      "tabs of one token share their answers and all show a new job within 2 s; a tab of another"
          + " token on the same list hears none of them")
  void tabs_of_one_token_share_answers_and_no_other_token_hears_them() {
    String route = "/queue?label=suite:shared-" + System.nanoTime();
    signIn(ALICE_TOKEN, route);
    visible(By.id("queue"));
    String hers = page.getWindowHandle();
    page.switchTo().newWindow(WindowType.WINDOW);
    signIn(BOB_TOKEN, route);
    visible(By.id("queue"));
    String his = page.getWindowHandle();
    page.switchTo().newWindow(WindowType.WINDOW);
    signIn(ALICE_TOKEN, route);
    visible(By.id("queue"));
    String hersToo = page.getWindowHandle();

    String label = route.substring(route.indexOf(':') + 1);
    String id = alice.submit(aJob().command("sleep", "30").label("suite", label).json());
    for (String window : List.of(hersToo, hers)) {
      page.switchTo().window(window);
      await()
          .atMost(Duration.ofSeconds(2))
          .pollInterval(Duration.ofMillis(50))
          .ignoreExceptions()
          .until(() -> row(id).isDisplayed());
    }
    page.switchTo().window(his);
    // Long enough for his page to have refreshed, and to have heard anything her tabs posted.
    await().pollDelay(Duration.ofMillis(1500)).atMost(SOON).until(() -> true);
    assertThat(page.findElements(By.cssSelector("#queue tr[data-id='" + id + "']"))).isEmpty();
    assertThat(page.findElement(By.id("queue-count")).getText()).startsWith("0 jobs");
    alice.post("/api/v1/jobs/" + id + "/cancel");
  }

  @Test
  @DisplayName("the queue cancels the jobs selected")
  void the_queue_cancels_a_selection() {
    String label = "selection-" + System.nanoTime();
    String one = alice.submit(aJob().label("batch", label).shell("sleep 600").json());
    String two = alice.submit(aJob().label("batch", label).shell("sleep 600").json());
    signIn(ALICE_TOKEN, "/queue?label=batch:" + label);
    await()
        .atMost(SOON)
        .ignoreExceptions()
        .until(() -> row(one).isDisplayed() && row(two).isDisplayed());

    row(one).findElement(By.cssSelector("input.select")).click();
    row(two).findElement(By.cssSelector("input.select")).click();
    page.findElement(By.id("cancel-selected")).click();

    await().atMost(SOON).until(() -> alice.state(one).equals("CANCELLED"));
    await().atMost(SOON).until(() -> alice.state(two).equals("CANCELLED"));
    await().atMost(SOON).ignoreExceptions().until(() -> row(one).getText().contains("CANCELLED"));
  }

  @Test
  @DisplayName("the queue's filters are kept in the address bar and survive a reload")
  void filters_survive_a_reload() {
    String label = "filtered-" + System.nanoTime();
    String kept = alice.submit(aJob().label("batch", label).json());
    String other = alice.submit(aJob().label("batch", "other-" + label).json());
    await().atMost(SOON).until(() -> alice.state(kept).equals("SUCCEEDED"));
    signIn(ALICE_TOKEN, "/queue");

    new org.openqa.selenium.support.ui.Select(visible(By.id("filter-state")))
        .selectByValue("SUCCEEDED");
    WebElement labelFilter = page.findElement(By.id("filter-label"));
    labelFilter.sendKeys("batch:" + label + "\n");
    page.findElement(By.id("filter-owner")).sendKeys("alice\n");
    await().atMost(SOON).ignoreExceptions().until(() -> row(kept).isDisplayed());

    page.navigate().refresh();

    await().atMost(SOON).ignoreExceptions().until(() -> row(kept).isDisplayed());
    assertThat(page.getCurrentUrl())
        .contains("state=SUCCEEDED")
        .contains("owner=alice")
        .contains("label=batch%3A" + label);
    assertThat(page.findElement(By.id("filter-label")).getAttribute("value"))
        .isEqualTo("batch:" + label);
    assertThat(page.findElements(By.cssSelector("tr[data-id='" + other + "']"))).isEmpty();
  }

  @Test
  @DisplayName("the GPU view shows a running job's budget and its measured use")
  void the_gpu_view_shows_a_running_jobs_budget_and_use() throws IOException {
    Gate gate = Gate.in(dataDir(), "gpu-view");
    String id =
        alice.submit(
            aJob()
                .name("holds-memory")
                .gpus(1)
                .gpuMemory("1GiB")
                .command(
                    "python3", "-c", "held = bytearray(64 * 1024 * 1024)\n" + gate.pythonWait())
                .json());
    await().atMost(SOON).until(() -> alice.state(id).equals("RUNNING"));
    signIn(ALICE_TOKEN, "/gpus");

    By use = By.cssSelector("li[data-job='" + id + "'] .use");
    await()
        .atMost(SOON)
        .ignoreExceptions()
        .until(() -> text(use).matches("uses [1-9][0-9.]*MiB of budget 1\\.00GiB"));
    assertThat(page.findElements(By.cssSelector("g.job-seg[data-job='" + id + "'] rect.budget")))
        .hasSize(1);
    browser.screenshot("gpus");
    gate.open();
  }

  @Test
  @DisplayName("a sweep's page draws one line per trial and hides the pruned ones on the toggle")
  void a_sweep_page_draws_one_line_per_trial_and_hides_pruned_ones() {
    String script =
        "import json, os, time\n"
            + "quality = json.loads(os.environ['GPUQ_PARAMS'])['quality']\n"
            + "bad = quality == 'bad'\n"
            + "for step in range(1, 601 if bad else 11):\n"
            + "    with open(os.environ['GPUQ_METRICS_FILE'], 'a') as f:\n"
            + "        f.write(json.dumps(dict(step=step, loss=(0.9 if bad else 1.0 / step))) + '\\n')\n"
            + "    time.sleep(0.1 if bad else 0.01)\n";
    var created =
        alice.post(
            "/api/v1/sweeps",
            anExternalSweep()
                .name("lr-search")
                .command("python3", "-c", script)
                .values("quality", "good", "fine", "bad", HOSTILE)
                .values("lr", 0.001, 0.01, 0.1)
                .metric("loss", "minimize")
                .field(
                    "earlyStopping", Map.of("type", "median", "startupTrials", 1, "warmupSteps", 2))
                .json());
    assertThat(created.status()).as(created.body()).isEqualTo(201);
    String sweep = created.json().get("id").asString();
    String good = addTrial(sweep, "good", 0.001);
    String hostile = addTrial(sweep, HOSTILE, 0.01);
    await().atMost(SOON).until(() -> alice.state(good).equals("SUCCEEDED"));
    await().atMost(SOON).until(() -> alice.state(hostile).equals("SUCCEEDED"));
    String bad = addTrial(sweep, "bad", 0.1);
    await().atMost(SOON).until(() -> alice.state(bad).equals("PRUNED"));
    alice.post("/api/v1/sweeps/" + sweep + "/close");

    signIn(ALICE_TOKEN, "/sweeps");
    visible(By.cssSelector("#sweeps tr[data-id='" + sweep + "']"));
    browser.screenshot("sweeps");
    page.findElement(By.cssSelector("#sweeps tr[data-id='" + sweep + "'] a")).click();

    By curves = By.cssSelector("#sweep-curves path.trial-curve");
    await().atMost(SOON).ignoreExceptions().until(() -> page.findElements(curves).size() == 3);
    assertThat(page.findElements(By.cssSelector("#sweep-curves path.trial-curve.pruned")))
        .hasSize(1);
    assertThat(page.findElements(By.cssSelector("#sweep-parallel polyline"))).hasSize(3);
    assertThat(page.findElements(By.cssSelector("#sweep-best-chart path.curve"))).hasSize(1);
    page.manage().window().setSize(new Dimension(1280, 1500));
    browser.screenshot("sweep");
    page.manage().window().setSize(new Dimension(1280, 900));

    page.findElement(By.id("hide-pruned")).click();

    assertThat(page.findElements(curves)).hasSize(2);
    assertThat(page.findElements(By.cssSelector("#sweep-curves path.trial-curve.pruned")))
        .isEmpty();
    assertThat(page.findElements(By.cssSelector("#trials tbody tr"))).hasSize(2);
    assertThat(page.getCurrentUrl()).contains("hidePruned=1");

    page.findElement(By.cssSelector("#trials th[data-sort='param:lr']")).click();
    page.findElement(By.cssSelector("#trials th[data-sort='param:lr']")).click();
    assertThat(
            page.findElements(By.cssSelector("#trials tbody tr")).stream()
                .map(tr -> tr.getAttribute("data-trial"))
                .toList())
        .containsExactly("1", "0");
    page.navigate().refresh();
    await().atMost(SOON).ignoreExceptions().until(() -> page.findElements(curves).size() == 2);
    assertThat(page.findElement(By.id("hide-pruned")).isSelected()).isTrue();

    assertThat(text(By.id("sweep-trials"))).contains(HOSTILE);
    assertThat(text(By.id("sweep-parallel"))).contains(HOSTILE);
    assertNoScriptRan();
  }

  @Test
  @DisplayName(
      "hostile text in a name, a label, a command, a metric name and a log line is shown as those characters")
  void hostile_text_is_shown_as_text() {
    String id =
        alice.submit(
            aJob()
                .name(HOSTILE)
                .label("note", HOSTILE)
                .command(
                    "python3",
                    "-c",
                    "import json, os\n"
                        + "open(os.environ['GPUQ_METRICS_FILE'], 'a').write(json.dumps({'step': 1, '"
                        + HOSTILE
                        + "': 0.5}) + '\\n')\n"
                        + "print('"
                        + HOSTILE
                        + "')\n",
                    HOSTILE)
                .json());
    await().atMost(SOON).until(() -> alice.state(id).equals("SUCCEEDED"));
    signIn(ALICE_TOKEN, "/queue");

    await().atMost(SOON).ignoreExceptions().until(() -> row(id).isDisplayed());
    assertThat(row(id).findElement(By.cssSelector("a.job-link")).getText()).isEqualTo(HOSTILE);
    assertThat(row(id).getText()).contains("note=" + HOSTILE);
    row(id).findElement(By.cssSelector("a.job-link")).click();

    await().atMost(SOON).until(() -> text(By.id("job-log")).contains(HOSTILE));
    await()
        .atMost(SOON)
        .ignoreExceptions()
        .until(() -> text(By.id("job-metrics")).contains(HOSTILE));
    assertThat(text(By.id("job-name"))).isEqualTo(HOSTILE);
    assertThat(text(By.cssSelector("#job-fields tr[data-field='command'] td"))).contains(HOSTILE);
    assertNoScriptRan();
  }

  private String addTrial(String sweep, String quality, double lr) {
    var response =
        alice.post(
            "/api/v1/sweeps/" + sweep + "/trials",
            "{\"parameters\": {\"quality\": "
                + HttpApiJson.quote(quality)
                + ", \"lr\": "
                + lr
                + "}}");
    assertThat(response.status()).as(response.body()).isEqualTo(201);
    return response.json().get("id").asString();
  }

  /**
   * No element the text could have made, no alert, and (checked after each test) no CSP refusal.
   */
  private void assertNoScriptRan() {
    assertThat(page.findElements(By.cssSelector("main img"))).isEmpty();
    assertThatThrownBy(() -> page.switchTo().alert()).isInstanceOf(NoAlertPresentException.class);
  }

  private void signIn(String token, String route) {
    page.get(base() + "/ui/#token=" + token);
    visible(By.id("main"));
    page.get(base() + "/ui/#" + route);
  }

  private WebElement row(String id) {
    return page.findElement(By.cssSelector("#queue tr[data-id='" + id + "']"));
  }

  private WebElement visible(By by) {
    await().atMost(SOON).ignoreExceptions().until(() -> page.findElement(by).isDisplayed());
    return page.findElement(by);
  }

  private String text(By by) {
    return page.findElement(by).getText();
  }

  private Object js(String script) {
    return ((JavascriptExecutor) page).executeScript(script);
  }

  private String base() {
    return "http://127.0.0.1:" + port;
  }

  /** JSON string quoting for a request body built by hand. */
  private static final class HttpApiJson {
    static String quote(String s) {
      return io.gpuq.support.HttpApi.JSON.writeValueAsString(s);
    }
  }
}
