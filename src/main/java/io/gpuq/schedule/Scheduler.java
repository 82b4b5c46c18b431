package io.gpuq.schedule;

/**
 * The scheduler's steps, wired once by {@link SchedulerBuilder}: the loop and its passes, the
 * launch and watch of each attempt, the recovery after a restart, and the duties that stop workers.
 */
public record Scheduler(
    Wakeups wakeups,
    JobExecution execution,
    RecordWorkerEnd recordEnd,
    Dispatcher dispatcher,
    SchedulingLoop loop,
    WorkerRecovery recovery,
    TimeoutDuty timeouts,
    StopUnownedWorkers stopUnowned,
    QueuedReasons queuedReasons,
    UsageAccounting usageAccounting) {}
