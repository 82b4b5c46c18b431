/**
 * The REST API of {@code docs/api.md}: controllers, the views they answer with, request limits, and
 * every error as {@code application/problem+json}. An edge: it turns HTTP into calls on the
 * services and the job domain, and owns nothing they need.
 */
package io.gpuq.api;
