package io.gpuq.schedule;

import io.gpuq.guard.ExitClassifier;
import io.gpuq.launch.JobFiles;
import io.gpuq.launch.Workers;

/**
 * What judging how a worker ended reads besides its exit: whether its wrapper could write its exit
 * code, and its log, whose tail the classifier searches.
 *
 * @param workers this node's workers, which know whether an exit code went unwritten
 * @param files where each job's log lies
 * @param classifier what tells, from the exit and the log's tail, how the attempt ended
 * @param logTailBytes how much of the end of a failed worker's log the classifier reads
 */
public record ExitJudging(
    Workers workers, JobFiles files, ExitClassifier classifier, int logTailBytes) {}
