package io.gpuq.proc;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * All processes of the machine as read at one moment by {@link ProcFs#snapshot()}. Immutable.
 *
 * <p>A process whose parent died before it was reparented appears under its new parent (usually pid
 * 1 or a subreaper): descendants that escaped that way are no longer part of {@link #treeOf}.
 */
public final class ProcessTable {

  private final Map<Long, ProcStat> byPid;
  private final Map<Long, List<ProcStat>> childrenByPpid;

  ProcessTable(Collection<ProcStat> processes) {
    Map<Long, ProcStat> pids = new HashMap<>(processes.size() * 2);
    Map<Long, List<ProcStat>> children = new HashMap<>();
    for (ProcStat process : processes) {
      pids.put(process.pid(), process);
      children.computeIfAbsent(process.ppid(), ppid -> new ArrayList<>(2)).add(process);
    }
    this.byPid = pids;
    this.childrenByPpid = children;
  }

  public Optional<ProcStat> get(long pid) {
    return Optional.ofNullable(byPid.get(pid));
  }

  /**
   * The process {@code rootPid} followed by all its descendants (breadth first); empty when the
   * root is not in the table.
   */
  public List<ProcStat> treeOf(long rootPid) {
    ProcStat root = byPid.get(rootPid);
    if (root == null) {
      return List.of();
    }
    List<ProcStat> tree = new ArrayList<>();
    // The stat files are not read atomically, so a pid reused between two reads could in theory
    // close a cycle; the visited set keeps the walk finite whatever the table says.
    Set<Long> visited = new HashSet<>();
    Deque<ProcStat> pending = new ArrayDeque<>();
    pending.add(root);
    while (!pending.isEmpty()) {
      ProcStat process = pending.poll();
      if (visited.add(process.pid())) {
        tree.add(process);
        pending.addAll(childrenByPpid.getOrDefault(process.pid(), List.of()));
      }
    }
    return Collections.unmodifiableList(tree);
  }

  /** Every process in the table, in no particular order. */
  public Collection<ProcStat> all() {
    return Collections.unmodifiableCollection(byPid.values());
  }

  public int size() {
    return byPid.size();
  }
}
