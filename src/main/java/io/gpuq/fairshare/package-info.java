/**
 * Fair share between the owners who share gpuq: what each owner is given ({@code OwnerTerms}: a
 * share, the same on each of their tokens), what they hold and have used ({@code Held}, {@code
 * RecentUsage}), and the order in which a scheduling pass serves them ({@code FairShareOrder}).
 * Plain Java, no I/O: a pure function of the owners' standings and their queued jobs.
 */
package io.gpuq.fairshare;
