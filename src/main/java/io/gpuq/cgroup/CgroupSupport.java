package io.gpuq.cgroup;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * What this host's cgroups let gpuq do, as found in {@code /proc/self/cgroup} and {@code
 * /proc/self/mountinfo}: the interface, each controller's hierarchy and gpuq's own cgroup in it,
 * and, when gpuq cannot give workers cgroups, why (for the log and the admin's health details).
 *
 * <p>Detection reads only; it cannot tell every refusal in advance (a root without {@code
 * CAP_SYS_ADMIN} in a container sees writable files), so {@link WorkerCgroups#open} tries for real
 * and reports the kernel's answer the same way.
 *
 * @param hierarchies by controller, those gpuq can read; for v2 one shared hierarchy
 * @param unavailableReason empty when gpuq can create worker cgroups with the cpuset and memory
 *     controllers
 */
public record CgroupSupport(
    CgroupVersion version,
    Map<Controller, Hierarchy> hierarchies,
    Optional<String> unavailableReason) {

  static final List<Controller> WRITTEN = List.of(Controller.CPUSET, Controller.MEMORY);

  public CgroupSupport {
    hierarchies = Map.copyOf(hierarchies);
    if (version == CgroupVersion.NONE && unavailableReason.isEmpty()) {
      throw new IllegalArgumentException("no cgroups without a reason");
    }
  }

  public boolean usable() {
    return unavailableReason.isEmpty();
  }

  public Optional<Hierarchy> hierarchy(Controller controller) {
    return Optional.ofNullable(hierarchies.get(controller));
  }

  /** One line for the log and the health details. */
  public String describe() {
    String where =
        hierarchies.entrySet().stream()
            .sorted(Map.Entry.comparingByKey())
            .map(e -> e.getKey().kernelName() + " " + e.getValue().ownGroup())
            .collect(Collectors.joining(", "));
    String state =
        unavailableReason
            .map(reason -> "worker cgroups unavailable: " + reason)
            .orElse("worker cgroups available");
    return "cgroup " + version + ": " + state + (where.isEmpty() ? "" : " (" + where + ")");
  }

  /** This host, as this process sees it. */
  public static CgroupSupport detect() {
    return detect(HostPaths.system(), effectiveUid(HostPaths.system()));
  }

  /** Reads {@code proc/self/cgroup} and {@code proc/self/mountinfo} below {@code paths}. */
  public static CgroupSupport detect(HostPaths paths, int effectiveUid) {
    List<String> membership;
    List<Mount> mounts;
    try {
      membership = Files.readAllLines(paths.proc().resolve("self/cgroup"));
      mounts = Mount.parseAll(Files.readAllLines(paths.proc().resolve("self/mountinfo")));
    } catch (IOException e) {
      return none("cannot read this process's cgroups from " + paths.proc() + ": " + e);
    }
    Map<String, String> v1Paths = new HashMap<>();
    String v2Path = null;
    for (String line : membership) {
      String[] fields = line.split(":", 3);
      if (fields.length < 3) {
        continue;
      }
      if (fields[0].equals("0") && fields[1].isEmpty()) {
        v2Path = fields[2];
      } else {
        for (String controller : fields[1].split(",")) {
          v1Paths.put(controller, fields[2]);
        }
      }
    }
    Map<Controller, Hierarchy> v1 = new EnumMap<>(Controller.class);
    for (Controller controller : Controller.values()) {
      String path = v1Paths.get(controller.kernelName());
      if (path == null) {
        continue;
      }
      mounts.stream()
          .filter(
              m ->
                  m.fsType().equals("cgroup") && m.superOptions().contains(controller.kernelName()))
          .findFirst()
          .ifPresent(m -> v1.put(controller, m.hierarchy(paths, path)));
    }
    if (v1.containsKey(Controller.CPUSET) || v1.containsKey(Controller.MEMORY)) {
      return checked(CgroupVersion.V1, v1, effectiveUid);
    }
    Optional<Mount> unified = mounts.stream().filter(m -> m.fsType().equals("cgroup2")).findFirst();
    if (unified.isEmpty() || v2Path == null) {
      return none("no cgroup file system with the cpuset and memory controllers is mounted");
    }
    Hierarchy hierarchy = unified.get().hierarchy(paths, v2Path);
    Set<String> available;
    try {
      available =
          Set.of(
              Files.readString(hierarchy.ownGroup().resolve("cgroup.controllers"))
                  .strip()
                  .split("\\s+"));
    } catch (IOException e) {
      return none("cannot read " + hierarchy.ownGroup().resolve("cgroup.controllers") + ": " + e);
    }
    Map<Controller, Hierarchy> v2 = new EnumMap<>(Controller.class);
    for (Controller controller : Controller.values()) {
      // v2 accounts CPU time in every cgroup's cpu.stat, with or without a controller.
      if (controller == Controller.CPUACCT || available.contains(controller.kernelName())) {
        v2.put(controller, hierarchy);
      }
    }
    List<String> missing = missing(v2);
    if (!missing.isEmpty()) {
      return new CgroupSupport(
          CgroupVersion.V2,
          v2,
          Optional.of(
              String.join(" and ", missing)
                  + " not available to gpuq's cgroup "
                  + hierarchy.ownGroup()
                  + " (its cgroup.controllers: "
                  + String.join(" ", available).strip()
                  + "); the cgroup above it must enable them in cgroup.subtree_control"));
    }
    return checked(CgroupVersion.V2, v2, effectiveUid);
  }

  private static CgroupSupport checked(
      CgroupVersion version, Map<Controller, Hierarchy> hierarchies, int effectiveUid) {
    List<String> missing = missing(hierarchies);
    if (!missing.isEmpty()) {
      return new CgroupSupport(
          version,
          hierarchies,
          Optional.of(
              "the "
                  + String.join(" and ", missing)
                  + (missing.size() > 1 ? " controllers are" : " controller is")
                  + " not mounted"));
    }
    List<String> reasons = new ArrayList<>();
    for (Controller controller : WRITTEN) {
      Hierarchy h = hierarchies.get(controller);
      if (h.readOnly()) {
        reasons.add(h.mountPoint() + " is mounted read-only");
      } else if (effectiveUid != 0 && !Files.isWritable(h.ownGroup())) {
        reasons.add(
            "gpuq (uid "
                + effectiveUid
                + ") may not write to "
                + h.ownGroup()
                + ": it is not root and the cgroup is not delegated to it");
      }
    }
    return new CgroupSupport(
        version,
        hierarchies,
        reasons.isEmpty()
            ? Optional.empty()
            : Optional.of(reasons.stream().distinct().collect(Collectors.joining("; "))));
  }

  private static List<String> missing(Map<Controller, Hierarchy> hierarchies) {
    return Arrays.stream(Controller.values())
        .filter(WRITTEN::contains)
        .filter(c -> !hierarchies.containsKey(c))
        .map(Controller::kernelName)
        .toList();
  }

  private static CgroupSupport none(String reason) {
    return new CgroupSupport(CgroupVersion.NONE, Map.of(), Optional.of(reason));
  }

  static int effectiveUid(HostPaths paths) {
    try {
      for (String line : Files.readAllLines(paths.proc().resolve("self/status"))) {
        if (line.startsWith("Uid:")) {
          return Integer.parseInt(line.substring(4).strip().split("\\s+")[1]);
        }
      }
    } catch (IOException | RuntimeException e) {
      // Unknown: treated as unprivileged, which only adds a reason.
    }
    return -1;
  }

  /** One line of mountinfo, the fields gpuq needs. */
  record Mount(
      String root, String mountPoint, boolean readOnly, String fsType, Set<String> superOptions) {

    static List<Mount> parseAll(List<String> lines) {
      List<Mount> mounts = new ArrayList<>();
      for (String line : lines) {
        String[] fields = line.split(" ");
        int separator = Arrays.asList(fields).indexOf("-");
        if (separator < 6 || fields.length < separator + 4) {
          continue;
        }
        Set<String> mountOptions = Set.of(fields[5].split(","));
        Set<String> superOptions = Set.of(fields[separator + 3].split(","));
        mounts.add(
            new Mount(
                unescape(fields[3]),
                unescape(fields[4]),
                mountOptions.contains("ro") || superOptions.contains("ro"),
                fields[separator + 1],
                superOptions));
      }
      return mounts;
    }

    /** mountinfo writes space, tab, newline and backslash as octal escapes. */
    static String unescape(String field) {
      StringBuilder out = new StringBuilder();
      for (int i = 0; i < field.length(); i++) {
        char c = field.charAt(i);
        if (c == '\\'
            && i + 3 < field.length()
            && field.substring(i + 1, i + 4).matches("[0-7]{3}")) {
          out.append((char) Integer.parseInt(field.substring(i + 1, i + 4), 8));
          i += 3;
        } else {
          out.append(c);
        }
      }
      return out.toString();
    }

    /**
     * gpuq's own cgroup in this mount. The path in /proc/self/cgroup is relative to the hierarchy's
     * root, the mount's root is where in the hierarchy this mount starts: a container often sees
     * only its own subtree mounted, with or without a cgroup namespace.
     */
    Hierarchy hierarchy(HostPaths paths, String cgroupPath) {
      Path mount = paths.mountPoint(mountPoint);
      String relative;
      if (root.equals("/")) {
        relative = cgroupPath;
      } else if (cgroupPath.equals(root)) {
        relative = "/";
      } else if (cgroupPath.startsWith(root + "/")) {
        relative = cgroupPath.substring(root.length());
      } else {
        // Outside what is mounted (a cgroup namespace's "/.." paths): the mount is all gpuq sees.
        relative = "/";
      }
      if (relative.contains("/..")) {
        relative = "/";
      }
      Path own = relative.equals("/") ? mount : mount.resolve(relative.substring(1));
      return new Hierarchy(mount, own, readOnly);
    }
  }
}
