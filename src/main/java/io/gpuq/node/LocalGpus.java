package io.gpuq.node;

import io.gpuq.gpu.GpuDevice;
import io.gpuq.gpu.GpuInventory;
import io.gpuq.gpu.GpuPoller;
import io.gpuq.gpu.GpuSample;
import io.gpuq.gpu.GpuUsage;
import io.gpuq.launch.Workers;
import java.util.List;
import java.util.Map;

/** This node's GPUs as it shows them: the last poll, with the budgets of live workers. */
public class LocalGpus {

  private final GpuInventory inventory;
  private final GpuPoller poller;
  private final Workers workers;
  private final NodeIdentity node;

  public LocalGpus(GpuInventory inventory, GpuPoller poller, Workers workers, NodeIdentity node) {
    this.inventory = inventory;
    this.poller = poller;
    this.workers = workers;
    this.node = node;
  }

  /** Where its figures come from: {@code nvml} or {@code emulated}. */
  public String backendKind() {
    return inventory.backendKind();
  }

  public List<NodeGpu> gpus() {
    GpuUsage usage = poller.latest();
    Map<Integer, Long> reserved = workers.reservedBytesByGpu();
    return inventory.devices().stream().map(d -> view(d, usage, reserved)).toList();
  }

  private NodeGpu view(GpuDevice device, GpuUsage usage, Map<Integer, Long> reserved) {
    GpuSample sample =
        usage.samples().stream()
            .filter(s -> s.device().index() == device.index())
            .findFirst()
            .orElse(null);
    List<NodeGpu.Process> processes =
        sample == null
            ? List.of()
            : sample.processes().stream()
                .map(
                    p ->
                        new NodeGpu.Process(
                            p.pid(), usage.jobOfPid().get(p.pid()), p.memoryUsedBytes()))
                .toList();
    return new NodeGpu(
        node.name(),
        device.index(),
        device.uuid(),
        device.name(),
        inventory.backendKind(),
        device.memoryTotalBytes(),
        sample == null ? 0 : sample.memoryUsedBytes(),
        reserved.getOrDefault(device.index(), 0L),
        sample == null ? 0 : sample.utilization(),
        processes);
  }
}
