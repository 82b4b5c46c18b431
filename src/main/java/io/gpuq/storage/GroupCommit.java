package io.gpuq.storage;

import io.gpuq.startup.OutOfMemoryExit;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes what many threads hand in, several items per transaction (a group commit). A commit costs
 * far more than a row (H2 writes a chunk of its store, PostgreSQL flushes its log), so concurrent
 * submissions share one commit instead of paying one each. Under no load an item is written alone
 * at once: nothing waits to fill a batch.
 *
 * <p>Each caller gets its own item's result. When a batch fails as a whole (one item breaks a
 * unique index, or meets a concurrent update), its items are written again one by one, so that one
 * bad item fails only its own caller.
 *
 * @param <I> what is written; it must be rebuilt by the write functions, not mutated, since a
 *     failed batch hands the same items to {@code writeOne}
 * @param <R> the result of writing one item
 */
public final class GroupCommit<I, R> {

  private static final Logger log = LoggerFactory.getLogger(GroupCommit.class);
  private static final Duration CLOSE_CHECK = Duration.ofMillis(50);

  private final String name;
  private final int maxBatch;
  private final Duration linger;
  private final Function<List<I>, List<R>> writeAll;
  private final Function<I, R> writeOne;
  private final BlockingQueue<Pending<I, R>> queue = new LinkedBlockingQueue<>();
  private final Thread writer;
  private volatile boolean closed;

  /**
   * @param name the writer thread's name
   * @param linger how long a batch may wait for more items after its first: zero where a caller
   *     waits for its item, a few milliseconds where nobody does and fewer commits save CPU
   * @param writeAll writes a batch in one transaction and returns one result per item, in order
   * @param writeOne writes one item in its own transaction
   */
  public GroupCommit(
      String name,
      int maxBatch,
      Duration linger,
      Function<List<I>, List<R>> writeAll,
      Function<I, R> writeOne) {
    if (maxBatch < 1) {
      throw new IllegalArgumentException("maxBatch must be at least 1: " + maxBatch);
    }
    this.name = name;
    this.maxBatch = maxBatch;
    this.linger = linger;
    this.writeAll = writeAll;
    this.writeOne = writeOne;
    this.writer = new Thread(this::run, name);
    writer.setDaemon(true);
    writer.start();
  }

  /** Hands an item to the writer; the future completes once it is committed, or has failed. */
  public CompletableFuture<R> write(I item) {
    Pending<I, R> pending = new Pending<>(item, new CompletableFuture<>());
    queue.add(pending);
    if (closed && queue.remove(pending)) {
      pending.result.completeExceptionally(new IllegalStateException(name + " is closed"));
    }
    return pending.result;
  }

  /** Writes what is still pending, then stops the writer thread. */
  public void close() {
    closed = true;
    try {
      writer.join();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private void run() {
    List<Pending<I, R>> batch = new ArrayList<>(maxBatch);
    while (!(closed && queue.isEmpty())) {
      try {
        Pending<I, R> first = queue.poll(CLOSE_CHECK.toMillis(), TimeUnit.MILLISECONDS);
        if (first == null) {
          continue;
        }
        batch.add(first);
        queue.drainTo(batch, maxBatch - 1);
        lingerForMore(batch);
        write(batch);
      } catch (InterruptedException e) {
        // Only close() ends the writer: callers wait on what is queued.
        log.warn("{} was interrupted; it keeps writing until closed", name);
      } catch (RuntimeException | Error e) {
        // Never a failed batch answered and the next one written after an OutOfMemoryError.
        OutOfMemoryExit.haltIfOutOfMemory(e);
        log.error("{} failed to write a batch of {}", name, batch.size(), e);
        batch.forEach(pending -> pending.result.completeExceptionally(e));
      } finally {
        batch.clear();
      }
    }
  }

  private void lingerForMore(List<Pending<I, R>> batch) throws InterruptedException {
    long deadline = System.nanoTime() + linger.toNanos();
    for (long left = linger.toNanos(); left > 0 && batch.size() < maxBatch; ) {
      Pending<I, R> next = queue.poll(left, TimeUnit.NANOSECONDS);
      if (next == null) {
        return;
      }
      batch.add(next);
      queue.drainTo(batch, maxBatch - batch.size());
      left = deadline - System.nanoTime();
    }
  }

  private void write(List<Pending<I, R>> batch) {
    if (batch.size() == 1) {
      writeAlone(batch.get(0));
      return;
    }
    List<R> results;
    try {
      results = writeAll.apply(batch.stream().map(Pending::item).toList());
    } catch (RuntimeException e) {
      log.debug(
          "{}: a batch of {} failed ({}); writing its items one by one", name, batch.size(), e);
      batch.forEach(this::writeAlone);
      return;
    }
    for (int i = 0; i < batch.size(); i++) {
      batch.get(i).result.complete(results.get(i));
    }
  }

  private void writeAlone(Pending<I, R> pending) {
    try {
      pending.result.complete(writeOne.apply(pending.item));
    } catch (RuntimeException e) {
      pending.result.completeExceptionally(e);
    }
  }

  private record Pending<I, R>(I item, CompletableFuture<R> result) {}
}
