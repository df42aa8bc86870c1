/**
 * kafkajs 2.2.4's answer to a pause, resume or seek while its consumer is between runs: after
 * a crash (a broker outage, for one) it drops its consumer group and starts a new one a moment
 * later, and until then these calls throw.
 */
export function isBetweenRuns(error: unknown): boolean {
  return error instanceof Error && error.message.includes('consumer#run must be called first');
}
