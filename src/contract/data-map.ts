import {
  KEYS,
  PARTIES,
  forOperation,
  RETENTION_SETTINGS,
  TOPICS,
  type Party,
  type RetentionClass,
  type TopicRow,
} from './topics.js';

/**
 * The topics' part of docs/data-map.md, from the table of topics (contract/topics.ts): written
 * by `npm run schemas` between its markers; a test fails when the page drifts from the table.
 */
export const DATA_MAP_MARKERS = {
  start: '<!-- topics:start (generated from src/contract/topics.ts by npm run schemas) -->',
  end: '<!-- topics:end -->',
} as const;

/** The settings' defaults (src/config.ts; a test holds the two together). */
export const DEFAULT_RETENTION_DAYS: Record<RetentionClass, number> = { request: 7, output: 30, audit: 400 };

const RETENTION_NOTES: Record<RetentionClass, string> = {
  request: '',
  output: '',
  audit: ', at least the outputs’',
};

function howLong(row: TopicRow): string {
  const days = DEFAULT_RETENTION_DAYS[row.retention];
  return `\`${RETENTION_SETTINGS[row.retention]}\` (${days} days${RETENTION_NOTES[row.retention]})`;
}

// Kafka cannot delete one message: `erase` names where a person's messages are.
function howToErase(row: TopicRow): string {
  return row.readers.includes('erase')
    ? 'retention; `erase` lists the partitions and offset ranges that hold the person’s messages, for `kafka-delete-records.sh` up to an offset'
    : 'retention';
}

// How a reader sees the values, where it does not see them whole.
const READING: Partial<Record<Party, string>> = {
  console: ' (masked; an operator’s reveal of a dead letter is audited)',
  replay: ' (whole; audited, naming the actor)',
  redrive: ' (keys masked; `--show-keys` is audited)',
};

const writerList = (parties: readonly Party[]): string => parties.map((party) => PARTIES[party]).join(', ');
const readerList = (parties: readonly Party[]): string =>
  parties.map((party) => `${PARTIES[party]}${READING[party] ?? ''}`).join(', ');

function place(row: TopicRow): string {
  return `\`<prefix>.${forOperation(row.name, '<operation>')}\``;
}

/** A Markdown table laid out as prettier lays it out (columns padded to their widest cell). */
export function markdownTable(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = header.map((cell, i) => Math.max(3, cell.length, ...rows.map((row) => row[i]?.length ?? 0)));
  const line = (cells: readonly string[]): string =>
    `| ${cells.map((cell, i) => cell.padEnd(widths[i] ?? 0)).join(' | ')} |`;
  return [line(header), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)].join('\n');
}

/** The generated section: which topics hold personal data, then a row per topic of `rows`. */
export function renderDataMapTopics(rows: readonly TopicRow[] = TOPICS): string {
  const clear = rows.filter((row) => !row.personalData).map(place);
  const intro =
    clear.length === 0
      ? 'Every topic holds personal data.'
      : `Every topic holds personal data but ${clear.join(', ')}.`;
  const table = markdownTable(
    ['topic', 'key', 'what', 'how long', 'written by', 'who can read it', 'how to erase'],
    rows.map((row) => [
      place(row),
      KEYS[row.key],
      row.holds,
      howLong(row),
      writerList(row.writers),
      `${readerList(row.readers)}, anyone with Kafka read ACLs on the topic`,
      howToErase(row),
    ]),
  );
  return `${DATA_MAP_MARKERS.start}\n\n${intro}\n\n${table}\n\n${DATA_MAP_MARKERS.end}`;
}

/** `page` with its generated section replaced by `section`; throws when the markers are missing. */
export function withDataMapTopics(page: string, section: string): string {
  const start = page.indexOf(DATA_MAP_MARKERS.start);
  const end = page.indexOf(DATA_MAP_MARKERS.end);
  if (start < 0 || end < start) throw new Error('docs/data-map.md has no topics markers');
  return page.slice(0, start) + section + page.slice(end + DATA_MAP_MARKERS.end.length);
}
