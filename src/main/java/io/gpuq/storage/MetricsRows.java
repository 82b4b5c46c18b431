package io.gpuq.storage;

import io.gpuq.job.TrialSeries;
import io.gpuq.reported.MetricsPage;
import io.gpuq.reported.MetricsUpdate;
import io.gpuq.reported.ReportedPoint;
import io.gpuq.reported.ReportingJob;
import java.util.List;
import java.util.Optional;

/**
 * The metrics runs report, in plain JDBC: their rows ({@code job_metrics}) and where reading them
 * stands on the job's row, columns the entity only reads. A fragment of {@link JobRepository}.
 */
interface MetricsRows {

  List<ReportingJob> findReportingOn(String node, String afterId, int limit);

  Optional<ReportingJob> findReporting(String jobId);

  void insertMetrics(MetricsUpdate update);

  List<ReportedPoint> findMetrics(String jobId, int limit);

  MetricsPage findMetricsPage(String jobId, long afterSeq, int limit, long maxBytes);

  List<TrialSeries> findSweepSeries(String sweepId, String metric);
}
