package io.gpuq.schedule;

import io.gpuq.job.Job;
import io.gpuq.job.JobPlacement;
import io.gpuq.job.JobService;
import io.gpuq.launch.Workers;
import java.util.List;

/** One scheduling pass: reads the head of the queue, decides what starts, and starts it. */
public class Dispatcher {

  private final JobService jobs;
  private final Workers workers;
  private final JobExecution execution;
  private final String node;
  private final int cpuSlots;
  private final int lookahead;

  public Dispatcher(
      JobService jobs,
      Workers workers,
      JobExecution execution,
      String node,
      int cpuSlots,
      int lookahead) {
    this.jobs = jobs;
    this.workers = workers;
    this.execution = execution;
    this.node = node;
    this.cpuSlots = cpuSlots;
    this.lookahead = lookahead;
  }

  public DispatchResult dispatch() {
    int free = cpuSlots - workers.count();
    if (free <= 0) {
      return new DispatchResult(0, null);
    }
    List<Job> queue = jobs.queueHead(lookahead);
    int started = 0;
    for (Job job : queue) {
      if (started == free) {
        break;
      }
      if (job.gpus() == 0 && execution.start(job.id(), JobPlacement.cpuOnly(node))) {
        started++;
      }
    }
    return new DispatchResult(started, null);
  }
}
