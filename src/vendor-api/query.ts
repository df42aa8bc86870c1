/**
 * The query pairs of the params that are present, in the order of `keys`: GET routes take
 * each given param under its own name, and an absent one is left out rather than sent empty.
 */
export function presentQuery<K extends string>(
  params: Partial<Record<K, string>>,
  keys: readonly K[],
): [string, string][] {
  const query: [string, string][] = [];
  for (const key of keys) {
    const value = params[key];
    if (value !== undefined) query.push([key, value]);
  }
  return query;
}
