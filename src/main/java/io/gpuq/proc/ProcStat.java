package io.gpuq.proc;

/**
 * One process as read from {@code /proc/<pid>/stat}.
 *
 * @param pid the process id
 * @param ppid the parent's process id (0 for the roots of the process tree)
 * @param startTimeTicks start time in clock ticks since boot; together with {@code pid} it
 *     identifies a process even after its pid is reused
 * @param residentBytes resident set size in bytes (RSS pages × page size)
 * @param cpuTimeTicks user + system CPU time in clock ticks (children not included)
 */
public record ProcStat(
    long pid, long ppid, long startTimeTicks, long residentBytes, long cpuTimeTicks) {}
