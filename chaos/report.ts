/** What a scenario measured, and its markdown table. RequestIds only: never a tax id. */

export interface ScenarioResult {
  scenario: string;
  description: string;
  /** Distinct requests the broker acknowledged. */
  requests: number;
  /** Request messages read back, upstream duplicates included. */
  messagesPublished: number;
  /** Requests with no outcome at all. */
  lost: number;
  /** Requests with more outcomes than copies of them were published (read_committed). */
  duplicateOutcomes: number;
  /** Requests answered with a dead letter (valid requests: an outage turned into an error). */
  deadLettered: number;
  /** Outcome values written after the fault framed with an id the registry does not give for their subject. */
  misframed: number | null;
  /** Billable vendor calls beyond one per request (the sandbox counts them per tax id). */
  extraBillableCalls: number;
  kills: number;
  /** Replica exits the suite did not cause (the supervisor started them again). */
  unexpectedExits: number;
  /** From the fault's end until the first outcome of a request published after it. */
  recoveryMs: number | null;
  /**
   * The longest time without a new outcome, from the fault's start until the last outcome:
   * how long outcomes stopped flowing (while requests kept coming).
   */
  stallMs?: number;
  /**
   * Per fault (each kill or network fault, in order): the longest time without a new outcome
   * from that fault until the next one (or the last outcome), counted from the last outcome before it.
   */
  stallsMs?: number[];
  /** From the fault's end until the last outcome. */
  drainMs: number;
  durationMs: number;
  lostSample: string[];
  duplicateSample: string[];
  error?: string;
}

const COLUMNS: [string, (r: ScenarioResult) => string][] = [
  ['scenario', (r) => r.scenario],
  ['requests', (r) => String(r.requests)],
  ['messages', (r) => String(r.messagesPublished)],
  ['lost', (r) => String(r.lost)],
  ['duplicate outcomes', (r) => String(r.duplicateOutcomes)],
  ['dead-lettered', (r) => String(r.deadLettered)],
  ['misframed', (r) => (r.misframed === null ? '?' : String(r.misframed))],
  ['extra billable calls', (r) => String(r.extraBillableCalls)],
  ['kills', (r) => String(r.kills)],
  ['unexpected exits', (r) => String(r.unexpectedExits)],
  ['longest stall', (r) => (r.stallMs === undefined ? '?' : `${(r.stallMs / 1000).toFixed(1)} s`)],
  ['stall per fault (median / max)', (r) => stallSpread(r.stallsMs)],
  ['recovery', (r) => (r.recoveryMs === null ? 'never' : `${(r.recoveryMs / 1000).toFixed(1)} s`)],
  ['drain', (r) => `${(r.drainMs / 1000).toFixed(1)} s`],
];

export function markdownTable(results: readonly ScenarioResult[]): string {
  const rows = results.map((r) => COLUMNS.map(([, cell]) => (r.error === undefined ? cell(r) : '')));
  const lines = [
    `| ${COLUMNS.map(([name]) => name).join(' | ')} |`,
    `| ${COLUMNS.map(([,], i) => (i === 0 ? '---' : '---:')).join(' | ')} |`,
    ...rows.map((cells, i) => {
      const result = results[i]!;
      if (result.error !== undefined)
        return `| ${result.scenario} | failed to run: ${result.error.replace(/\|/g, '/')} |`;
      return `| ${cells.join(' | ')} |`;
    }),
  ];
  return lines.join('\n');
}

/** Why the run fails: one line per scenario that lost or duplicated anything, or did not run. */
export function failures(results: readonly ScenarioResult[]): string[] {
  const out: string[] = [];
  for (const r of results) {
    if (r.error !== undefined) out.push(`${r.scenario}: did not run to the end: ${r.error}`);
    if (r.lost > 0)
      out.push(`${r.scenario}: ${r.lost} requests lost (e.g. ${r.lostSample.slice(0, 5).join(', ')})`);
    if (r.duplicateOutcomes > 0)
      out.push(
        `${r.scenario}: ${r.duplicateOutcomes} requests with duplicate outcomes (e.g. ${r.duplicateSample.slice(0, 5).join(', ')})`,
      );
  }
  return out;
}

/** Worth a look, not a failure: valid requests dead-lettered, wrongly framed values. */
export function warnings(results: readonly ScenarioResult[]): string[] {
  const out: string[] = [];
  for (const r of results) {
    if (r.error !== undefined) continue;
    if (r.deadLettered > 0) out.push(`${r.scenario}: ${r.deadLettered} valid requests dead-lettered`);
    if (r.misframed !== null && r.misframed > 0)
      out.push(
        `${r.scenario}: ${r.misframed} values framed with a schema id the registry does not give for their subject`,
      );
  }
  return out;
}

function stallSpread(stalls: readonly number[] | undefined): string {
  if (stalls === undefined || stalls.length === 0) return '–';
  const sorted = [...stalls].sort((a, b) => a - b);
  const median = sorted[Math.floor((sorted.length - 1) / 2)] ?? 0;
  return `${(median / 1000).toFixed(1)} / ${((sorted.at(-1) ?? 0) / 1000).toFixed(1)} s`;
}

/**
 * For each fault time (ascending), the longest stretch without a new outcome from the last
 * outcome before it until the next fault (or the last outcome): how long that fault stopped
 * outcomes. A stretch still open at the next fault counts for this one up to that fault, and
 * whole for that one.
 */
export function stallsPerFault(outcomeTimes: readonly number[], faultTimes: readonly number[]): number[] {
  const sorted = [...outcomeTimes].sort((a, b) => a - b);
  return faultTimes.map((at, i) => {
    const until = faultTimes[i + 1] ?? Number.POSITIVE_INFINITY;
    let previous = sorted.filter((t) => t < at).at(-1) ?? at;
    let longest = 0;
    for (const t of sorted) {
      if (t < at) continue;
      if (previous >= until) break;
      // A stretch still open at the next fault counts up to it: the rest is that fault's.
      longest = Math.max(longest, Math.min(t, until) - previous);
      previous = t;
    }
    return longest;
  });
}

/**
 * The longest stretch without a new outcome between `from` and the last outcome, given every
 * outcome's arrival time (in any order).
 */
export function longestStall(outcomeTimes: readonly number[], from: number): number {
  const after = outcomeTimes.filter((t) => t >= from).sort((a, b) => a - b);
  let longest = 0;
  let previous = from;
  for (const at of after) {
    longest = Math.max(longest, at - previous);
    previous = at;
  }
  return longest;
}
