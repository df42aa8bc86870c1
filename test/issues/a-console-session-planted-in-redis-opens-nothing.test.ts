/**
 * Issue 50, finding 1: whoever could write to Redis had an operator console. Writing
 * `<prefix>:console:session:<sha256(id)>` = `{"role":"operator","actor":"anyone"}` and sending
 * the cookie `vg_console=<id>` opened a dead letter and revealed it (200). Sessions are now
 * sealed with the service's at-rest key and bound to their Redis key: one the service did not
 * write is no session (401), counted and logged without personal data. On the real stack.
 */
import { createHash, randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { topicNames } from '../../src/contract/operations.js';
import { publish } from '../helpers/service.js';
import { useTestKafka } from '../helpers/test-kafka.js';

const stack = useTestKafka();
const redis = new Redis(inject('redisUrl'));
afterAll(async () => {
  await redis.quit();
});

const MARIA_TOKEN = 'maria-token-9f8e7d6c5b4a';

/** The cookies a response sets, as a Cookie header. */
const cookiesOf = (response: Response): string =>
  response.headers
    .getSetCookie()
    .map((c) => c.split(';')[0])
    .join('; ');

describe('a console session planted in Redis opens nothing (issue 50, finding 1)', () => {
  it('refuses it on a dead letter and on reveal (401), counts it, and still opens sessions the service sealed', async () => {
    const { prefix, collector, admin } = await stack.start('planted-session', {
      env: { RETRY_MAX_ATTEMPTS: '1', CONSOLE_TOKENS: `maria.souza:operator:${MARIA_TOKEN}` },
    });
    // A dead letter to look at: params the operation does not take.
    await publish(stack.kafka, topicNames(prefix).request('lawsuits-summary'), [
      { key: 'planted-session', value: { requestId: 'dead-1', params: { nothing: 'here' } } },
    ]);
    await collector.waitFor(() => collector.errors().length === 1, 60_000, 'the dead letter');
    const { partition, offset } = collector.errors()[0] ?? { partition: -1, offset: '-1' };
    const deadLetter = `/console/dead-letters/${String(partition)}/${offset}`;

    const id = randomBytes(32).toString('base64url');
    const hash = createHash('sha256').update(id).digest('base64url');
    await redis.set(
      `${prefix}:console:session:${hash}`,
      JSON.stringify({ role: 'operator', actor: 'anyone' }),
      'PX',
      60_000,
    );
    const planted = `vg_console=${id}`;
    const page = await admin(deadLetter, { headers: { cookie: planted } });
    expect(page.status).toBe(401);
    // The reveal, with whatever CSRF token a page loaded with that cookie gives.
    const form = await admin('/console/redrive', { headers: { cookie: planted } });
    const csrf = /name="csrf-token" content="([^"]+)"/.exec(await form.text())?.[1] ?? '';
    const reveal = await admin(`${deadLetter}/reveal`, {
      method: 'POST',
      headers: {
        cookie: [planted, cookiesOf(form)].filter((c) => c !== '').join('; '),
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: new URLSearchParams({ _csrf: csrf }).toString(),
    });
    expect(reveal.status).toBe(401);
    expect(await reveal.text()).not.toContain('nothing');
    const metrics = await (await admin('/metrics')).text();
    expect(metrics).toMatch(
      /^verification_redis_values_refused_total\{store="console-session",reason="clear"\} [1-9]\d*$/m,
    );

    // A session the service opened works, and Redis holds it sealed: not even the operator's name.
    const login = await admin('/console/login', {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: MARIA_TOKEN }).toString(),
    });
    expect(login.status).toBe(303);
    const session = cookiesOf(login);
    expect((await admin(deadLetter, { headers: { cookie: session } })).status).toBe(200);
    const sessionId = /vg_console=([^;]+)/.exec(session)?.[1] ?? '';
    const stored = await redis.getBuffer(
      `${prefix}:console:session:${createHash('sha256').update(sessionId).digest('base64url')}`,
    );
    expect(stored?.[0]).toBe(0x00);
    expect(stored?.toString('latin1')).not.toContain('maria.souza');
  });
});
