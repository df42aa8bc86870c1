import type { Writable } from 'node:stream';
import type { Command } from 'commander';
import { loadAuditConfig, type AuditConfig } from '../config.js';
import { actorOf, commandAudit, describeReplay, describeSelection, replayAudit } from './command-audit.js';
import { maskKey } from './mask.js';
import { CommandError } from '../errors.js';
import { createLogger } from '../observability/logger.js';
import { routeProcessWarnings } from '../observability/node-warnings.js';
import { openClients, type AuditClients } from './clients.js';
import { badArguments, incompleteRead } from './errors.js';
import {
  collect,
  parseFilter,
  parseKinds,
  parseWindow,
  type FilterFlags,
  type WindowFlags,
} from './flags.js';
import { fileSink, OutputClosedError, streamSink, type LineSink } from './jsonl.js';
import { progressFor, type ProgressStream } from './progress.js';
import { runReplay } from './replay.js';
import { runRedrive } from './run-redrive.js';
import { TOPIC_KINDS } from './topics.js';
import { describeErase, planEraseFlags, runErase, type EraseFlags } from './erase.js';
import type { AuditContext, ScanStart } from './scan.js';
import { TRAIL_KINDS } from './trail.js';

/**
 * The `replay`, `redrive` and `erase` commands: flags → library calls (replay.ts,
 * run-redrive.ts, erase.ts).
 * Output goes to stdout or --out, diagnostics and the summary to stderr; a failure is one line
 * on stderr and a non-zero exit code (errors.ts).
 */
export interface AuditIo {
  stdout: Writable;
  stderr: ProgressStream;
  /** The environment to read settings from; config.ts reads process.env when absent. */
  env?: NodeJS.ProcessEnv;
  setExitCode(code: number): void;
  /** Calls `handler` on Ctrl-C; returns a function that stops listening. */
  onInterrupt(handler: () => void): () => void;
  /** Test hooks, passed on to the reader. */
  keepGroup?: boolean;
}

interface ConnectionFlags {
  prefix?: string;
  brokers?: string;
  registry?: string;
  progress?: boolean;
  out?: string;
}

type ReplayFlags = ConnectionFlags &
  WindowFlags &
  FilterFlags & { topic?: string[]; kind?: string[]; toTopic?: string; actor?: string };
type RedriveFlags = ConnectionFlags &
  WindowFlags &
  FilterFlags & { dryRun?: boolean; showKeys?: boolean; actor?: string };
type EraseCommandFlags = ConnectionFlags & EraseFlags;

export function registerAuditCommands(program: Command, testIo?: AuditIo): void {
  // Built when a command runs, not when it is registered: `run` routes warnings its own way.
  const ioNow = (): AuditIo => testIo ?? processIo();
  withCommonOptions(
    program
      .command('replay')
      .description('read topics over a time window or offset range; write JSON Lines or republish')
      .option('--topic <names>', 'topics by full name (repeatable, comma-separated)', collect)
      .option('--kind <kinds>', `${TOPIC_KINDS.join(', ')}: topics of the prefix`, collect)
      .option('--status <values>', 'keep results / events with this status', collect)
      .option('--to-topic <topic>', 'republish the messages to this topic instead of printing them')
      .option(
        '--actor <name>',
        'who reads, for the audit event of a read of personal data (default: AUDIT_ACTOR, else the user)',
      ),
  ).action((flags: ReplayFlags) => {
    const io = ioNow();
    return run(io, 'replay', flags, () => planReplay(flags, io));
  });
  withCommonOptions(
    program
      .command('redrive')
      .description(
        'republish the requests of chosen dead letters to their request topics (same key and requestId)',
      )
      .option('--dry-run', 'list what would be redriven; publish nothing')
      .option('--show-keys', 'print message keys (tax ids, plates) whole; masked by default')
      .option('--actor <name>', 'who runs it, for the audit event (default: AUDIT_ACTOR, else the user)'),
    'dead letters',
  ).action((flags: RedriveFlags) => {
    const io = ioNow();
    return run(io, 'redrive', flags, () => planRedrive(flags, io));
  });
  program
    .command('erase')
    .description(
      "a data subject's request: erase their paid outcomes and pending searches from Redis (dry run unless --confirm) and list the Kafka ranges that still hold their data",
    )
    .option('--tax-id <id>', 'the CPF or CNPJ of the person or company')
    .option('--plate <plate>', 'the licence plate')
    .option('--confirm', 'erase; without it, only list what would be erased')
    .option('--actor <name>', 'who runs the erase, for the audit event (default: AUDIT_ACTOR, else the user)')
    .option('--out <file>', 'write the retained ranges (JSON Lines) to this file instead of stdout')
    .option('--prefix <prefix>', 'topic prefix (default: TOPIC_PREFIX)')
    .option('--brokers <list>', 'host:port list (default: KAFKA_BROKERS)')
    .option('--registry <url>', 'schema registry URL (default: SCHEMA_REGISTRY_URL; none: plain JSON)')
    .option('--progress', 'show the progress bar even when stderr is not a terminal')
    .action((flags: EraseCommandFlags) => {
      const io = ioNow();
      return run(io, 'erase', flags, () => planErase(flags, io));
    });
}

