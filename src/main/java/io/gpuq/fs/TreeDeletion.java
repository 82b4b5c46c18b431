package io.gpuq.fs;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SecureDirectoryStream;
import java.nio.file.attribute.BasicFileAttributeView;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;

/**
 * Deletes a directory tree that a job's account owned and may have filled with traps: a symbolic
 * link is deleted, never followed, and no path is resolved twice. Every step is relative to a
 * directory already opened ({@code openat}/{@code unlinkat} through {@link SecureDirectoryStream},
 * which Linux provides), and each subdirectory is opened with {@code O_NOFOLLOW}: a directory
 * swapped for a link between the look and the open fails the open instead of leading elsewhere.
 */
public final class TreeDeletion {

  /** Deeper than any tree a training run makes; a deeper one is a trap, and is left for a human. */
  static final int MAX_DEPTH = 256;

  private static final LinkOption NOFOLLOW = LinkOption.NOFOLLOW_LINKS;

  private TreeDeletion() {}

  /**
   * Deletes {@code tree} and everything under it; nothing when it does not exist. {@code tree}'s
   * parent is trusted (a directory of gpuq's own); nothing below it is.
   *
   * @return whether there was something to delete
   */
  public static boolean deleteTree(Path tree) throws IOException {
    Path parent = tree.toAbsolutePath().getParent();
    try (DirectoryStream<Path> stream = Files.newDirectoryStream(parent)) {
      if (!(stream instanceof SecureDirectoryStream<Path> secure)) {
        throw new IOException("this platform cannot delete " + tree + " without following links");
      }
      return deleteEntry(secure, tree.getFileName(), 0);
    } catch (NoSuchFileException e) {
      return false;
    }
  }

  private static boolean deleteEntry(SecureDirectoryStream<Path> parent, Path name, int depth)
      throws IOException {
    BasicFileAttributes attributes;
    try {
      attributes =
          parent
              .getFileAttributeView(name, BasicFileAttributeView.class, NOFOLLOW)
              .readAttributes();
    } catch (NoSuchFileException e) {
      return false;
    }
    if (!attributes.isDirectory()) {
      parent.deleteFile(name);
      return true;
    }
    if (depth >= MAX_DEPTH) {
      throw new IOException("refusing to delete a tree deeper than " + MAX_DEPTH + " at " + name);
    }
    try (SecureDirectoryStream<Path> directory = parent.newDirectoryStream(name, NOFOLLOW)) {
      // Names first, deletions after: unlinking while readdir(3) is under way may skip entries.
      List<Path> names = new ArrayList<>();
      for (Path entry : directory) {
        names.add(entry.getFileName());
      }
      for (Path child : names) {
        deleteEntry(directory, child, depth + 1);
      }
    }
    parent.deleteDirectory(name);
    return true;
  }
}
