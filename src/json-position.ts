/**
 * Where JSON.parse failed, as ` (at character N)`, or '' when V8 did not say. V8's own message
 * quotes the input ("Maria da S"... is not valid JSON): an error that may be logged says where
 * the text went wrong, never what it held.
 */
export function jsonErrorPosition(error: unknown): string {
  const match = /position (\d+)/.exec(error instanceof Error ? error.message : String(error));
  return match ? ` (at character ${match[1]})` : '';
}
