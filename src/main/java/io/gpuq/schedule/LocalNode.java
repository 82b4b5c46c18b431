package io.gpuq.schedule;

import java.util.Map;
import java.util.function.Predicate;

/**
 * This node, as a scheduling pass places jobs on it.
 *
 * @param name its name, which jobs it runs record
 * @param cpuSlots how many jobs without GPUs it runs at once
 * @param selects whether it runs jobs with a given node selector
 */
public record LocalNode(String name, int cpuSlots, Predicate<Map<String, String>> selects) {}
