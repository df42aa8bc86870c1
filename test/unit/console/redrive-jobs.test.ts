import { pino } from 'pino';
import { describe, expect, it, vi } from 'vitest';
import type { AuditContext } from '../../../src/audit/scan.js';
import type { ConsoleAuditEvent } from '../../../src/audit/audit-log.js';
import { readQuery, toCriteria } from '../../../src/console/query.js';
import { forgetOldJobs, runJob, type Job } from '../../../src/console/redrive.js';

const job = (id: string, state: Job['state']): [string, Job] => [id, { id, state, lines: [] }];

describe('redrive jobs kept on view', () => {
  it('drops the oldest finished ones past twenty, never a running one', () => {
    const jobs = new Map<string, Job>([
      job('running-first', 'running'),
      ...Array.from({ length: 21 }, (_, i) => job(`done-${i}`, i % 2 === 0 ? 'done' : 'failed')),
    ]);
    forgetOldJobs(jobs);
    expect(jobs.size).toBe(20);
    expect(jobs.has('running-first')).toBe(true);
    expect(jobs.has('done-0')).toBe(false);
    expect(jobs.has('done-1')).toBe(false);
    expect(jobs.has('done-2')).toBe(true);
    expect(jobs.has('done-20')).toBe(true);
  });

  it('keeps everything up to twenty', () => {
    const jobs = new Map<string, Job>(Array.from({ length: 20 }, (_, i) => job(`done-${i}`, 'done')));
    forgetOldJobs(jobs);
    expect(jobs.size).toBe(20);
  });
});

describe('a console redrive job', () => {
  const query = readQuery({ from: '2026-11-23T00:00:00Z', to: '2026-11-23T01:00:00Z' }, new Date());
  const choice = { chosen: { query, deadLetters: [] }, criteria: toCriteria(query) };
  const now = () => new Date('2026-11-23T02:00:00Z');
  const logger = pino({ level: 'silent' });

  it('records that it started before reading or sending anything, and its end after', async () => {
    const steps: string[] = [];
    const deps = {
      auditLog: {
        write: (event: ConsoleAuditEvent) => {
          steps.push(event.action);
          return Promise.resolve();
        },
      },
      audit: (): AuditContext => {
        steps.push('reading dead letters');
        throw new Error('the broker is away');
      },
      logger,
      now,
    };
    const job: Job = { id: 'j', state: 'running', lines: [] };
    await runJob(deps, job, choice, { role: 'operator', actor: 'maria.souza' });
    expect(steps).toEqual(['redrive-started', 'reading dead letters', 'redrive']);
    expect(job).toMatchObject({ state: 'failed', error: 'the broker is away' });
  });

  it('sends nothing when its start cannot be recorded (fails closed, as a reveal does)', async () => {
    const audit = vi.fn((): AuditContext => {
      throw new Error('must not be reached');
    });
    const deps = {
      auditLog: { write: () => Promise.reject(new Error('audit topic away')) },
      audit,
      logger,
      now,
    };
    const job: Job = { id: 'j', state: 'running', lines: [] };
    await runJob(deps, job, choice, { role: 'operator', actor: 'maria.souza' });
    expect(audit).not.toHaveBeenCalled();
    expect(job).toMatchObject({
      state: 'failed',
      error: 'the audit event could not be written: nothing was republished',
    });
  });
});
