import type { z } from 'zod';

/** One problem of a params object, with the dotted path of the offending member. */
export interface ParamsIssue {
  path: string;
  message: string;
}

/**
 * Flattens zod issues into messages a person can act on: `courts[1]: ...`, or the bare
 * message for whole-object rules ("exactly one of ..."). For a union (one value or a list),
 * the branch whose type did not match the input is dropped, so the message is about the
 * branch the caller meant rather than zod's generic "Invalid input".
 */
export function toParamsIssues(
  issues: readonly z.core.$ZodIssue[],
  prefix: readonly PropertyKey[] = [],
): ParamsIssue[] {
  return issues.flatMap((issue) => {
    const path = [...prefix, ...issue.path];
    if (issue.code === 'invalid_union') {
      const meant = issue.errors.filter((branch) => !branch.every(isWholeValueTypeMismatch));
      const only = meant.length === 1 ? meant[0] : undefined;
      if (only) return toParamsIssues(only, path);
    }
    return [{ path: formatPath(path), message: issue.message }];
  });
}

export function formatIssues(issues: readonly ParamsIssue[]): string {
  return issues
    .map((issue) => (issue.path === '' ? issue.message : `${issue.path}: ${issue.message}`))
    .join('; ');
}

function isWholeValueTypeMismatch(issue: z.core.$ZodIssue): boolean {
  return issue.code === 'invalid_type' && issue.path.length === 0;
}

function formatPath(path: readonly PropertyKey[]): string {
  return path.reduce<string>((out, segment) => {
    if (typeof segment === 'number') return `${out}[${segment}]`;
    const name = String(segment);
    return out === '' ? name : `${out}.${name}`;
  }, '');
}
