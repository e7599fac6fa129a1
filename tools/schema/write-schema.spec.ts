import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { parsePlaybook } from '@noetl/dsl';
import Ajv from 'ajv';
import { parse } from 'yaml';
import { schemaText } from './write-schema';

const root = join(__dirname, '..', '..');
const committed = join(root, 'docs', 'playbook.schema.json');

function yamlFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return yamlFiles(path);
    return /\.ya?ml$/.test(name) ? [path] : [];
  });
}

/** Every example, and every fixture the parser accepts (the corpus holds one it must refuse). */
const playbooks = [...yamlFiles(join(root, 'examples')), ...yamlFiles(join(root, 'test', 'fixtures', 'noetl', 'playbooks'))]
  .map((file) => ({ file: relative(root, file), text: readFileSync(file, 'utf8') }))
  .filter(({ text }) => parsePlaybook(text).problems.length === 0);

describe('docs/playbook.schema.json', () => {
  const validate = new Ajv({ allErrors: true, strict: false }).compile(JSON.parse(readFileSync(committed, 'utf8')));

  it('is what npm run schema writes from the validator today (run it after changing the accepted keys)', () => {
    expect(readFileSync(committed, 'utf8')).toBe(schemaText());
  });

  it('covers every example and at least 60 fixtures', () => {
    expect(playbooks.filter(({ file }) => file.startsWith('examples')).length).toBeGreaterThanOrEqual(9);
    expect(playbooks.length).toBeGreaterThanOrEqual(60);
  });

  it.each(playbooks.map(({ file, text }) => [file, text]))('accepts %s, which the validator accepts', (_file, text) => {
    const valid = validate(parse(text));
    expect(validate.errors ?? []).toEqual([]);
    expect(valid).toBe(true);
  });

  it('refuses what the validator refuses: a misspelt step key, an unknown tool kind, a loop without its keys', () => {
    const base = { apiVersion: 'noetl.io/v2', kind: 'Playbook', metadata: { name: 'x' } };
    expect(validate({ ...base, workflow: [{ step: 'a', nxt: 'b' }] })).toBe(false);
    expect(validate({ ...base, workflow: [{ step: 'a', tool: { kind: 'ftp' } }] })).toBe(false);
    expect(validate({ ...base, workflow: [{ step: 'a', tool: { kind: 'noop' }, loop: { items: [1] } }] })).toBe(false);
    expect(validate({ ...base, workflow: [] })).toBe(false);
    expect(validate({ ...base, workflow: [{ step: 'a', tool: 'http', url: 'http://x' }] })).toBe(true);
  });
});
