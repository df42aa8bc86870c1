/** The members of a replayed line, in the order `replay` writes them (the JSONL contract of audits). */
export const REPLAY_LINE_KEYS = ['topic', 'partition', 'offset', 'timestamp', 'key', 'headers', 'value'];
