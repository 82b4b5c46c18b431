/**
 * Jobs: the request and its validation into a {@code JobSpec}, the state machine, the caller and
 * what it may access, submission and admission, and persistence. The core (spec, validation,
 * transitions) is plain Java; the entities, {@code JobRepository} and {@code JobService} are its
 * JPA and Spring edge.
 */
package io.gpuq.job;
