/**
 * A spawned replica's paused partitions, read from its metrics: tests check that a lane's
 * window really paused it (issue 41) while a restart or a kill happened.
 */

/** Whether the replica whose console is on `adminPort` holds a partition of `topic` paused for its window. */
export async function windowPaused(adminPort: number, topic: string): Promise<boolean> {
  const text = await fetch(`http://127.0.0.1:${adminPort}/metrics`)
    .then((response) => response.text())
    // Not listening yet (starting) or any more (stopping): nothing paused there.
    .catch(() => '');
  const prefix = `verification_partitions_paused{topic="${topic}",reason="window"} `;
  return text.split('\n').some((line) => line.startsWith(prefix) && Number(line.slice(prefix.length)) > 0);
}
