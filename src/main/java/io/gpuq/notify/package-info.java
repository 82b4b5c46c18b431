/**
 * Notifications (issue 37): a job's or a sweep's {@code notify} targets, checked at submission; the
 * events they wait for, the body sent, its signature and the backoff between tries. Plain Java: the
 * table ({@code storage.NotificationTable}) and the HTTP delivery ({@link NotificationDuty}) sit at
 * the edges.
 */
package io.gpuq.notify;
