/**
 * The operator console in a real browser (Debian's chromium through playwright-core) against
 * the real service, stack and sandbox: login, live status, dead letters masked then revealed,
 * a confirmed redrive whose results arrive; and the refusals, over plain HTTP.
 */
import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { consoleAuditEventSchema } from '../../src/contract/audit-events.js';
import { topicNames } from '../../src/contract/operations.js';
import { cpfFor, type Sandbox } from '../../src/sandbox/index.js';
import {
  duplicatedOutcomes,
  OutcomeCollector,
  publish,
  summaryRequests,
  testPrefix,
  type Received,
} from '../helpers/service.js';
import { useTestKafka, type Started } from '../helpers/test-kafka.js';
import { HUNG_MS } from '../helpers/wait.js';

const READ_TOKEN = 'read-only-token-0123456789';
const OPERATOR_TOKEN = 'operator-token-0123456789';
/** Maria's own token (CONSOLE_TOKENS): audit events name her, never the token. */
const MARIA_TOKEN = 'maria-token-9f8e7d6c5b4a';
const SHOTS = join(import.meta.dirname, '..', 'screenshots');

const stack = useTestKafka();
const { kafka } = stack;
const prefix = testPrefix('console');
const names = topicNames(prefix);
let sandbox: Sandbox;
let running: Started;
let collector: OutcomeCollector;
let browser: BrowserContext;
let base: string;
let readers = 0;

beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true });
  running = await stack.startAt(prefix, {
    env: {
      RETRY_MAX_ATTEMPTS: '1',
      VENDOR_RATE_PER_SECOND: '20',
      CONSOLE_TOKEN: READ_TOKEN,
      CONSOLE_OPERATOR_TOKEN: OPERATOR_TOKEN,
      CONSOLE_TOKENS: `maria.souza:operator:${MARIA_TOKEN}`,
      ADMIN_HOST: '127.0.0.1',
      ADMIN_PORT: '0',
    },
  });
  ({ sandbox, collector } = running);
  base = `http://127.0.0.1:${String(running.service.adminPort)}`;
  // A fresh profile per run: launchPersistentContext is how playwright takes the directory.
  browser = await chromium.launchPersistentContext(mkdtempSync(join(tmpdir(), 'console-chromium-')), {
    executablePath: '/usr/bin/chromium',
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  // Playwright's own 30 s per action and navigation is a loaded machine's normal: a ceiling only.
  browser.setDefaultTimeout(HUNG_MS);
  stack.onCleanup(() => browser.close());
});

const request = (i: number): { requestId: string; params: { taxId: string } } => ({
  requestId: `console-${i}`,
  params: { taxId: cpfFor('happy', 700 + i) },
});

/** The messages of a topic from its start, as JSON, once at least `count` (or `enough`) are read. */
async function readAll(
  topic: string,
  count: number,
  enough: (seen: Record<string, unknown>[]) => boolean = () => true,
): Promise<Record<string, unknown>[]> {
  const consumer = kafka.consumer({
    kafkaJS: {
      groupId: `${prefix}.audit-reader-${String(++readers)}`,
      fromBeginning: true,
      readUncommitted: false,
      maxWaitTimeInMs: 100,
    },
  });
  const seen: Record<string, unknown>[] = [];
  await consumer.connect();
  try {
    await consumer.subscribe({ topics: [topic] });
    await consumer.run({
      eachMessage: ({ message }) => {
        seen.push(JSON.parse(message.value?.toString() ?? 'null') as Record<string, unknown>);
        return Promise.resolve();
      },
    });
    await expect.poll(() => seen.length >= count && enough(seen), { timeout: HUNG_MS }).toBe(true);
    return seen.sort((a, b) => String(a.at).localeCompare(String(b.at)));
  } finally {
    await consumer.disconnect();
  }
}

async function logIn(page: Page, token: string): Promise<void> {
  await page.goto(`${base}/console/login`);
  await page.fill('input[name=token]', token);
  await page.click('button[type=submit]');
  await page.waitForURL(/\/console\/status/);
}

