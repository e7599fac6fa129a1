import { parsePlaybook } from './parse-playbook';
import { DOCUMENT_LIMITS, storable } from './document-limits';

const HEAD = 'apiVersion: noetl.io/v2\nkind: Playbook\nmetadata: {name: x}\n';
const TAIL = 'workflow:\n  - step: s\n    tool: {kind: noop}\n';

/** Issue 11 item 6 / issue 15 defect 10: hostile playbooks are problems (422), never a thrown error (500) or a stalled parse. */
describe('document limits', () => {
  it.each([
    ['a block nested 10,000 deep', `${HEAD}workload:\n  a:\n    ${'- '.repeat(10_000)}x\n${TAIL}`, 'nests'],
    ['a block nested 100 deep', `${HEAD}workload:\n  a:\n    ${'- '.repeat(100)}x\n${TAIL}`, 'the document nests deeper than 64 levels'],
    ['a flow nested 10,000 deep', `${HEAD}workload:\n  a: ${'['.repeat(10_000)}${']'.repeat(10_000)}\n${TAIL}`, 'YAML syntax error'],
    ['a NUL character made by an escape', HEAD.replace('{name: x}', '{name: "a\\0b"}') + TAIL, 'text may not hold a NUL character'],
    ['a lone surrogate made by an escape', HEAD.replace('{name: x}', '{name: "a\\ud800b"}') + TAIL, 'lone UTF-16 surrogate'],
    ['a NUL in a key', `${HEAD}workload: {"k\\0": 1}\n${TAIL}`, 'a key may not hold a NUL character'],
    [
      'more steps than the limit',
      `${HEAD}workflow:\n${'- {step: s}\n'.repeat(DOCUMENT_LIMITS.steps + 1)}`,
      'workflow has 10001 steps; the limit is 10000',
    ],
    [
      'a flow list of 60,000 values',
      `${HEAD}workload: {a: [${'1,'.repeat(60_000)}1]}\n${TAIL}`,
      'the playbook holds more than 50000 values',
    ],
    [
      'text longer than the limit',
      `${HEAD}description: "${'x'.repeat(DOCUMENT_LIMITS.chars)}"\n${TAIL}`,
      'characters; the limit is 524288',
    ],
    [
      'an alias bomb',
      `${HEAD}workload:\n  l0: &l0 [1, 1, 1, 1, 1, 1, 1, 1, 1, 1]\n${Array.from({ length: 11 }, (_, i) => `  l${i + 1}: &l${i + 1} [${Array(10).fill(`*l${i}`).join(', ')}]`).join('\n')}\n${TAIL}`,
      'Excessive alias count',
    ],
  ])('refuses %s with a problem', (_what, text, message) => {
    const started = Date.now();
    const { playbook, problems } = parsePlaybook(text);
    expect(playbook).toBeUndefined();
    expect(problems[0]?.message).toContain(message);
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it('knows which text a database stores', () => {
    expect(storable('plain ✓ 😀')).toBe(true);
    expect(storable('a\u0000b')).toBe(false);
    expect(storable('a\ud800')).toBe(false);
    expect(storable('\udc00b')).toBe(false);
  });
});
