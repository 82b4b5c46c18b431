package io.gpuq.cgroup;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.TreeSet;
import java.util.regex.Pattern;

/**
 * The worker cgroups of one gpuq: a parent group (by default {@code gpuq}) below gpuq's own cgroup
 * in each hierarchy it uses, and one group per worker below that, named by {@link WorkerId}.
 *
 * <p>v1 has a hierarchy per controller, so a worker's group is one directory in each of the cpuset,
 * memory and (where mounted) cpuacct and pids hierarchies; controllers mounted together share one.
 * v2 has one directory, with cpuset and memory (and pids where available) enabled for the groups
 * below by {@code cgroup.subtree_control}.
 *
 * <p>Groups are created by gpuq's account and keep the kernel's default ownership and modes (root,
 * 0755 directories, 0644 files where gpuq is root): a job running as another account can neither
 * move itself out, nor write a limit, nor make groups of its own.
 */
public final class WorkerCgroups {

  public static final String DEFAULT_PARENT = "gpuq";

  /**
   * v2 only: where gpuq moves itself when its own cgroup must give controllers to the groups below
   * (a cgroup v2 with processes of its own cannot), as systemd's DelegateSubgroup= does.
   */
  static final String SUPERVISOR_LEAF = "supervisor";

  private static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_.-]{0,100}");

  private final CgroupVersion version;
  // Per controller, the directory of the parent group in its hierarchy; several controllers share
  // one on v2 and where v1 mounts them together.
  private final Map<Controller, Path> parents;
  // The pids.max each new worker's group gets; 0 for none.
  private final int processLimit;

  private WorkerCgroups(CgroupVersion version, Map<Controller, Path> parents, int processLimit) {
    this.version = version;
    this.parents = Map.copyOf(parents);
    this.processLimit = processLimit;
  }

  /**
   * Creates (or finds) the parent group {@code parentName} below gpuq's own cgroup in each
   * hierarchy. This is the real test of what detection could only guess: the kernel's refusal comes
   * back as the exception, with its reason.
   *
   * @throws IOException when gpuq cannot make or prepare its parent group
   * @throws IllegalStateException when {@code support} already says cgroups are unavailable
   */
  public static WorkerCgroups open(CgroupSupport support, String parentName) throws IOException {
    if (!NAME.matcher(parentName).matches()) {
      throw new IllegalArgumentException("'" + parentName + "' cannot name a cgroup");
    }
    if (!support.usable()) {
      throw new IllegalStateException(support.describe());
    }
    Map<Controller, Path> parents = new EnumMap<>(Controller.class);
    if (support.version() == CgroupVersion.V1) {
      for (Controller controller :
          List.of(
              Controller.CPUSET,
              Controller.MEMORY,
              Controller.CPUACCT,
              Controller.PIDS,
              Controller.CPU)) {
        Optional<Hierarchy> hierarchy = support.hierarchy(controller);
        if (hierarchy.isEmpty()) {
          continue;
        }
        Path own = hierarchy.get().ownGroup();
        Path parent = own.resolve(parentName);
        makeDirectory(parent);
        if (controller == Controller.CPUSET) {
          // A new v1 cpuset starts with no CPUs and no memory nodes, and takes no process until
          // it has both: the parent gets gpuq's own, its children get the parent's.
          copyIfEmpty(own, parent, "cpuset.cpus");
          copyIfEmpty(own, parent, "cpuset.mems");
        }
        parents.put(controller, parent);
      }
      freezerParent(support, parentName).ifPresent(dir -> parents.put(Controller.FREEZER, dir));
    } else {
      Path own = support.hierarchy(Controller.MEMORY).orElseThrow().ownGroup();
      Path base = v2Base(support.hierarchy(Controller.MEMORY).get(), own);
      // pids where the kernel offers it to gpuq's group: workers then get a process limit.
      boolean pids = support.hierarchy(Controller.PIDS).isPresent();
      List<String> enable =
          pids ? List.of("cpuset", "memory", "pids") : List.of("cpuset", "memory");
      enableV2Controllers(base, enable, true);
      Path parent = base.resolve(parentName);
      makeDirectory(parent);
      enableV2Controllers(parent, enable, false);
      for (Controller controller :
          List.of(Controller.CPUSET, Controller.MEMORY, Controller.CPUACCT, Controller.FREEZER)) {
        parents.put(controller, parent);
      }
      if (pids) {
        parents.put(Controller.PIDS, parent);
      }
      if (enableV2Cpu(base) && enableV2Cpu(parent)) {
        parents.put(Controller.CPU, parent);
      }
    }
    return new WorkerCgroups(support.version(), parents, 0);
  }

  /**
   * v1: the parent group in the freezer hierarchy, where one is mounted and gpuq may write it
   * (issue 34: a stop's deadline freezes the group, kills all of it, thaws). Without it, workers
   * still run; a stop then kills what it finds until the group is empty.
   */
  private static Optional<Path> freezerParent(CgroupSupport support, String parentName) {
    Optional<Hierarchy> hierarchy = support.hierarchy(Controller.FREEZER);
    if (hierarchy.isEmpty() || hierarchy.get().readOnly()) {
      return Optional.empty();
    }
    Path parent = hierarchy.get().ownGroup().resolve(parentName);
    try {
      makeDirectory(parent);
      return Optional.of(parent);
    } catch (IOException refused) {
      return Optional.empty();
    }
  }

  /** gpuq's own v2 cgroup, or the one above it when gpuq has already moved to its leaf. */
  private static Path v2Base(Hierarchy hierarchy, Path own) {
    if (own.getFileName() != null
        && own.getFileName().toString().equals(SUPERVISOR_LEAF)
        && !own.equals(hierarchy.mountPoint())) {
      return own.getParent();
    }
    return own;
  }

  /**
   * Writes {@code +cpuset +memory} (and the other {@code controllers}) into a v2 group's
   * subtree_control. A group other than the root that holds processes refuses (EBUSY, "no internal
   * processes"): when {@code moveSelf}, gpuq then moves itself into a leaf below it and tries once
   * more.
   */
  private static void enableV2Controllers(Path group, List<String> controllers, boolean moveSelf)
      throws IOException {
    Path control = group.resolve("cgroup.subtree_control");
    List<String> enabled = List.of(CgroupFiles.read(control).split("\\s+"));
    if (enabled.containsAll(controllers)) {
      return;
    }
    String enable = "+" + String.join(" +", controllers);
    try {
      CgroupFiles.write(control, enable);
    } catch (IOException busy) {
      if (!moveSelf || CgroupFiles.read(group.resolve("cgroup.procs")).isEmpty()) {
        throw busy;
      }
      Path leaf = group.resolve(SUPERVISOR_LEAF);
      makeDirectory(leaf);
      CgroupFiles.write(leaf.resolve("cgroup.procs"), Long.toString(ProcessHandle.current().pid()));
      try {
        CgroupFiles.write(control, enable);
      } catch (IOException stillBusy) {
        throw new IOException(
            group
                + " still holds processes other than gpuq, so cgroup v2 does not let it give"
                + " controllers to groups below it: run gpuq in a cgroup of its own (systemd:"
                + " Delegate=yes)",
            stillBusy);
      }
    }
  }

  /**
   * Gives the groups below {@code group} v2's cpu controller, which holds a worker that asks for a
   * fraction of a core to it ({@code cpu.max}). Not required: without it such workers share their
   * pool's cores unbounded, as under the affinity fallback.
   */
  private static boolean enableV2Cpu(Path group) {
    try {
      Path control = group.resolve("cgroup.subtree_control");
      if (!List.of(CgroupFiles.read(control).split("\\s+")).contains("cpu")) {
        CgroupFiles.write(control, "+cpu");
      }
      return true;
    } catch (IOException refused) {
      return false;
    }
  }

  private static void makeDirectory(Path dir) throws IOException {
    try {
      Files.createDirectory(dir);
    } catch (FileAlreadyExistsException e) {
      if (!Files.isDirectory(dir)) {
        throw e;
      }
    }
  }

  private static void copyIfEmpty(Path from, Path to, String file) throws IOException {
    if (CgroupFiles.read(to.resolve(file)).isEmpty()) {
      CgroupFiles.write(to.resolve(file), effective(from, file));
    }
  }

  /** A v1 cpuset's effective CPUs or memory nodes where the kernel has them, else its own. */
  static String effective(Path group, String file) throws IOException {
    Path effective = group.resolve(file.replace("cpuset.", "cpuset.effective_"));
    return CgroupFiles.read(Files.exists(effective) ? effective : group.resolve(file));
  }

  public CgroupVersion version() {
    return version;
  }

  /**
   * The same groups, each worker's created from now on with a pids.max of {@code perWorker} tasks
   * (processes and threads), where the pids controller is there; 0 for no limit.
   */
  public WorkerCgroups withProcessLimit(int perWorker) {
    if (perWorker < 0) {
      throw new IllegalArgumentException("a process limit of " + perWorker);
    }
    return new WorkerCgroups(version, parents, perWorker);
  }

  /** Whether workers' groups get a process limit: one is set and the pids controller is there. */
  public boolean limitsProcesses() {
    return processLimit > 0 && parents.containsKey(Controller.PIDS);
  }

  /**
   * Caps the parent group's memory, which every worker's group is charged to, at {@code bytes}
   * (memory and swap alike, as {@link WorkerCgroup#limitMemory}): the workers together, capped or
   * not, can never take more, so what gpuq and the system keep (the node's reservation) stays
   * theirs. A v1 hierarchy that does not charge children to their parent ({@code
   * memory.use_hierarchy} 0, kernels before 5.x) is made to, while the parent has no children yet.
   *
   * @throws IOException when the kernel refuses (on v1, a cap below what the workers use now)
   */
  public void capMemory(long bytes) throws IOException {
    Path parent = parents.get(Controller.MEMORY);
    if (version == CgroupVersion.V1) {
      Path hierarchical = parent.resolve("memory.use_hierarchy");
      if (Files.exists(hierarchical) && CgroupFiles.read(hierarchical).equals("0")) {
        try {
          CgroupFiles.write(hierarchical, "1");
        } catch (IOException e) {
          throw new IOException(
              parent
                  + " does not charge its children's memory to itself (memory.use_hierarchy 0),"
                  + " so a cap on it would not hold the workers: "
                  + e.getMessage(),
              e);
        }
      }
    }
    WorkerCgroup.writeMemoryLimit(version, parent, bytes);
  }

  /** The parent group's memory cap (memory.limit_in_bytes, memory.max); empty when none. */
  public OptionalLong memoryCap() throws IOException {
    String file = version == CgroupVersion.V1 ? "memory.limit_in_bytes" : "memory.max";
    return CgroupFiles.limit(CgroupFiles.read(parents.get(Controller.MEMORY).resolve(file)));
  }

  /**
   * Whether workers' groups can be held to a CPU bandwidth (the cpu controller: v1's cpu hierarchy
   * mounted, or v2's enabled for them), which a worker asking for a fraction of a core needs.
   */
  public boolean limitsCpu() {
    return parents.containsKey(Controller.CPU);
  }

  /** The parent group's directory in the hierarchy of {@code controller}. */
  public Optional<Path> parent(Controller controller) {
    return Optional.ofNullable(parents.get(controller));
  }

  /**
   * Creates the group of one worker, with all of its parent's CPUs, no memory limit and the process
   * limit of {@link #withProcessLimit}, ready to take a process: {@link WorkerCgroup#bindCpus} and
   * {@link WorkerCgroup#limitMemory} narrow it.
   *
   * @throws FileAlreadyExistsException when it exists already (a leftover to adopt or remove)
   */
  public WorkerCgroup create(WorkerId id) throws IOException {
    return create(id, dirsOf(id));
  }

  /**
   * Creates a group below the parent that is no worker's (issue 36: a warm-start zygote's), made as
   * a worker's is. Its name holds no {@code @}: {@link #list} never reads it as a worker's, so
   * neither recovery nor the leftover duty removes it while its processes run.
   *
   * @throws FileAlreadyExistsException when it exists already
   */
  public WorkerCgroup createSide(String name) throws IOException {
    return create(sideId(name), sideDirsOf(name));
  }

  /** A group {@link #createSide} made, if it exists in any hierarchy. */
  public Optional<WorkerCgroup> findSide(String name) {
    Map<Controller, Path> dirs = sideDirsOf(name);
    boolean exists = dirs.values().stream().anyMatch(Files::isDirectory);
    return exists ? Optional.of(new WorkerCgroup(sideId(name), version, dirs)) : Optional.empty();
  }

  /** The names of the side groups below the parent that start with {@code prefix}. */
  public List<String> sideNames(String prefix) throws IOException {
    TreeSet<String> names = new TreeSet<>();
    for (Path parent : new TreeSet<>(parents.values())) {
      try (DirectoryStream<Path> children = Files.newDirectoryStream(parent, Files::isDirectory)) {
        children.forEach(
            child -> {
              String name = child.getFileName().toString();
              if (name.startsWith(prefix) && name.indexOf('@') < 0) {
                names.add(name);
              }
            });
      } catch (NoSuchFileException e) {
        // Removed by hand meanwhile.
      }
    }
    return List.copyOf(names);
  }

  private static WorkerId sideId(String name) {
    if (name.indexOf('@') >= 0) {
      throw new IllegalArgumentException("a side group's name holds no '@': " + name);
    }
    // Validates the name as a directory name; the attempt is not part of it.
    return new WorkerId(name, 1);
  }

  private Map<Controller, Path> sideDirsOf(String name) {
    Map<Controller, Path> dirs = new EnumMap<>(Controller.class);
    parents.forEach((controller, parent) -> dirs.put(controller, parent.resolve(name)));
    return dirs;
  }

  private WorkerCgroup create(WorkerId id, Map<Controller, Path> dirs) throws IOException {
    List<Path> made = new ArrayList<>();
    try {
      for (Path dir : new TreeSet<>(dirs.values())) {
        Files.createDirectory(dir);
        made.add(dir);
      }
      if (version == CgroupVersion.V1) {
        Path cpuset = dirs.get(Controller.CPUSET);
        Path parent = parents.get(Controller.CPUSET);
        CgroupFiles.write(cpuset.resolve("cpuset.mems"), effective(parent, "cpuset.mems"));
        CgroupFiles.write(cpuset.resolve("cpuset.cpus"), effective(parent, "cpuset.cpus"));
      }
      if (limitsProcesses()) {
        // Before any process enters: a fork bomb is held from its first fork.
        CgroupFiles.write(
            dirs.get(Controller.PIDS).resolve("pids.max"), Integer.toString(processLimit));
      }
    } catch (IOException | RuntimeException e) {
      for (Path dir : made) {
        try {
          Files.deleteIfExists(dir);
        } catch (IOException cleanup) {
          e.addSuppressed(cleanup);
        }
      }
      throw e;
    }
    return new WorkerCgroup(id, version, dirs);
  }

  /** The group of a worker that exists (in any of the hierarchies): for re-adoption. */
  public Optional<WorkerCgroup> find(WorkerId id) {
    Map<Controller, Path> dirs = dirsOf(id);
    boolean exists = dirs.values().stream().anyMatch(Files::isDirectory);
    return exists ? Optional.of(new WorkerCgroup(id, version, dirs)) : Optional.empty();
  }

  /**
   * The workers that have a group below the parent, in any hierarchy, in name order: those of a
   * gpuq that crashed, and a half-made group a crash interrupted.
   */
  public List<WorkerId> list() throws IOException {
    TreeSet<String> names = new TreeSet<>();
    for (Path parent : new TreeSet<>(parents.values())) {
      try (DirectoryStream<Path> children = Files.newDirectoryStream(parent, Files::isDirectory)) {
        children.forEach(child -> names.add(child.getFileName().toString()));
      } catch (NoSuchFileException e) {
        // Removed by hand meanwhile: nothing left there.
      }
    }
    Map<String, WorkerId> workers = new LinkedHashMap<>();
    for (String name : names) {
      WorkerId.ofDirectoryName(name).ifPresent(id -> workers.put(name, id));
    }
    return List.copyOf(workers.values());
  }

  private Map<Controller, Path> dirsOf(WorkerId id) {
    Map<Controller, Path> dirs = new EnumMap<>(Controller.class);
    parents.forEach(
        (controller, parent) -> dirs.put(controller, parent.resolve(id.directoryName())));
    return dirs;
  }
}
