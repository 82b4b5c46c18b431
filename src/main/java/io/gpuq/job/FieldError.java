package io.gpuq.job;

/** One thing wrong with a request, named by its JSON path (for example {@code resources.gpus}). */
public record FieldError(String field, String message) {}
