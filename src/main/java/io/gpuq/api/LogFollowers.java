package io.gpuq.api;

import io.gpuq.job.Caller;
import io.gpuq.job.JobQueries;
import io.gpuq.launch.LogCursor;
import io.gpuq.startup.OutOfMemoryExit;
import jakarta.servlet.AsyncContext;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletRequestWrapper;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.SmartLifecycle;

/**
 * Every open {@code logs?follow=true}, and the one thread that feeds them all. Each tick it learns
 * in one query which of the followed jobs have ended, then hands each follower what its log gained.
 * Followers hold no thread of their own and are written without blocking, so a client that reads
 * slowly holds up nobody else. Each caller may hold a limited number of them.
 */
public class LogFollowers implements SmartLifecycle {

  /** The watcher's thread. */
  public static final String THREAD_NAME = "gpuq-log-follow";

  static final Duration RETRY_AFTER = Duration.ofSeconds(5);

  private static final Logger log = LoggerFactory.getLogger(LogFollowers.class);

  /** What one follower gets per tick from the shared thread; the container's threads send more. */
  private static final long TICK_BUDGET = 1024 * 1024;

  private final JobQueries jobs;
  private final Duration interval;
  private final int maxPerCaller;
  private final Set<LogFollower> followers = ConcurrentHashMap.newKeySet();
  // Guarded by itself.
  private final Map<String, Integer> perCaller = new HashMap<>();
  private volatile ScheduledExecutorService watcher;

  public LogFollowers(JobQueries jobs, Duration interval, int maxPerCaller) {
    if (maxPerCaller < 1) {
      throw new IllegalArgumentException(
          "gpuq.api.max-log-followers-per-caller must be at least 1, not " + maxPerCaller);
    }
    this.jobs = jobs;
    this.interval = interval;
    this.maxPerCaller = maxPerCaller;
  }

  /**
   * Answers the request asynchronously with the log of a job that has not ended yet, from {@code
   * cursor} on, until the job has ended and its log is sent.
   *
   * @throws TooManyLogFollowersException when the caller already follows as many logs as it may
   */
  public void follow(
      Caller caller,
      String jobId,
      LogCursor cursor,
      HttpServletRequest request,
      HttpServletResponse response)
      throws IOException {
    reserve(caller.name());
    LogFollower follower;
    try {
      AsyncContext async = request.startAsync(request, response);
      // Until the job ends: no timeout (0), whatever the container's default is.
      async.setTimeout(0);
      follower =
          new LogFollower(
              caller.name(),
              jobId,
              cursor,
              async,
              unwrapped(request).getInputStream(),
              response.getOutputStream(),
              this::release);
    } catch (IOException | RuntimeException e) {
      unreserve(caller.name());
      throw e;
    }
    followers.add(follower);
    if (!isRunning()) {
      // gpuq is stopping: no tick will come, so this follower gets what there is and ends.
      follower.jobEnded();
    }
    try {
      follower.start();
    } catch (RuntimeException e) {
      follower.end();
      throw e;
    }
  }

  /** The container's own request: filters' wrappers may hide what its input stream can tell. */
  private static ServletRequest unwrapped(ServletRequest request) {
    while (request instanceof ServletRequestWrapper wrapper) {
      request = wrapper.getRequest();
    }
    return request;
  }

  /** How many logs are followed now. */
  public int count() {
    return followers.size();
  }

  private void reserve(String caller) {
    synchronized (perCaller) {
      int held = perCaller.getOrDefault(caller, 0);
      if (held >= maxPerCaller) {
        throw new TooManyLogFollowersException(maxPerCaller, RETRY_AFTER);
      }
      perCaller.put(caller, held + 1);
    }
  }

  private void unreserve(String caller) {
    synchronized (perCaller) {
      perCaller.computeIfPresent(caller, (name, held) -> held <= 1 ? null : held - 1);
    }
  }

  private void release(LogFollower follower) {
    if (followers.remove(follower)) {
      unreserve(follower.caller());
    }
  }

  /** One tick: one query for the ends of all followed jobs, then each follower gets its share. */
  void watchOnce() {
    List<LogFollower> now = List.copyOf(followers);
    if (now.isEmpty()) {
      return;
    }
    Set<String> running =
        now.stream()
            .filter(f -> !f.isJobEnded())
            .map(LogFollower::jobId)
            .collect(Collectors.toSet());
    if (!running.isEmpty()) {
      try {
        Set<String> ended = jobs.endedAmong(running);
        now.stream().filter(f -> ended.contains(f.jobId())).forEach(LogFollower::jobEnded);
      } catch (RuntimeException e) {
        // The logs are still worth sending; the ends are learnt on a later tick.
        log.warn("could not learn which followed jobs have ended", e);
      }
    }
    for (LogFollower follower : now) {
      try {
        follower.pump(TICK_BUDGET);
      } catch (RuntimeException e) {
        log.warn("following job {}'s log failed; its response ends", follower.jobId(), e);
        follower.end();
      }
    }
  }

  private void watchSafely() {
    try {
      watchOnce();
    } catch (RuntimeException | Error e) {
      OutOfMemoryExit.haltIfOutOfMemory(e);
      log.error("the log followers' watcher failed; it runs again in {}", interval, e);
    }
  }

  @Override
  public void start() {
    ScheduledExecutorService executor =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, THREAD_NAME);
              t.setDaemon(true);
              return t;
            });
    long millis = interval.toMillis();
    executor.scheduleWithFixedDelay(this::watchSafely, millis, millis, TimeUnit.MILLISECONDS);
    watcher = executor;
  }

  /**
   * Ends every follow: stopping gpuq would otherwise wait for them (graceful shutdown), and their
   * jobs run on. Clients see the log end early and can ask for the job's state.
   */
  @Override
  public void stop() {
    ScheduledExecutorService executor = watcher;
    if (executor != null) {
      executor.shutdownNow();
      watcher = null;
    }
    List.copyOf(followers).forEach(LogFollower::end);
  }

  @Override
  public boolean isRunning() {
    return watcher != null;
  }
}
