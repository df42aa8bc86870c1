/**
 * Issue 37: valid paid requests dead-lettered as invalid after the registry lost its storage.
 * The registry restarts empty, another client registers first, so the id the upstream cached
 * for the request subject names another subject's schema; the upstream keeps framing with it.
 * The service decoded those requests against that schema and dead-lettered them as
 * invalid_request ("value framed with schema id 7 could not be decoded: invalid payload"),
 * some already paid. A request value is JSON whatever its framing: each is answered, a paid one
 * with its stored outcome, and the foreign or unknown framing is counted.
 */
import { describe, expect, it } from 'vitest';
import { topicNames } from '../../src/contract/operations.js';
import { cpfFor } from '../../src/sandbox/index.js';
import { OwnRegistry } from '../helpers/own-registry.js';
import { publish } from '../helpers/service.js';
import { useTestKafka } from '../helpers/test-kafka.js';
import { HUNG_MS, until } from '../helpers/wait.js';

const stack = useTestKafka();
const { kafka, onCleanup } = stack;

const DRAFT_07 = 'http://json-schema.org/draft-07/schema#';

function framed(schemaId: number, value: object): Buffer {
  const header = Buffer.alloc(5);
  header.writeUInt32BE(schemaId, 1);
  return Buffer.concat([header, Buffer.from(JSON.stringify(value))]);
}

describe('a request framed with a schema id the registry gave away after losing its storage', () => {
  it('is answered (a paid one with its stored outcome), never dead-lettered as invalid', async () => {
    const registry = await OwnRegistry.start({ persistent: false });
    onCleanup(() => registry.close());
    const { prefix, sandbox, collector, admin } = await stack.start('framing-shift', {
      env: { SCHEMA_REGISTRY_URL: registry.url, DEPENDENCY_CHECK_INTERVAL_MS: '300' },
      registryUrl: registry.url,
    });
    const topic = topicNames(prefix).request('lawsuits-summary');
    const subjects = async (): Promise<string[]> => {
      const { body } = await registry.call('GET', '/subjects');
      return Array.isArray(body) ? body.map(String) : [];
    };
    const foreignSchema = (n: number) => ({
      $schema: DRAFT_07,
      title: `another subject ${n}`,
      type: 'object',
      required: ['plate'],
      properties: { plate: { type: 'string' } },
    });
    // The service registered its subjects at start-up. Other clients register as many again,
    // then the upstream registers its version of the request subject and caches its id: an id
    // past those the service takes again after the loss.
    const serviceSubjects = await subjects();
    for (let n = 0; n <= serviceSubjects.length; n += 1)
      await registry.register(`${prefix}.before-${n}-value`, foreignSchema(n));
    const cachedId = await registry.register(`${topic}-value`, {
      $schema: DRAFT_07,
      type: 'object',
      required: ['requestId', 'params'],
    });
    const paid = { requestId: 'shift-paid', params: { taxId: cpfFor('happy', 3_701) } };
    // Paid before the loss, sent plain: the service has not looked the cached id up yet (its
    // registry client keeps what an id named once it asked).
    await publish(kafka, topic, [{ key: 'shift-paid', value: paid }]);
    await collector.waitFor(() => collector.results().length === 1, HUNG_MS, 'the first answer');
    expect(sandbox.counters().billed).toBe(1);

    await registry.stop();
    await registry.start();
    // The service notices the loss and registers its subjects again (with a fresh client: no
    // cached ids); then another client registers up to the id the upstream cached, which now
    // names that client's schema, one a request does not match.
    await until('the service registering its subjects again', async () => {
      const now = await subjects();
      return serviceSubjects.every((subject) => now.includes(subject));
    });
    for (let n = 1; ; n += 1) {
      const id = await registry.register(`${prefix}.someone-else-${n}-value`, foreignSchema(n));
      if (id >= cachedId) break;
    }
    const named = await registry.call('GET', `/schemas/ids/${cachedId}/versions`);
    expect(named.status).toBe(200);
    expect(named.body).not.toEqual(
      expect.arrayContaining([expect.objectContaining({ subject: `${topic}-value` })]),
    );

    const fresh = { requestId: 'shift-fresh', params: { taxId: cpfFor('happy', 3_702) } };
    const unknownFraming = { requestId: 'shift-unknown', params: { taxId: cpfFor('happy', 3_703) } };
    await publish(kafka, topic, [
      // The paid request read again (a redelivery, or the publisher's retry).
      { key: 'shift-paid', value: framed(cachedId, paid) },
      { key: 'shift-fresh', value: framed(cachedId, fresh) },
      { key: 'shift-unknown', value: framed(2_000_000_000, unknownFraming) },
    ]);
    await collector.waitFor(
      () => collector.results().length + collector.errors().length >= 4,
      HUNG_MS,
      'the three requests answered',
    );

    expect(
      collector.errors().map((e) => [e.value.requestId, (e.value.error as { message?: unknown }).message]),
    ).toEqual([]);
    expect(collector.results().map((r) => r.value.requestId)).toEqual(
      expect.arrayContaining(['shift-paid', 'shift-paid', 'shift-fresh', 'shift-unknown']),
    );
    const [first, again] = collector.results().filter((r) => r.value.requestId === 'shift-paid');
    expect(again?.value).toMatchObject({ attempts: 0 });
    expect(again?.value.vendor).toEqual(first?.value.vendor);
    // The paid one is not billed again.
    expect(sandbox.counters().billed).toBe(3);
    const metrics = await (await admin('/metrics')).text();
    const count = (kind: string): number =>
      Number(
        new RegExp(
          `^verification_request_framing_mismatches_total\\{operation="lawsuits-summary",kind="${kind}"\\} (\\d+)$`,
          'm',
        ).exec(metrics)?.[1] ?? NaN,
      );
    expect(count('foreign')).toBe(2);
    expect(count('unknown')).toBe(1);
    // A ceiling for a hung test: it restarts its own registry (a JVM), minutes with both cores busy.
  }, 600_000);
});