function planErase(flags: EraseCommandFlags, io: AuditIo): Body {
  const plan = planEraseFlags(flags, actorOf(flags, envOf(io)));
  return async (ctx) => {
    const sink = await openSink(flags, io);
    let completed = false;
    try {
      const summary = await runErase(ctx, plan, io.env ?? process.env, sink);
      completed = true;
      return describeErase(plan, summary);
    } finally {
      await closeSink(sink, completed);
    }
  };
}

function withCommonOptions(command: Command, what = 'messages'): Command {
  const operation =
    what === 'messages'
      ? 'request/result topics of these operations; keeps their messages'
      : 'keep dead letters of these operations';
  const requestId =
    what === 'messages'
      ? 'keep messages of these requestIds (with no --topic/--kind: the trail of the request)'
      : 'keep dead letters of these requestIds';
  return command
    .option('--operation <ops>', operation, collect)
    .option('--request-id <ids>', requestId, collect)
    .option('--error-kind <kinds>', 'keep dead letters of these error kinds', collect)
    .option('--key <keys>', `keep ${what} with these keys`, collect)
    .option('--from <time>', 'window start, ISO 8601 with zone, inclusive')
    .option('--to <time>', 'window end, ISO 8601 with zone, exclusive (default: the end when started)')
    .option('--partition <n>', 'offset range: only this partition')
    .option('--from-offset <n>', 'offset range: first offset, inclusive')
    .option('--to-offset <n>', 'offset range: end offset, exclusive (default: the end when started)')
    .option('--out <file>', 'write JSON Lines to this file instead of stdout')
    .option('--prefix <prefix>', 'topic prefix (default: TOPIC_PREFIX)')
    .option('--brokers <list>', 'host:port list (default: KAFKA_BROKERS)')
    .option('--registry <url>', 'schema registry URL (default: SCHEMA_REGISTRY_URL; none: plain JSON)')
    .option('--progress', 'show the progress bar even when stderr is not a terminal');
}

/** Flags → a replay, checked before connecting; the returned body runs once connected. */
function planReplay(flags: ReplayFlags, io: AuditIo): Body {
  const window = parseWindow(flags);
  const filter = parseFilter(flags);
  const kinds = parseKinds(flags.kind);
  const trail =
    (flags.topic ?? []).length === 0 && (kinds ?? []).length === 0 && (filter.requestIds ?? []).length > 0;
  const { toTopic } = flags;
  if (toTopic !== undefined && flags.out !== undefined) throw badArguments('use either --out or --to-topic');
  if (!trail && (flags.topic ?? []).length === 0 && (kinds ?? []).length === 0) {
    throw badArguments(
      'choose what to read: --topic <name>, --kind <kinds> or --request-id <id> (the trail)',
    );
  }
  const selection = trail
    ? { kinds: TRAIL_KINDS, operations: filter.operations, lenient: true }
    : { names: flags.topic, kinds, operations: filter.operations };
  const actor = actorOf(flags, envOf(io));
  const chosen = describeReplay(window, filter, { toTopic, out: flags.out });
  return async (ctx) => {
    const sink = toTopic === undefined ? await openSink(flags, io) : undefined;
    let completed = false;
    try {
      const output = sink
        ? { kind: 'lines' as const, sink }
        : { kind: 'topic' as const, topic: toTopic ?? '' };
      const s = await runReplay(ctx, {
        selection,
        window,
        filter,
        trail,
        output,
        audit: replayAudit(ctx, actor, chosen),
      });
      const where = toTopic === undefined ? 'written' : `republished to ${toTopic}`;
      const outside = s.stampedOutside > 0 ? `, ${s.stampedOutside} stamped outside the window` : '';
      const said = `${s.written} of ${s.read} messages ${where} (${s.undecodable} undecodable${outside}) from ${s.topics.length} topic(s)`;
      // Interrupted (Ctrl-C) or stopped short: no export to replace an earlier one with.
      const incomplete = incompleteRead(s, said);
      if (incomplete) throw incomplete;
      completed = ctx.signal?.aborted !== true;
      return said;
    } finally {
      await closeSink(sink, completed);
    }
  };
}

