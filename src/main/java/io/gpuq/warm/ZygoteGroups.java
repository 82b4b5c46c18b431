package io.gpuq.warm;

import io.gpuq.cgroup.WorkerCgroup;
import io.gpuq.cgroup.WorkerCgroups;
import io.gpuq.launch.Workers;
import io.gpuq.text.Cpus;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The warm-start zygotes' own cgroups (issue 36), beside the workers' below gpuq's parent group, by
 * the same {@link WorkerCgroups} (v1 or v2): {@code warm-<key>}, one per zygote. A zygote's group
 * holds it to at most one core's time and to the memory its first trial reserved, and what it uses
 * is what its owner holds for it: its memory as the group is charged (the imported modules, which
 * its forks share), and its CPU as the group's rate since the last reading, counted in the node's
 * capacity and in the owner's fair share ({@link Workers#holdAlso}).
 *
 * <p>A group's name holds no {@code @}, so gpuq's recovery never takes it for a worker's: a zygote
 * and its running trials outlive a restart of gpuq, and the new gpuq counts them by the groups it
 * finds. Its owner is read from where only gpuq writes ({@code owners/<key>}).
 */
public final class ZygoteGroups {

  private static final Logger log = LoggerFactory.getLogger(ZygoteGroups.class);

  static final String PREFIX = "warm-";
  // A zygote may use one core while it imports; once it serves it sleeps.
  private static final long MAX_MILLICORES = 1000;
  // Readings closer than this give no rate worth counting: the last rate stands.
  private static final long MIN_SAMPLE_NANOS = Duration.ofSeconds(1).toNanos();

  private final Optional<WorkerCgroups> cgroups;
  private final Path root;
  private final LongSupplier nanoTime;
  private final Map<String, Sample> samples = new ConcurrentHashMap<>();

  private record Sample(long atNanos, long cpuNanos, long millicores) {}

  /**
   * @param cgroups the workers' groups; empty where workers run without cgroups (a zygote then runs
   *     in gpuq's own group, and nothing is counted for it)
   * @param root the zygotes' directories ({@code <data-dir>/warm})
   */
  public ZygoteGroups(Optional<WorkerCgroups> cgroups, Path root, LongSupplier nanoTime) {
    this.cgroups = cgroups;
    this.root = root;
    this.nanoTime = nanoTime;
  }

  /** Without cgroups: zygotes are not confined, nor counted. */
  public static ZygoteGroups none(Path root) {
    return new ZygoteGroups(Optional.empty(), root, System::nanoTime);
  }

  public boolean confines() {
    return cgroups.isPresent();
  }

  /**
   * Moves a zygote just started into its own group (made anew if an empty one is left), capped at
   * one core's time and at {@code memoryBytes} where that is not null.
   */
  void place(String keyId, long pid, Long memoryBytes) throws IOException {
    if (cgroups.isEmpty()) {
      return;
    }
    String name = PREFIX + keyId;
    Optional<WorkerCgroup> old = cgroups.get().findSide(name);
    if (old.isPresent() && !old.get().remove()) {
      // An older zygote of this key still finishes its trials there: the new one joins it.
      old.get().addProcess(pid);
      return;
    }
    WorkerCgroup group = cgroups.get().createSide(name);
    if (group.hasCpuController()) {
      group.limitCpu(MAX_MILLICORES);
    }
    if (memoryBytes != null) {
      group.limitMemory(memoryBytes);
    }
    group.addProcess(pid);
    samples.remove(name);
  }

  /** Per owner, the memory and CPU of their zygotes' groups now (see the class comment). */
  public Map<String, Workers.HostHeld> heldByOwner() {
    if (cgroups.isEmpty()) {
      return Map.of();
    }
    Map<String, Workers.HostHeld> held = new HashMap<>();
    try {
      for (String name : cgroups.get().sideNames(PREFIX)) {
        Optional<WorkerCgroup> group = cgroups.get().findSide(name);
        Optional<String> owner = ownerOf(name.substring(PREFIX.length()));
        if (group.isEmpty() || owner.isEmpty()) {
          continue;
        }
        long memory;
        long millicores;
        try {
          memory = group.get().memoryUsage();
          millicores = cpuRate(name, group.get().cpuUsage().toNanos());
        } catch (IOException e) {
          continue; // removed meanwhile
        }
        held.merge(
            owner.get(),
            new Workers.HostHeld(Cpus.ofMillis(millicores), memory),
            (a, b) ->
                new Workers.HostHeld(a.cpus().plus(b.cpus()), a.memoryBytes() + b.memoryBytes()));
      }
    } catch (IOException e) {
      log.warn("cannot list the warm-start zygotes' cgroups: {}", e.toString());
    }
    return held;
  }

  /** Removes the groups whose zygote has gone; run by a duty. */
  public int removeEmpty() {
    if (cgroups.isEmpty()) {
      return 0;
    }
    int removed = 0;
    try {
      for (String name : cgroups.get().sideNames(PREFIX)) {
        Optional<WorkerCgroup> group = cgroups.get().findSide(name);
        if (group.isPresent() && group.get().processes().isEmpty() && group.get().remove()) {
          samples.remove(name);
          removed++;
        }
      }
    } catch (IOException e) {
      log.warn("cannot remove the groups of ended zygotes: {}", e.toString());
    }
    return removed;
  }

  /** The group of a zygote, for tests and the health details. */
  public Optional<WorkerCgroup> groupOf(String keyId) {
    return cgroups.flatMap(groups -> groups.findSide(PREFIX + keyId));
  }

  /** The CPU the group used since the last reading, in thousandths of a core, rounded up. */
  private long cpuRate(String name, long cpuNanos) {
    long now = nanoTime.getAsLong();
    Sample last = samples.get(name);
    if (last == null) {
      samples.put(name, new Sample(now, cpuNanos, 0));
      return 0;
    }
    long elapsed = now - last.atNanos();
    if (elapsed < MIN_SAMPLE_NANOS) {
      return last.millicores();
    }
    long used = Math.max(0, cpuNanos - last.cpuNanos());
    long millicores = Math.min(MAX_MILLICORES, (used * 1000 + elapsed - 1) / elapsed);
    // Cpus count in hundredths and more; a zygote idling at a few microseconds counts as none.
    millicores = millicores < 10 ? 0 : millicores;
    samples.put(name, new Sample(now, cpuNanos, millicores));
    return millicores;
  }

  private Optional<String> ownerOf(String keyId) {
    Path file = root.resolve(WarmStarts.OWNERS_DIR).resolve(keyId);
    try {
      if (!Files.isRegularFile(file, LinkOption.NOFOLLOW_LINKS)) {
        return Optional.empty();
      }
      String owner = Files.readString(file, StandardCharsets.UTF_8).trim();
      return owner.isEmpty() ? Optional.empty() : Optional.of(owner);
    } catch (IOException e) {
      return Optional.empty();
    }
  }
}
