/**
 * The bound on a stop: a replica that cannot go on is restarted by its orchestrator only once it
 * exits, so a stop that never ends (a native call of the Kafka client that never returns, its
 * worker waiting for a thread of libuv's pool) must not keep it alive. Seen on a three-node
 * cluster: two replicas logged "runtime cannot go on" after their InitProducerId calls hung, and
 * stayed up, holding their partitions until the group dropped them five minutes later.
 *
 * Returns what cancels the deadline. The timer does not keep the process alive by itself.
 */
export function exitDeadline(
  ms: number,
  code: number,
  deps: { exit: (code: number) => void; onLate: (ms: number) => void },
): () => void {
  const timer = setTimeout(() => {
    deps.onLate(ms);
    deps.exit(code === 0 ? 1 : code);
  }, ms);
  timer.unref();
  return () => {
    clearTimeout(timer);
  };
}

/** How long a stop may take past SHUTDOWN_TIMEOUT_MS (the clients' own closing) before exiting. */
export const EXIT_GRACE_MS = 10_000;