function planRedrive(flags: RedriveFlags, io: AuditIo): Body {
  const window = parseWindow(flags);
  const filter = parseFilter(flags);
  const dryRun = flags.dryRun === true;
  const actor = actorOf(flags, envOf(io));
  return async (ctx) => {
    const sink = await openSink(flags, io);
    let completed = false;
    let lines = 0;
    let redriven = 0;
    const counting: LineSink = {
      write: (line) => {
        lines += 1;
        const fields = line as Record<string, unknown>;
        if (fields.action === 'redriven') redriven += 1;
        // A key is a tax id or a plate: masked as the console masks it, unless asked for.
        const shown =
          flags.showKeys !== true && typeof fields.key === 'string'
            ? { ...fields, key: maskKey(fields.key) }
            : line;
        return sink.write(shown);
      },
      close: (done) => sink.close(done),
    };
    const audit = commandAudit(ctx);
    const target = describeSelection(window, filter);
    const event = { actor, role: 'cli' as const, target };
    const now = (): string => new Date().toISOString();
    // Keys shown whole are personal data: recorded before the first dead letter is read.
    const showingKeys = (start: ScanStart): Promise<void> =>
      audit.before({ action: 'redrive-keys-shown', ...event, dryRun, messages: start.spanned, at: now() });
    try {
      // Recorded before anything is sent: a redrive whose event cannot be written sends nothing.
      if (!dryRun) await audit.before({ action: 'redrive-started', ...event, at: now() });
      const s = await runRedrive(ctx, {
        window,
        filter,
        dryRun,
        sink: counting,
        onStart: flags.showKeys === true ? showingKeys : undefined,
      });
      const done = dryRun ? `${s.matched - s.skipped} would be redriven` : `${s.redriven} redriven`;
      const said = `${done}, ${s.skipped} skipped, of ${s.read} dead letters read`;
      const incomplete = incompleteRead(s, said);
      if (incomplete) throw incomplete;
      completed = true;
      return said;
    } finally {
      await audit.after(dryRun ? undefined : { action: 'redrive', ...event, count: redriven, at: now() });
      // A redrive's lines are the record of what it sent: kept even when it stops half-way,
      // as long as it has any (a run that failed before its first line replaces nothing).
      await closeSink(sink, completed || (!dryRun && lines > 0));
    }
  };
}

function envOf(io: AuditIo): NodeJS.ProcessEnv {
  return io.env ?? process.env;
}

/** Closes the output; a failure to close is the command's error only when nothing else failed. */
async function closeSink(sink: LineSink | undefined, completed: boolean): Promise<void> {
  try {
    await sink?.close(completed);
  } catch (error) {
    if (completed) throw error;
  }
}

function openSink(flags: ConnectionFlags, io: AuditIo): Promise<LineSink> {
  return flags.out === undefined ? Promise.resolve(streamSink(io.stdout)) : fileSink(flags.out);
}

type Body = (ctx: AuditContext) => Promise<string>;

async function run(io: AuditIo, name: string, flags: ConnectionFlags, plan: () => Body): Promise<void> {
  const controller = new AbortController();
  const stopListening = io.onInterrupt(() => {
    controller.abort();
  });
  let clients: AuditClients | undefined;
  try {
    const body = plan(); // bad flags fail before any connection
    const config = loadConfig(flags, io);
    clients = await openClients(config);
    const ctx: AuditContext = {
      config,
      clients,
      progress: progressFor(io.stderr, name, flags.progress === true),
      warn: (message) => io.stderr.write(`${name}: warning: ${message}\n`),
      signal: controller.signal,
      ...(io.keepGroup === undefined ? {} : { keepGroup: io.keepGroup }),
    };
    const summary = await body(ctx);
    io.stderr.write(`${name}: ${controller.signal.aborted ? 'interrupted; ' : ''}${summary}\n`);
    if (controller.signal.aborted) io.setExitCode(130);
  } catch (error) {
    if (error instanceof OutputClosedError) return;
    io.stderr.write(`${name}: ${describeError(error)}\n`);
    io.setExitCode(exitCodeOf(error));
  } finally {
    stopListening();
    await clients?.close().catch(() => undefined);
  }
}

function loadConfig(flags: ConnectionFlags, io: AuditIo): AuditConfig {
  const overrides = {
    KAFKA_BROKERS: flags.brokers,
    TOPIC_PREFIX: flags.prefix,
    SCHEMA_REGISTRY_URL: flags.registry,
  };
  return io.env ? loadAuditConfig(overrides, io.env) : loadAuditConfig(overrides);
}

function describeError(error: unknown): string {
  if (error instanceof CommandError) return error.describe();
  const text = error instanceof Error ? error.message : String(error);
  return text.split('\n')[0] ?? text;
}

function exitCodeOf(error: unknown): number {
  return error instanceof CommandError ? error.exitCode : 1;
}

function processIo(): AuditIo {
  // stdout carries the JSON Lines: Node's warnings go to stderr.
  routeProcessWarnings(createLogger({ level: 'warn', destination: process.stderr }));
  return {
    stdout: process.stdout,
    stderr: process.stderr,
    setExitCode: (code) => {
      process.exitCode = code;
    },
    onInterrupt(handler) {
      process.once('SIGINT', handler);
      return () => process.off('SIGINT', handler);
    },
  };
}
