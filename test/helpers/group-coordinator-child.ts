/**
 * groupCoordinatorReady in a process of its own (a crash of the client then ends this process,
 * not the test's): `node --import tsx group-coordinator-child.ts BROKERS PAUSE_MS ATTEMPT_MS`.
 * Prints one line when the coordinator answered; exits 1 with the error when it never did.
 */
import { groupCoordinatorReady } from './group-coordinator.js';

const [brokers = '', pauseMs = '200', attemptTimeoutMs = '5000'] = process.argv.slice(2);
try {
  await groupCoordinatorReady(brokers, {
    pauseMs: Number(pauseMs),
    attemptTimeoutMs: Number(attemptTimeoutMs),
    deadlineMs: 90_000,
  });
  console.log('coordinator ready');
} catch (error) {
  console.error(`coordinator never answered: ${String(error)}`);
  process.exitCode = 1;
}
