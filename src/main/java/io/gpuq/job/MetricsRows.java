package io.gpuq.job;

import java.util.List;

/**
 * The metrics runs report, in plain JDBC: their rows ({@code job_metrics}) and where reading them
 * stands on the job's row, columns the entity only reads. A fragment of {@link JobRepository}.
 */
interface MetricsRows {

  List<ReportingJob> findReportingOn(String node);

  void insertMetrics(MetricsUpdate update);

  List<ReportedPoint> findMetrics(String jobId, int limit);

  List<TrialSeries> findSweepSeries(String sweepId, String metric);
}
