/**
 * Jobs: the request and its validation into a {@code JobSpec}, the state machine, the caller and
 * what it may access, submission and admission, and the store's port ({@code JobStore}, with the
 * rules of its moves written once) and its in-memory implementation. Plain Java, the whole package:
 * the database adapter, with the entities' mapping, is {@code io.gpuq.storage}.
 */
package io.gpuq.job;
