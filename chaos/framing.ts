/**
 * Values framed with a schema id that the registry does not give for their topic's subject: a
 * reader decoding them would use another schema (a registry that lost its storage hands the
 * same ids out again).
 */
import type { FramedValues } from './traffic.js';

const versionsOf = (value: unknown): { subject: string }[] =>
  Array.isArray(value)
    ? value.filter((v): v is { subject: string } => typeof (v as { subject?: unknown }).subject === 'string')
    : [];

/** Values written after `since` whose id is wrong; null when the registry did not answer. */
export async function misframedValues(
  registryUrl: string,
  framed: Iterable<FramedValues>,
  since: number,
): Promise<number | null> {
  let misframed = 0;
  try {
    for (const { topic, schemaId, writtenAt } of framed) {
      const written = writtenAt.filter((at) => at > since).length;
      if (written === 0) continue;
      const response = await fetch(`${registryUrl}/schemas/ids/${schemaId}/versions`, {
        signal: AbortSignal.timeout(5_000),
      });
      if (response.status === 404) {
        misframed += written;
        continue;
      }
      if (!response.ok) return null;
      const subjects = versionsOf(await response.json()).map((v) => v.subject);
      if (!subjects.includes(`${topic}-value`)) misframed += written;
    }
  } catch {
    return null;
  }
  return misframed;
}
