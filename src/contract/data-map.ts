import { perOperation, TOPICS, type RetentionClass, type TopicRow } from './topics.js';

/**
 * The topics' part of docs/data-map.md, from the table of topics (contract/topics.ts): written
 * by `npm run schemas` between its markers; a test fails when the page drifts from the table.
 */
export const DATA_MAP_MARKERS = {
  start: '<!-- topics:start (generated from src/contract/topics.ts by npm run schemas) -->',
  end: '<!-- topics:end -->',
} as const;

const HOW_LONG: Record<RetentionClass, string> = {
  request: '`REQUEST_RETENTION_MS` (7 days) on topics the service creates',
  output: '`OUTPUT_RETENTION_MS` (30 days)',
  audit: '`AUDIT_RETENTION_MS` (400 days, at least the outputs’)',
};

const HOW_TO_ERASE: Record<RetentionClass, string> = {
  request:
    'retention; `erase` lists the partitions and offset ranges that hold the person’s messages, for `kafka-delete-records.sh` up to an offset',
  output: 'as for requests',
  audit: 'retention',
};

function place(row: TopicRow): string {
  return `\`<prefix>.${perOperation(row) ? row.name.replace('{operation}', '<operation>') : row.name}\``;
}

/** A Markdown table laid out as prettier lays it out (columns padded to their widest cell). */
export function markdownTable(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = header.map((cell, i) => Math.max(3, cell.length, ...rows.map((row) => row[i]?.length ?? 0)));
  const line = (cells: readonly string[]): string =>
    `| ${cells.map((cell, i) => cell.padEnd(widths[i] ?? 0)).join(' | ')} |`;
  return [line(header), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)].join('\n');
}

export function renderDataMapTopics(): string {
  const table = markdownTable(
    ['topic', 'key', 'what', 'how long', 'written by', 'who can read it', 'how to erase'],
    TOPICS.map((row) => [
      place(row),
      row.key,
      row.holds,
      HOW_LONG[row.retention],
      row.writtenBy,
      `${row.readBy}; anyone with Kafka read ACLs on the topic`,
      HOW_TO_ERASE[row.retention],
    ]),
  );
  return `${DATA_MAP_MARKERS.start}\n\n${table}\n\n${DATA_MAP_MARKERS.end}`;
}

/** `page` with its generated section replaced by `section`; throws when the markers are missing. */
export function withDataMapTopics(page: string, section: string): string {
  const start = page.indexOf(DATA_MAP_MARKERS.start);
  const end = page.indexOf(DATA_MAP_MARKERS.end);
  if (start < 0 || end < start) throw new Error('docs/data-map.md has no topics markers');
  return page.slice(0, start) + section + page.slice(end + DATA_MAP_MARKERS.end.length);
}