describe('the console in a browser', () => {
  it('logs in, shows status moving, masks and reveals a dead letter, redrives two with confirmation', async () => {
    const page = await browser.newPage();
    await logIn(page, MARIA_TOKEN);
    await page.screenshot({ path: join(SHOTS, '1-status-idle.png'), fullPage: true });
    const rate = page.locator('tr[data-operation="lawsuits-summary"] td.rate');
    await expect.poll(() => rate.textContent()).toMatch(/^0\.0 \/ 20$/);
    // Requests flow for a while: the live rate leaves zero and the hour's count grows.
    const flow = (async () => {
      for (let round = 0; round < 8; round += 1) {
        const batch = Array.from({ length: 10 }, (_, j) => request(round * 10 + j));
        await publish(
          kafka,
          names.request('lawsuits-summary'),
          batch.map((r) => ({ key: r.params.taxId, value: r })),
        );
        await new Promise((resolve) => setTimeout(resolve, 500));
      }
    })();
    await expect.poll(() => rate.textContent(), { timeout: HUNG_MS }).not.toMatch(/^0\.0 /);
    await flow;
    const hour = page.locator('tr[data-operation="lawsuits-summary"] td.hour');
    await expect.poll(() => hour.textContent(), { timeout: HUNG_MS }).toMatch(/^80 \//);
    await page.screenshot({ path: join(SHOTS, '2-status-moving.png'), fullPage: true });

    // Three dead letters: the vendor fails while they are tried.
    sandbox.setKnobs({ errorRate: 1, errorKind: '5xx', errorStatus: 503 });
    const failing = [900, 901, 902].map(request);
    await publish(
      kafka,
      names.request('lawsuits-summary'),
      failing.map((r) => ({ key: r.params.taxId, value: r })),
    );
    await collector.waitFor(() => collector.errors().length === 3, HUNG_MS, 'three dead letters');
    sandbox.setKnobs({ errorRate: 0 });

    await page.goto(`${base}/console/dead-letters`);
    await page.selectOption('select[name=operation]', 'lawsuits-summary');
    await page.selectOption('select[name=kind]', 'upstream_unavailable');
    await page.click('form.filters button[type=submit]');
    await expect.poll(() => page.locator('table.dead-letters tbody tr').count()).toBe(3);
    await page.screenshot({ path: join(SHOTS, '3-dead-letters.png'), fullPage: true });

    const first = failing[0];
    if (!first) throw new Error('no request');
    await page.click(`table.dead-letters tr:has-text("${first.requestId}") a.open`);
    const body = await page.locator('#request').textContent();
    expect(body).not.toContain(first.params.taxId);
    expect(body).toContain(`•••••••••${first.params.taxId.slice(-2)}`);
    await expect.poll(() => page.locator('#mask-state').textContent()).toContain('masked');
    await page.screenshot({ path: join(SHOTS, '4-dead-letter-masked.png'), fullPage: true });
    await page.click('#reveal');
    await expect.poll(() => page.locator('#request').textContent()).toContain(first.params.taxId);
    await page.screenshot({ path: join(SHOTS, '5-dead-letter-revealed.png'), fullPage: true });

    // Redrive two, chosen one by one: dry run, confirm, progress, then their results.
    await page.goBack();
    await page.goBack();
    await page.check(`table.dead-letters tr:has-text("${failing[1]?.requestId ?? ''}") input[type=checkbox]`);
    await page.check(`table.dead-letters tr:has-text("${failing[2]?.requestId ?? ''}") input[type=checkbox]`);
    await page.click('button[value=chosen]');
    await expect.poll(() => page.locator('#would').textContent()).toBe('2');
    await page.screenshot({ path: join(SHOTS, '6-redrive-dry-run.png'), fullPage: true });
    await page.click('#confirm');
    await expect.poll(() => page.locator('#job-state').textContent(), { timeout: HUNG_MS }).toBe('done');
    await expect.poll(() => page.locator('li.job-line').count()).toBe(2);
    // The progress the page polls carries each line's message key, masked like any key.
    const progressUrl = await page.locator('#job').getAttribute('data-progress');
    const progress = (await (await page.request.get(`${base}${progressUrl ?? ''}`)).json()) as {
      lines: { key: string | null }[];
    };
    expect(progress.lines.map((line) => line.key).sort()).toEqual(
      [failing[1], failing[2]].map((r) => `•••••••••${r?.params.taxId.slice(-2) ?? ''}`).sort(),
    );
    await page.screenshot({ path: join(SHOTS, '7-redrive-done.png'), fullPage: true });
    await collector.waitFor(
      () => collector.results().filter((r) => /console-90[12]/.test(JSON.stringify(r.value))).length === 2,
      HUNG_MS,
      'the two redriven results',
    );
    await page.click(`li.job-line a:has-text("${failing[1]?.requestId ?? ''}")`);
    await expect.poll(() => page.locator('.timeline li').count()).toBeGreaterThanOrEqual(4);
    expect(await page.locator('.timeline').textContent()).toContain(names.result('lawsuits-summary'));
    await page.screenshot({ path: join(SHOTS, '8-trail.png'), fullPage: true });
    await page.close();

    // The reveal and the redrive were audited, as the contract's schema says, with no personal data.
    const audit = (await readAll(names.audit, 3)).map((e) => consoleAuditEventSchema.parse(e));
    expect(audit.map((e) => [e.action, e.actor, e.role, 'count' in e ? e.count : null])).toEqual([
      ['reveal', 'maria.souza', 'operator', 1],
      ['redrive-started', 'maria.souza', 'operator', null],
      ['redrive', 'maria.souza', 'operator', 2],
    ]);
    const text = JSON.stringify(audit);
    expect(text).not.toContain(MARIA_TOKEN);
    for (const r of failing) expect(text).not.toContain(r.params.taxId);
  }, 600_000);
});

describe('the status page and the lanes (issue 41)', () => {
  it("shows a bulk backlog waiting in its lane's queue, with its oldest wait, beside the interactive lane", async () => {
    const page = await browser.newPage();
    await logIn(page, READ_TOKEN);
    const row = (lane: string): ReturnType<Page['locator']> =>
      page.locator(`#lanes tr[data-lane-of="lawsuits-summary"][data-lane="${lane}"]`);
    const number = async (cell: ReturnType<Page['locator']>): Promise<number> =>
      Number.parseFloat((await cell.textContent()) ?? '');
    await expect.poll(() => row('bulk').locator('td.queued').textContent()).toBe('0');

    // 200 bulk requests at 20 calls/s: the lane holds what it took in the limiter's queue.
    const backlog = summaryRequests('lanes-bulk', 200, 5000);
    await publish(kafka, names.request('lawsuits-summary', 'bulk'), backlog);
    await expect.poll(() => number(row('bulk').locator('td.queued')), { timeout: 30_000 }).toBeGreaterThan(0);
    await expect
      .poll(async () => (await row('bulk').locator('td.oldest').textContent()) ?? '', { timeout: 30_000 })
      .toMatch(/^(?!0\.0 )\d+\.\d s$/);
    await expect.poll(() => number(row('bulk').locator('td.calls')), { timeout: 30_000 }).toBeGreaterThan(0);
    // The interactive lane has its own row, with nothing of its own waiting.
    expect(await row('interactive').locator('td').allTextContents()).toEqual([
      'lawsuits-summary',
      'interactive',
      expect.stringMatching(/^\d+\.\d$/) as string,
      '0',
      '—',
    ]);
    await page.screenshot({ path: join(SHOTS, '9-status-lanes.png'), fullPage: true });
    const text = (await page.locator('main').textContent()) ?? '';
    for (const r of backlog.slice(0, 20)) expect(text).not.toContain(String(r.key));
    await page.close();
    // The backlog drains before the next test (whose vendor fails), each request answered once.
    const answered = (): [string, Received[]][] =>
      [...collector.outcomesByRequest().entries()].filter(([id]) => id.startsWith('lanes-bulk-'));
    await collector.waitFor(() => answered().length === 200, 60_000, 'the bulk backlog answered');
    expect(duplicatedOutcomes(answered())).toEqual([]);
  });
});

describe('a redrive confirmed from a filter', () => {
  it('sends the dead letters its dry run listed, not one that surfaced in its window after it', async () => {
    const from = new Date().toISOString();
    sandbox.setKnobs({ errorRate: 1, errorKind: '5xx', errorStatus: 503 });
    const failing = [950, 951].map(request);
    await publish(
      kafka,
      names.request('lawsuits-summary'),
      failing.map((r) => ({ key: r.params.taxId, value: r })),
    );
    const ours = (): Received[] =>
      collector.errors().filter((e) => failing.some((r) => r.requestId === e.value.requestId));
    await collector.waitFor(() => ours().length === 2, HUNG_MS, 'two dead letters');
    sandbox.setKnobs({ errorRate: 0 });

    const page = await browser.newPage();
    await logIn(page, OPERATOR_TOKEN);
    const filter = new URLSearchParams({ from, operation: 'lawsuits-summary', kind: 'upstream_unavailable' });
    await page.goto(`${base}/console/dead-letters?${filter.toString()}`);
    await expect.poll(() => page.locator('table.dead-letters tbody tr').count()).toBe(2);
    await page.click('button[value=filter]');
    await expect.poll(() => page.locator('#would').textContent()).toBe('2');

    // Between the dry run and its confirmation a third dead letter becomes readable inside the
    // window (stamped just after its start, as one whose transaction was still open would be).
    const [model] = ours();
    if (!model?.schemaId) throw new Error('no framed dead letter to copy');
    const late = request(952);
    const value = { ...model.value, requestId: late.requestId, request: { ...late } };
    const header = Buffer.alloc(5);
    header.writeUInt32BE(model.schemaId, 1);
    await publish(kafka, names.errors, [
      {
        key: late.params.taxId,
        value: Buffer.concat([header, Buffer.from(JSON.stringify(value))]),
        timestamp: Date.parse(from) + 1,
      },
    ]);
    await collector.waitFor(
      () => collector.errors().some((e) => e.value.requestId === late.requestId),
      HUNG_MS,
      'the late dead letter readable',
    );

    const confirmForm = {
      _csrf: await page.locator('form:has(#confirm) input[name=_csrf]').inputValue(),
      plan: await page.locator('input[name=plan]').inputValue(),
    };
    await page.click('#confirm');
    await expect.poll(() => page.locator('#job-state').textContent(), { timeout: HUNG_MS }).toBe('done');
    const sent = await page.locator('li.job-line').allTextContents();
    expect(sent).toHaveLength(2);
    expect(sent.join(' ')).not.toContain(late.requestId);
    // The same dry run confirmed again (a resent form) runs nothing.
    const again = await page.request.post(`${base}/console/redrive/run`, {
      form: confirmForm,
      maxRedirects: 0,
    });
    expect(again.status()).toBe(409);
    expect(await again.text()).toContain('not held any more');
    await page.close();
  }, 600_000);
});

describe('console refusals', () => {
  const login = async (token: string): Promise<Response> =>
    fetch(`${base}/console/login`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token }).toString(),
    });
  const cookiesOf = (response: Response): string =>
    response.headers
      .getSetCookie()
      .map((c) => c.split(';')[0])
      .join('; ');

  it('answers 401 without a session and refuses a wrong token', async () => {
    expect((await fetch(`${base}/console/dead-letters`)).status).toBe(401);
    expect((await fetch(`${base}/console/status`)).status).toBe(401);
    const wrong = await login('not-the-token-at-all');
    expect(wrong.status).toBe(401);
    expect(wrong.headers.getSetCookie().some((c) => c.startsWith('vg_console='))).toBe(false);
  });

  it('gives a read-only token no reveal or redrive, and refuses any action without a CSRF token', async () => {
    const ok = await login(READ_TOKEN);
    expect(ok.status).toBe(303);
    const session = cookiesOf(ok);
    expect(ok.headers.getSetCookie().find((c) => c.startsWith('vg_console='))).toMatch(/HttpOnly/i);
    const pageResponse = await fetch(`${base}/console/redrive`, { headers: { cookie: session } });
    expect(pageResponse.status).toBe(200);
    const html = await pageResponse.text();
    const csrf = /name="csrf-token" content="([^"]+)"/.exec(html)?.[1] ?? '';
    const cookie = [session, cookiesOf(pageResponse)].filter((c) => c !== '').join('; ');
    const post = (path: string, fields: Record<string, string>): Promise<Response> =>
      fetch(`${base}${path}`, {
        method: 'POST',
        redirect: 'manual',
        headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams(fields).toString(),
      });
    expect((await post('/console/dead-letters/0/0/reveal', {})).status).toBe(403);
    expect((await post('/console/redrive/run', {})).status).toBe(403);
    expect(csrf).not.toBe('');
    const reveal = await post('/console/dead-letters/0/0/reveal', { _csrf: csrf });
    expect(reveal.status).toBe(403);
    expect(await reveal.text()).toContain('operator');
    const redrive = await post('/console/redrive/plan', { _csrf: csrf });
    expect(redrive.status).toBe(403);
  });

  it('refuses an operator action without its CSRF token (403), and takes it with one', async () => {
    const session = cookiesOf(await login(OPERATOR_TOKEN));
    const pageResponse = await fetch(`${base}/console/redrive`, { headers: { cookie: session } });
    const csrf = /name="csrf-token" content="([^"]+)"/.exec(await pageResponse.text())?.[1] ?? '';
    const cookie = [session, cookiesOf(pageResponse)].join('; ');
    const reveal = (fields: Record<string, string>): Promise<Response> =>
      fetch(`${base}/console/dead-letters/0/0/reveal`, {
        method: 'POST',
        headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams(fields).toString(),
      });
    const without = await reveal({});
    expect(without.status).toBe(403);
    expect(await without.text()).toContain('csrf');
    expect((await reveal({ _csrf: 'forged' })).status).toBe(403);
    expect((await reveal({ _csrf: csrf })).status).toBe(200);
  });

  it('refuses a dry run with a bad filter and a reveal with bad coordinates (400), and a run with no dry run (409)', async () => {
    const session = cookiesOf(await login(OPERATOR_TOKEN));
    const pageResponse = await fetch(`${base}/console/redrive`, { headers: { cookie: session } });
    const csrf = /name="csrf-token" content="([^"]+)"/.exec(await pageResponse.text())?.[1] ?? '';
    const cookie = [session, cookiesOf(pageResponse)].join('; ');
    const post = (path: string, fields: Record<string, string>): Promise<Response> =>
      fetch(`${base}${path}`, {
        method: 'POST',
        redirect: 'manual',
        headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ _csrf: csrf, ...fields }).toString(),
      });
    const badTime = await post('/console/redrive/plan', { from: 'yesterday' });
    expect(badTime.status).toBe(400);
    expect(await badTime.text()).toContain('from must be an ISO 8601 time');
    expect((await post('/console/redrive/plan', { kind: 'no-such-kind' })).status).toBe(400);
    // A run goes by a dry run's plan only: one the replica does not hold runs nothing.
    const unplanned = await post('/console/redrive/run', {
      plan: 'no-such-plan',
      from: '2026-01-01T00:00:00Z',
    });
    expect(unplanned.status).toBe(409);
    expect(await unplanned.text()).toContain('not held any more');
    expect((await post('/console/dead-letters/first/0/reveal', {})).status).toBe(400);
  });

  /** A session's cookies and the CSRF token of a page it loaded. */
  const sessionWithCsrf = async (
    token: string,
  ): Promise<{ session: string; csrfCookie: string; csrf: string }> => {
    const session = cookiesOf(await login(token));
    const pageResponse = await fetch(`${base}/console/redrive`, { headers: { cookie: session } });
    const csrf = /name="csrf-token" content="([^"]+)"/.exec(await pageResponse.text())?.[1] ?? '';
    return { session, csrfCookie: cookiesOf(pageResponse), csrf };
  };

  it("refuses an operator action made with a read-only session's CSRF cookie and token (issue 39, N3)", async () => {
    const readOnly = await sessionWithCsrf(READ_TOKEN);
    const operator = await sessionWithCsrf(OPERATOR_TOKEN);
    expect(readOnly.csrf).not.toBe('');
    const reveal = (cookie: string, csrf: string): Promise<Response> =>
      fetch(`${base}/console/dead-letters/0/0/reveal`, {
        method: 'POST',
        headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ _csrf: csrf }).toString(),
      });
    const crossed = await reveal([operator.session, readOnly.csrfCookie].join('; '), readOnly.csrf);
    expect(crossed.status).toBe(403);
    expect(await crossed.text()).toContain('csrf');
    expect((await reveal([operator.session, operator.csrfCookie].join('; '), operator.csrf)).status).toBe(
      200,
    );
  });

  it('sends no-frame, nosniff and no-store headers with every console page (issue 39, N3)', async () => {
    const { session } = await sessionWithCsrf(OPERATOR_TOKEN);
    for (const response of [
      await fetch(`${base}/console/login`),
      await fetch(`${base}/console/status`, { headers: { cookie: session } }),
      await fetch(`${base}/console/dead-letters/0/0`, { headers: { cookie: session } }),
    ]) {
      expect(response.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
      expect(response.headers.get('x-frame-options')).toBe('DENY');
      expect(response.headers.get('x-content-type-options')).toBe('nosniff');
      expect(response.headers.get('cache-control')).toBe('no-store');
    }
  });

  it("audits an operator's dead-letter search by key, naming who and not the key (issue 39, N4)", async () => {
    const { session } = await sessionWithCsrf(MARIA_TOKEN);
    const taxId = cpfFor('happy', 702);
    const from = new Date(Date.now() - 3_600_000).toISOString();
    const search = await fetch(
      `${base}/console/dead-letters?${new URLSearchParams({ key: taxId, from }).toString()}`,
      { headers: { cookie: session } },
    );
    expect(search.status).toBe(200);
    const events = await readAll(names.audit, 1, (seen) =>
      seen.some((e) => e.action === 'dead-letter-search'),
    );
    const searched = events
      .map((e) => consoleAuditEventSchema.parse(e))
      .filter((e) => e.action === 'dead-letter-search');
    expect(searched.map((e) => [e.actor, e.role, e.target.keyFilter])).toEqual([
      ['maria.souza', 'operator', true],
    ]);
    expect(JSON.stringify(events)).not.toContain(taxId);
  });

  it('serves nothing of the console on the public port', async () => {
    const publicBase = `http://127.0.0.1:${String(running.service.httpPort)}`;
    for (const path of ['/console', '/console/login', '/console/status', '/console/assets/console.js']) {
      expect((await fetch(`${publicBase}${path}`)).status).toBe(404);
    }
  });
});
