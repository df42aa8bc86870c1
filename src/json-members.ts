/**
 * `objectJson`, the JSON text of an object, with one more member whose value is JSON text
 * already (`valueJson`), added last. A value serialised once goes into several documents this
 * way (a paid outcome's vendor response: into the record kept in Redis and into the result
 * written to its topic) instead of being serialised again for each. An undefined value adds
 * nothing, as JSON.stringify leaves out an undefined member.
 */
export function withMember(objectJson: string, name: string, valueJson: string | undefined): string {
  if (valueJson === undefined) return objectJson;
  const member = `${JSON.stringify(name)}:${valueJson}`;
  return objectJson === '{}' ? `{${member}}` : `${objectJson.slice(0, -1)},${member}}`;
}

/** JSON.stringify of a value, undefined for undefined (a member JSON.stringify leaves out). */
export function jsonOf(value: unknown): string | undefined {
  return value === undefined ? undefined : JSON.stringify(value);
}
