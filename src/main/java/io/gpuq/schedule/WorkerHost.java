package io.gpuq.schedule;

import io.gpuq.gpu.GpuBackend;
import io.gpuq.job.ClaimedJob;
import io.gpuq.job.JobPlacement;
import io.gpuq.launch.LaunchRequest;
import io.gpuq.proc.ProcFs;
import java.util.function.BiFunction;

/**
 * What a worker is given on this node besides its command.
 *
 * @param setup each claimed job's launch where it was placed: who its worker runs as, its
 *     environment, and what it runs (a warm start's client for a job with {@code preload})
 * @param gpus what attaches a worker to the GPUs it was placed on
 * @param procFs where a worker's start time is read, which tells its PID from a later process's
 */
public record WorkerHost(
    BiFunction<ClaimedJob, JobPlacement, LaunchRequest> setup, GpuBackend gpus, ProcFs procFs) {}
