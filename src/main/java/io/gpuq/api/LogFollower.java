package io.gpuq.api;

import io.gpuq.fs.NotARegularFileException;
import io.gpuq.launch.LogCursor;
import jakarta.servlet.AsyncContext;
import jakarta.servlet.AsyncEvent;
import jakarta.servlet.AsyncListener;
import jakarta.servlet.ReadListener;
import jakarta.servlet.ServletInputStream;
import jakarta.servlet.ServletOutputStream;
import jakarta.servlet.WriteListener;
import java.io.IOException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One open {@code logs?follow=true}: an asynchronous response written without blocking, so that no
 * thread waits for this client. {@link LogFollowers}' watcher calls {@link #pump} every tick; the
 * container calls it too whenever a client that had fallen behind can take more.
 */
final class LogFollower {

  private static final Logger log = LoggerFactory.getLogger(LogFollower.class);
  private static final int CHUNK = 64 * 1024;

  private final String caller;
  private final String jobId;
  // Guarded by this.
  private final LogCursor cursor;
  private final AsyncContext async;
  private final ServletInputStream in;
  private final ServletOutputStream out;
  private final Consumer<LogFollower> onClose;
  private final AtomicBoolean closed = new AtomicBoolean();

  private volatile boolean jobEnded;
  // True at first: nothing, not even the headers, has been sent.
  private boolean unflushed = true;
  private boolean completing;

  LogFollower(
      String caller,
      String jobId,
      LogCursor cursor,
      AsyncContext async,
      ServletInputStream in,
      ServletOutputStream out,
      Consumer<LogFollower> onClose) {
    this.caller = caller;
    this.jobId = jobId;
    this.cursor = cursor;
    this.async = async;
    this.in = in;
    this.out = out;
    this.onClose = onClose;
  }

  String caller() {
    return caller;
  }

  String jobId() {
    return jobId;
  }

  boolean isJobEnded() {
    return jobEnded;
  }

  /**
   * Called once the job is known to have ended: whatever its log holds from now on is all it will
   * ever hold (the state was read before the file), so the response ends once that is sent.
   */
  void jobEnded() {
    jobEnded = true;
  }

  /**
   * Starts writing: from now on the container calls {@link #pump} whenever the client can take
   * more, the first time as soon as the request's own thread has returned (which sends the headers
   * at once), and frees this follower when the client goes away.
   */
  void start() {
    async.addListener(
        new AsyncListener() {
          @Override
          public void onComplete(AsyncEvent event) {
            close();
          }

          @Override
          public void onTimeout(AsyncEvent event) {
            end();
          }

          @Override
          public void onError(AsyncEvent event) {
            end();
          }

          @Override
          public void onStartAsync(AsyncEvent event) {}
        });
    // Only so that Tomcat reads the socket when asked whether the client sent anything (see
    // clientGone); a GET's body is all read already, so no event comes of it.
    in.setReadListener(
        new ReadListener() {
          @Override
          public void onDataAvailable() {}

          @Override
          public void onAllDataRead() {}

          @Override
          public void onError(Throwable t) {
            end();
          }
        });
    out.setWriteListener(
        new WriteListener() {
          @Override
          public void onWritePossible() {
            pump(Long.MAX_VALUE);
          }

          @Override
          public void onError(Throwable t) {
            log.debug("follower of job {}'s log went away: {}", jobId, t.toString());
            end();
          }
        });
  }

  /**
   * Writes what the log holds past what was sent, at most {@code budget} bytes, while the client
   * takes it without blocking; ends the response once the job has ended and all of its log is sent.
   * A client that cannot take more now is left until the container says it can.
   */
  synchronized void pump(long budget) {
    if (completing || closed.get()) {
      return;
    }
    // Read before the file: what was written before the end is then certain to be copied below.
    boolean ended = jobEnded;
    try {
      if (clientGone()) {
        log.debug("follower of job {}'s log hung up", jobId);
        end();
        return;
      }
      boolean caughtUp = copy(budget);
      if (!out.isReady()) {
        return;
      }
      if (caughtUp && ended) {
        completing = true;
        async.complete();
        return;
      }
      // Tomcat would hold a line in its response buffer until 8 KiB had gathered; the first flush
      // sends the headers before the log has anything.
      if (unflushed) {
        out.flush();
        unflushed = false;
      }
    } catch (NotARegularFileException e) {
      // Replaced after the follow began: it is no longer served, and 200 has already been sent.
      log.warn("job {}'s log became {}; its follower's response ends here", jobId, e.kind());
      end();
    } catch (IOException | IllegalStateException e) {
      log.debug("follower of job {}'s log went away: {}", jobId, e.toString());
      end();
    }
  }

  /**
   * Whether the client has hung up. Writing would tell, but only once the log grows, and a quiet
   * training log could keep a follower's place for hours: the socket is read instead. The request
   * was read to its end, so Tomcat, asked what is available, tries a read that finds the end of the
   * connection, and answers 1 for it (or for a pipelined request, which ends this answer too).
   * Where a container does not read, the end of the connection is learnt at the next write.
   */
  private boolean clientGone() {
    try {
      return in.available() > 0;
    } catch (IOException e) {
      return true;
    }
  }

  /**
   * Copies as much as the client takes now; true when all the log holds now has been sent. The
   * cursor keeps the place across cuts of the log's middle.
   */
  private boolean copy(long budget) throws IOException {
    long left = budget;
    while (left > 0) {
      if (!out.isReady()) {
        return false;
      }
      byte[] bytes = cursor.read((int) Math.min(CHUNK, left));
      if (bytes.length == 0) {
        return true;
      }
      out.write(bytes);
      unflushed = true;
      left -= bytes.length;
    }
    return false;
  }

  /** Ends the response, whatever it still lacks (gpuq stops, the client went, the log is gone). */
  void end() {
    synchronized (this) {
      if (!completing) {
        completing = true;
        try {
          async.complete();
        } catch (IllegalStateException e) {
          // Already completed by the container after an error.
        }
      }
    }
    close();
  }

  private void close() {
    if (closed.compareAndSet(false, true)) {
      onClose.accept(this);
    }
  }
}
