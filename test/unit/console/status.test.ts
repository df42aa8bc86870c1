import { describe, expect, it } from 'vitest';
import { sumReplicas, type OperationFigures } from '../../../src/console/status.js';
import { createSessions, memorySessionStore } from '../../../src/console/auth.js';

const figures = (over: Partial<OperationFigures>): OperationFigures => ({
  calls: 0,
  inFlight: 0,
  breaker: 'closed',
  ratePerSecond: 10,
  spendCapPerHour: null,
  callsThisHour: 0,
  deadLetters: {},
  paused: [],
  ...over,
});

describe('sumReplicas', () => {
  it('adds the replicas up per operation and keeps each breaker and paused partition', () => {
    const total = sumReplicas([
      {
        replica: 'a',
        at: 1,
        operations: {
          vehicle: figures({ calls: 5, inFlight: 2, callsThisHour: 4, deadLetters: { internal: 1 } }),
        },
      },
      {
        replica: 'b',
        at: 1,
        operations: {
          vehicle: figures({
            calls: 7,
            inFlight: 1,
            breaker: 'open',
            callsThisHour: 6,
            deadLetters: { internal: 2, timeout: 1 },
            paused: ['2 (breaker)'],
          }),
        },
      },
    ]).get('vehicle');
    expect(total).toMatchObject({
      calls: 12,
      inFlight: 3,
      callsThisHour: 10,
      breakers: ['closed', 'open'],
      paused: ['2 (breaker)'],
      deadLetters: { internal: 3, timeout: 1 },
      ratePerSecond: 10,
    });
  });
});

describe('sumReplicas and hanging transactions', () => {
  it('lists the partitions each replica reports held by a hanging transaction, none from replicas that predate them', () => {
    const total = sumReplicas([
      { replica: 'old', at: 1, operations: { vehicle: figures({ paused: ['0 (unstable-offsets)'] }) } },
      {
        replica: 'a',
        at: 1,
        operations: { vehicle: figures({ paused: ['2 (unstable-offsets)'], hanging: ['2 (63 s)'] }) },
      },
      { replica: 'b', at: 1, operations: { vehicle: figures({ hanging: ['1 (20 s)'] }) } },
    ]).get('vehicle');
    expect(total?.hanging).toEqual(['2 (63 s)', '1 (20 s)']);
  });
});

describe('console sessions', () => {
  const tokens = {
    tokens: [
      { name: 'shared-read-only', role: 'read-only' as const, token: 'read-only-token-123456' },
      { name: 'maria.souza', role: 'operator' as const, token: 'operator-token-1234567' },
    ],
  };

  it('grants the role and the name of the token, and refuses any other', () => {
    const sessions = createSessions(
      tokens,
      memorySessionStore(() => new Date(0)),
    );
    expect(sessions.identify('read-only-token-123456')).toEqual({
      role: 'read-only',
      actor: 'shared-read-only',
    });
    expect(sessions.identify('operator-token-1234567')).toEqual({ role: 'operator', actor: 'maria.souza' });
    expect(sessions.identify('read-only-token-12345')).toBeUndefined();
    expect(sessions.identify('')).toBeUndefined();
  });

  it('forgets a session after eight hours or on logout', async () => {
    let now = 0;
    const sessions = createSessions(
      tokens,
      memorySessionStore(() => new Date(now)),
    );
    const a = await sessions.open({ role: 'operator', actor: 'maria.souza' });
    const b = await sessions.open({ role: 'read-only', actor: 'shared-read-only' });
    expect(await sessions.get(a)).toEqual({ role: 'operator', actor: 'maria.souza' });
    await sessions.close(b);
    expect(await sessions.get(b)).toBeUndefined();
    now = 8 * 3600 * 1000;
    expect(await sessions.get(a)).toBeUndefined();
    expect(await sessions.get(undefined)).toBeUndefined();
  });
});
