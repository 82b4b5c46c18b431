package io.gpuq.fs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

@DisplayName("Deleting a tree a job owned")
class TreeDeletionTest {

  @TempDir Path dir;

  @Test
  void deletes_the_tree_with_its_files_and_subdirectories() throws IOException {
    Path tree = Files.createDirectories(dir.resolve("work/job/a/b"));
    Files.writeString(tree.resolve("checkpoint.pt"), "weights");
    Files.writeString(dir.resolve("work/job/output.log"), "log");

    assertThat(TreeDeletion.deleteTree(dir.resolve("work/job"))).isTrue();

    assertThat(dir.resolve("work/job")).doesNotExist();
    assertThat(dir.resolve("work")).isDirectory();
  }

  @Test
  void deletes_a_link_to_a_file_outside_and_leaves_that_file() throws IOException {
    Path outside = Files.writeString(dir.resolve("gpuq.mv.db"), "the database");
    Path job = Files.createDirectories(dir.resolve("work/job"));
    Files.createSymbolicLink(job.resolve("innocent"), outside);

    TreeDeletion.deleteTree(job);

    assertThat(job).doesNotExist();
    assertThat(outside).hasContent("the database");
  }

  @Test
  void deletes_a_link_to_a_directory_outside_and_leaves_that_directory_and_its_files()
      throws IOException {
    Path outside = Files.createDirectories(dir.resolve("etc"));
    Files.writeString(outside.resolve("passwd"), "root:x:0:0");
    Path job = Files.createDirectories(dir.resolve("work/job/deep"));
    Files.createSymbolicLink(job.resolve("etc"), outside);

    TreeDeletion.deleteTree(dir.resolve("work/job"));

    assertThat(dir.resolve("work/job")).doesNotExist();
    assertThat(outside.resolve("passwd")).hasContent("root:x:0:0");
  }

  @Test
  void a_tree_that_is_itself_a_link_is_unlinked_not_followed() throws IOException {
    Path outside = Files.createDirectories(dir.resolve("elsewhere"));
    Files.writeString(outside.resolve("keep"), "kept");
    Files.createDirectories(dir.resolve("work"));
    Files.createSymbolicLink(dir.resolve("work/job"), outside);

    assertThat(TreeDeletion.deleteTree(dir.resolve("work/job"))).isTrue();

    assertThat(dir.resolve("work/job")).doesNotExist();
    assertThat(Files.exists(dir.resolve("work/job"), LinkOption.NOFOLLOW_LINKS)).isFalse();
    assertThat(outside.resolve("keep")).hasContent("kept");
  }

  @Test
  void nothing_there_is_nothing_to_delete() throws IOException {
    assertThat(TreeDeletion.deleteTree(dir.resolve("absent"))).isFalse();
  }

  @Test
  void a_tree_deeper_than_any_training_run_makes_is_refused_and_left_in_place() throws IOException {
    Path deep = dir.resolve("work/job");
    for (int i = 0; i <= TreeDeletion.MAX_DEPTH; i++) {
      deep = deep.resolve("d");
    }
    Files.createDirectories(deep);

    assertThatThrownBy(() -> TreeDeletion.deleteTree(dir.resolve("work/job")))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("deeper than");
    assertThat(dir.resolve("work/job")).isDirectory();
  }
}
