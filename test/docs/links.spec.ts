import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';

const root = resolve(__dirname, '..', '..');
const documents = [
  'README.md',
  ...readdirSync(join(root, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`),
];

/** The markdown links of a document, fenced code left out (it is shown, not followed). */
function links(text: string): string[] {
  const prose = text.replace(/^```[\s\S]*?^```/gm, '');
  return [...prose.matchAll(/\]\(([^)\s]+)\)|<((?:https?|mailto):[^>]+)>/g)].map((match) => match[1] ?? match[2] ?? '');
}

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces to hyphens. */
function anchors(text: string): Set<string> {
  const headings = text.replace(/^```[\s\S]*?^```/gm, '').match(/^#{1,6} .+$/gm) ?? [];
  return new Set(
    headings.map((heading) =>
      heading
        .replace(/^#+ /, '')
        .trim()
        .toLowerCase()
        .replace(/[^\p{L}\p{N}\s_-]/gu, '')
        .replace(/\s/g, '-'),
    ),
  );
}

/** What is wrong with one link of `file`, or undefined. */
function problem(file: string, target: string): string | undefined {
  if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('/')) return 'points outside the repository';
  const [path = '', anchor] = target.split('#');
  const absolute = path === '' ? join(root, file) : resolve(root, dirname(file), decodeURI(path));
  if (absolute !== root && !absolute.startsWith(root + sep)) return 'points outside the repository';
  if (!existsSync(absolute)) return 'does not exist';
  if (anchor !== undefined && absolute.endsWith('.md') && !anchors(readFileSync(absolute, 'utf8')).has(anchor))
    return `has no heading #${anchor}`;
  return undefined;
}

describe('the README and docs/ link only inside the repository', () => {
  it.each(documents)('every link of %s resolves to a file (and heading) of the repository', (file) => {
    const text = readFileSync(join(root, file), 'utf8');
    const broken = links(text).flatMap((target) => {
      const why = problem(file, target);
      return why ? [`${target}: ${why}`] : [];
    });
    expect(broken).toEqual([]);
  });

  it('finds the links it checks (a link to a missing file or the web would fail)', () => {
    expect(links(readFileSync(join(root, 'README.md'), 'utf8')).length).toBeGreaterThan(5);
    expect(problem('README.md', 'docs/nowhere.md')).toBe('does not exist');
    expect(problem('README.md', 'https://example.com')).toBe('points outside the repository');
    expect(problem('docs/design.md', '../../shared/DESIGN.md')).toBe('points outside the repository');
    expect(problem('README.md', 'docs/language.md#no-such-heading')).toBe('has no heading #no-such-heading');
  });
});

describe('nothing in the repository reads ../shared', () => {
  const outside = /\/work\/shared|(?:\.\.\/)+shared\/(?:noetl-fixtures|DESIGN\.md|DSL\.md|STYLE\.md)/;

  function sources(dir: string): string[] {
    return readdirSync(dir).flatMap((name) => {
      const path = join(dir, name);
      // The vendored NoETL corpus is quoted as NoETL wrote it.
      if (name === 'node_modules' || path === join(root, 'test', 'fixtures', 'noetl')) return [];
      if (statSync(path).isDirectory()) return sources(path);
      return /\.(ts|js|mjs|json|ya?ml|md|sh)$/.test(name) ? [path] : [];
    });
  }

  it('has no path to ../shared in code, configuration or docs', () => {
    const files = [
      ...['apps', 'libs', 'tools', 'test', 'bench', 'docs', 'k8s', 'docker', 'examples'].flatMap((dir) => sources(join(root, dir))),
      join(root, 'README.md'),
      join(root, 'package.json'),
    ];
    const offenders = files
      .filter((file) => file !== __filename && outside.test(readFileSync(file, 'utf8')))
      .map((file) => relative(root, file));
    expect(offenders).toEqual([]);
  });
});
