/**
 * Every relative link in the project's Markdown reaches a file that exists, and every #anchor a
 * heading of the file it names (GitHub's slugs, github-slugger): the README links its pages in
 * docs/ and bench/, which link each other and the code, and a moved section must not leave a
 * dead link behind.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import GithubSlugger from 'github-slugger';
import { describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '../..');

/** The Markdown files git tracks (and new ones it does not ignore). */
function markdownFiles(): string[] {
  const listed = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', '*.md'], {
    cwd: root,
    encoding: 'utf8',
  });
  return listed.split('\n').filter((file) => file !== '' && existsSync(join(root, file)));
}

/** The text outside fenced code blocks and inline code, where links are links. */
function prose(text: string): string {
  let fenced = false;
  const kept: string[] = [];
  for (const line of text.split('\n')) {
    if (/^\s*(```|~~~)/.test(line)) {
      fenced = !fenced;
      continue;
    }
    if (!fenced) kept.push(line.replace(/`[^`]*`/g, (code) => (code.includes('](') ? '' : code)));
  }
  return kept.join('\n');
}

export interface Link {
  file: string;
  target: string;
}

export function linksOf(file: string, text: string): Link[] {
  return [...prose(text).matchAll(/\[[^\]]*\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)]
    .map((match) => match[1] ?? '')
    .filter((target) => !/^[a-z][a-z0-9+.-]*:/i.test(target))
    .map((target) => ({ file, target }));
}

/** The anchors of a Markdown file's headings, as GitHub makes them (duplicates numbered). */
export function anchorsOf(text: string): Set<string> {
  const slugger = new GithubSlugger();
  const anchors = new Set<string>();
  for (const line of prose(text).split('\n')) {
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (heading?.[1] !== undefined) anchors.add(slugger.slug(heading[1].replace(/`/g, '')));
  }
  return anchors;
}

/** What is wrong with one link, or undefined when it reaches its file and heading. */
export function brokenReason(link: Link, read: (path: string) => string | undefined): string | undefined {
  const [path = '', anchor] = link.target.split('#', 2);
  const target = path === '' ? join(root, link.file) : resolve(root, dirname(link.file), decodeURI(path));
  const text = read(target);
  if (text === undefined) return `no file ${path}`;
  if (anchor === undefined || anchor === '') return undefined;
  if (!target.endsWith('.md')) return undefined;
  return anchorsOf(text).has(anchor) ? undefined : `no heading #${anchor} in ${path || link.file}`;
}

function readIfThere(path: string): string | undefined {
  if (!existsSync(path)) return undefined;
  try {
    return readFileSync(path, 'utf8');
  } catch {
    // A directory: it exists, and has no headings.
    return '';
  }
}

describe('links in the Markdown files', () => {
  it('each reaches an existing file, and its #anchor a heading there', () => {
    const files = markdownFiles();
    expect(files).toContain('README.md');
    expect(files).toContain('docs/configuration.md');
    const broken = files
      .flatMap((file) => linksOf(file, readFileSync(join(root, file), 'utf8')))
      .map((link) => ({ link, reason: brokenReason(link, readIfThere) }))
      .filter(({ reason }) => reason !== undefined)
      .map(({ link, reason }) => `${link.file}: (${link.target}) ${reason ?? ''}`);
    expect(broken).toEqual([]);
  });

  it('a dead file or anchor is reported, and a heading written twice has its numbered anchor', () => {
    const pages: Record<string, string> = {
      [join(root, 'docs/a.md')]: '# A\n\n## Setup\n\n## Setup\n\n## `ALLOW_X` and Docker\n',
    };
    const read = (path: string): string | undefined => pages[path];
    const reason = (target: string) => brokenReason({ file: 'docs/b.md', target }, read);
    expect(reason('a.md#setup')).toBeUndefined();
    expect(reason('a.md#setup-1')).toBeUndefined();
    expect(reason('a.md#allow_x-and-docker')).toBeUndefined();
    expect(reason('a.md#setup-2')).toBe('no heading #setup-2 in a.md');
    expect(reason('gone.md')).toBe('no file gone.md');
    expect(linksOf('x.md', '[a](b.md) `[c](d.md)` [e](https://example.org)\n```\n[f](g.md)\n```')).toEqual([
      { file: 'x.md', target: 'b.md' },
    ]);
  });
});
