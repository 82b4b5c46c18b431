package io.gpuq.confinement;

import io.gpuq.cgroup.CgroupSupport;
import io.gpuq.cgroup.CgroupVersion;
import io.gpuq.support.HttpApi;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import tools.jackson.databind.JsonNode;

/** What the tests of workers in cgroups read: gpuq's health details, the groups, /proc. */
final class CgroupFixture {

  static final long MIB = 1L << 20;

  /** A python3 program that touches {@code mib} MiB of its own memory, then says so. */
  static String allocating(int mib) {
    return "python3 -c 'b = bytearray("
        + mib
        + " << 20)\nfor i in range(0, len(b), 4096): b[i] = 1\nprint(\"allocated\", len(b) >> 20)'";
  }

  private CgroupFixture() {}

  /** Whether worker cgroups are to be tested: this machine's v1 (v2 is not here to test). */
  static boolean cgroupsV1Usable() {
    CgroupSupport support = CgroupSupport.detect();
    return support.usable() && support.version() == CgroupVersion.V1;
  }

  /** Detection's reason, for the skip. */
  static String why() {
    return CgroupSupport.detect().describe();
  }

  static JsonNode cgroupsHealth(HttpApi admin) {
    return admin.get("/actuator/health").json().at("/components/cgroups/details");
  }

  /** The workers' parent groups, one per hierarchy, from the health details. */
  static List<Path> parents(HttpApi admin) {
    List<Path> parents = new ArrayList<>();
    cgroupsHealth(admin).get("parentGroups").forEach(p -> parents.add(Path.of(p.asString())));
    return parents;
  }

  /** The worker groups below the parents, by directory name. */
  static List<String> workerGroups(List<Path> parents) throws IOException {
    List<String> names = new ArrayList<>();
    for (Path parent : parents) {
      if (!Files.isDirectory(parent)) {
        continue;
      }
      try (DirectoryStream<Path> children = Files.newDirectoryStream(parent, Files::isDirectory)) {
        children.forEach(child -> names.add(parent + "/" + child.getFileName()));
      }
    }
    return names;
  }

  /** The group directory of a worker that holds {@code file} (cpuacct.usage, cpuset.cpus...). */
  static Optional<Path> groupWith(List<Path> parents, String worker, String file) {
    return parents.stream()
        .map(parent -> parent.resolve(worker))
        .filter(dir -> Files.exists(dir.resolve(file)))
        .findFirst();
  }

  static String read(Path file) {
    try {
      return Files.readString(file).strip();
    } catch (IOException e) {
      return "";
    }
  }

  /** A line of /proc/PID/status, such as Cpus_allowed_list; empty when the process is gone. */
  static String status(long pid, String field) {
    try {
      for (String line : Files.readAllLines(Path.of("/proc/" + pid + "/status"))) {
        if (line.startsWith(field + ":")) {
          return line.substring(field.length() + 1).strip();
        }
      }
    } catch (IOException gone) {
      // Gone.
    }
    return "";
  }

  /** The pid of the running attempt's worker (its wrapper), or null before gpuq knows it. */
  static Long workerPid(HttpApi api, String id) {
    JsonNode attempts = api.job(id).get("attempts");
    if (attempts == null || attempts.isEmpty()) {
      return null;
    }
    JsonNode pid = attempts.get(attempts.size() - 1).get("pid");
    return pid == null || pid.isNull() ? null : pid.asLong();
  }

  /** The children of a process, from /proc/PID/task/PID/children. */
  static List<Long> children(long pid) {
    String text = read(Path.of("/proc/" + pid + "/task/" + pid + "/children"));
    List<Long> pids = new ArrayList<>();
    for (String part : text.split("\\s+")) {
      if (!part.isBlank()) {
        pids.add(Long.parseLong(part));
      }
    }
    return pids;
  }

  /** A process's argv as /proc has it, NULs between its words. */
  static String commandLine(long pid) {
    try {
      return new String(Files.readAllBytes(Path.of("/proc/" + pid + "/cmdline")));
    } catch (IOException gone) {
      return "";
    }
  }
}
