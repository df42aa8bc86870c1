import { describe, expect, it } from 'vitest';
import {
  laneKey,
  laneStatus,
  rates,
  sumReplicas,
  type LaneFigures,
  type OperationFigures,
} from '../../../src/console/status.js';
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

describe('sumReplicas and the lanes', () => {
  const lane = (calls: number, queued: number, oldestWaitMs: number): LaneFigures => ({
    calls,
    queued,
    oldestWaitMs,
  });

  it("adds up each lane's calls and queue over the replicas and keeps the longest oldest wait", () => {
    const total = sumReplicas([
      {
        replica: 'a',
        at: 1,
        operations: {
          vehicle: figures({ lanes: { interactive: lane(5, 1, 40), bulk: lane(100, 30, 1800) } }),
        },
      },
      // A replica older than the lanes reports none: it adds nothing to them.
      { replica: 'old', at: 1, operations: { vehicle: figures({ calls: 3 }) } },
      {
        replica: 'b',
        at: 1,
        operations: {
          vehicle: figures({ lanes: { interactive: lane(2, 0, 0), bulk: lane(60, 25, 2600) } }),
        },
      },
    ]).get('vehicle');
    expect(total?.lanes).toEqual({ interactive: lane(7, 1, 40), bulk: lane(160, 55, 2600) });
  });

  it("does not change the first replica's figures while adding the others to them", () => {
    const first = figures({ lanes: { bulk: lane(1, 2, 3) } });
    sumReplicas([
      { replica: 'a', at: 1, operations: { vehicle: first } },
      { replica: 'b', at: 1, operations: { vehicle: figures({ lanes: { bulk: lane(10, 20, 30) } }) } },
    ]);
    expect(first.lanes).toEqual({ bulk: lane(1, 2, 3) });
  });

  it('gives each lane a row, interactive first, with its calls per second from the sampled counters', () => {
    const summed = sumReplicas([
      { replica: 'a', at: 1, operations: { vehicle: figures({ lanes: { bulk: lane(90, 40, 2500) } }) } },
    ]).get('vehicle');
    if (!summed) throw new Error('no vehicle figures');
    const history = [
      { at: 0, calls: new Map([[laneKey('vehicle', 'bulk'), 50]]) },
      {
        at: 2_000,
        calls: new Map([
          ['vehicle\u0000bulk', 90],
          ['vehicle\u0000interactive', 4],
        ]),
      },
    ];
    expect(laneStatus('vehicle', summed, (key) => rates(history, key).at(-1) ?? 0)).toEqual([
      { lane: 'interactive', callsPerSecond: 2, queued: 0, oldestWaitSeconds: 0 },
      { lane: 'bulk', callsPerSecond: 20, queued: 40, oldestWaitSeconds: 2.5 },
    ]);
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
