package io.gpuq.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class GroupCommitTest {

  private final List<List<String>> batches = new CopyOnWriteArrayList<>();
  private final List<String> alone = new CopyOnWriteArrayList<>();
  private GroupCommit<String, String> commit;
  private Duration linger = Duration.ZERO;

  @AfterEach
  void close() {
    if (commit != null) {
      commit.close();
    }
  }

  private GroupCommit<String, String> groupCommit(
      Function<List<String>, List<String>> writeAll, Function<String, String> writeOne) {
    commit =
        new GroupCommit<>(
            "test-writer",
            64,
            linger,
            items -> {
              batches.add(List.copyOf(items));
              return writeAll.apply(items);
            },
            item -> {
              alone.add(item);
              return writeOne.apply(item);
            });
    return commit;
  }

  private static List<String> upperCase(List<String> items) {
    return items.stream().map(String::toUpperCase).toList();
  }

  @Test
  void an_item_under_no_load_is_written_alone_at_once() {
    groupCommit(GroupCommitTest::upperCase, String::toUpperCase);

    assertThat(commit.write("a").orTimeout(5, TimeUnit.SECONDS).join()).isEqualTo("A");
    assertThat(alone).containsExactly("a");
    assertThat(batches).isEmpty();
  }

  @Test
  void items_handed_in_while_a_write_runs_share_the_next_commit_and_each_caller_gets_its_own()
      throws Exception {
    CountDownLatch firstWriteStarted = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    groupCommit(
        GroupCommitTest::upperCase,
        item -> {
          firstWriteStarted.countDown();
          await(release);
          return item.toUpperCase();
        });
    CompletableFuture<String> first = commit.write("first");
    assertThat(firstWriteStarted.await(5, TimeUnit.SECONDS)).isTrue();

    List<CompletableFuture<String>> waiting = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      waiting.add(commit.write("item-" + i));
    }
    release.countDown();

    assertThat(first.orTimeout(5, TimeUnit.SECONDS).join()).isEqualTo("FIRST");
    for (int i = 0; i < 10; i++) {
      assertThat(waiting.get(i).orTimeout(5, TimeUnit.SECONDS).join()).isEqualTo("ITEM-" + i);
    }
    assertThat(batches).hasSize(1);
    assertThat(batches.get(0)).hasSize(10);
  }

  @Test
  void with_a_linger_items_that_arrive_within_it_share_the_commit_of_the_first() throws Exception {
    linger = Duration.ofSeconds(2);
    groupCommit(GroupCommitTest::upperCase, String::toUpperCase);

    CompletableFuture<String> first = commit.write("first");
    Thread.sleep(50);
    CompletableFuture<String> second = commit.write("second");

    assertThat(first.orTimeout(5, TimeUnit.SECONDS).join()).isEqualTo("FIRST");
    assertThat(second.orTimeout(5, TimeUnit.SECONDS).join()).isEqualTo("SECOND");
    assertThat(batches).containsExactly(List.of("first", "second"));
    assertThat(alone).isEmpty();
  }

  @Test
  void a_batch_that_fails_is_written_again_item_by_item_so_only_the_bad_item_fails()
      throws Exception {
    CountDownLatch blocking = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    groupCommit(
        items -> {
          throw new IllegalStateException("unique index violated");
        },
        item -> {
          if (item.equals("blocker")) {
            blocking.countDown();
            await(release);
          }
          if (item.equals("bad")) {
            throw new IllegalStateException("unique index violated by " + item);
          }
          return item.toUpperCase();
        });
    CompletableFuture<String> blocker = commit.write("blocker");
    assertThat(blocking.await(5, TimeUnit.SECONDS)).isTrue();
    CompletableFuture<String> good = commit.write("good");
    CompletableFuture<String> bad = commit.write("bad");
    CompletableFuture<String> alsoGood = commit.write("also-good");
    release.countDown();

    assertThat(blocker.orTimeout(5, TimeUnit.SECONDS).join()).isEqualTo("BLOCKER");
    assertThat(good.orTimeout(5, TimeUnit.SECONDS).join()).isEqualTo("GOOD");
    assertThat(alsoGood.orTimeout(5, TimeUnit.SECONDS).join()).isEqualTo("ALSO-GOOD");
    assertThatThrownBy(() -> bad.orTimeout(5, TimeUnit.SECONDS).join())
        .isInstanceOf(CompletionException.class)
        .hasRootCauseMessage("unique index violated by bad");
    assertThat(batches).containsExactly(List.of("good", "bad", "also-good"));
  }

  @Test
  void the_writer_survives_an_error_and_writes_what_comes_next() {
    groupCommit(
        GroupCommitTest::upperCase,
        item -> {
          if (item.equals("boom")) {
            throw new AssertionError("not a RuntimeException");
          }
          return item.toUpperCase();
        });

    assertThatThrownBy(() -> commit.write("boom").orTimeout(5, TimeUnit.SECONDS).join())
        .hasCauseInstanceOf(AssertionError.class);
    assertThat(commit.write("next").orTimeout(5, TimeUnit.SECONDS).join()).isEqualTo("NEXT");
  }

  @Test
  void closing_writes_what_is_pending_and_then_refuses_new_items() throws Exception {
    CountDownLatch writing = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    groupCommit(
        GroupCommitTest::upperCase,
        item -> {
          writing.countDown();
          await(release);
          return item.toUpperCase();
        });
    CompletableFuture<String> running = commit.write("running");
    assertThat(writing.await(5, TimeUnit.SECONDS)).isTrue();
    CompletableFuture<String> pending = commit.write("pending");
    Thread closer = new Thread(commit::close);
    closer.start();
    Thread.sleep(Duration.ofMillis(100).toMillis());
    assertThat(pending).isNotDone();
    release.countDown();
    closer.join(5_000);

    assertThat(running.isDone() && pending.isDone()).isTrue();
    assertThat(running.join()).isEqualTo("RUNNING");
    assertThat(pending.join()).isEqualTo("PENDING");
    assertThatThrownBy(() -> commit.write("late").join())
        .hasCauseInstanceOf(IllegalStateException.class);
  }

  private static void await(CountDownLatch latch) {
    try {
      if (!latch.await(10, TimeUnit.SECONDS)) {
        throw new IllegalStateException("latch never released");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
