import { createHash } from 'node:crypto';
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { parsePlaybook, PLAYBOOK_MODEL_FORMAT } from './parse-playbook';

/**
 * The catalog keeps each version's parsed model and reuses it while
 * PLAYBOOK_MODEL_FORMAT is the same (CatalogService). This spec holds the
 * models of the repository's playbooks (examples/, test/fixtures/) to what
 * they were when the format was recorded: a change to parsing that alters
 * any of them fails here until PLAYBOOK_MODEL_FORMAT is bumped and the
 * models recorded again with `MODEL_FORMAT=write npx jest model-format`.
 */
const ROOT = join(__dirname, '..', '..', '..', '..');
const GOLDEN_FILE = join(__dirname, 'testing', 'model-format.json');

interface Golden {
  format: number;
  /** sha256 of each playbook's model as JSON (key order included: the catalog keeps it), by path from the repository root. */
  models: Record<string, string>;
}

function playbookFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return playbookFiles(path);
    return /\.ya?ml$/.test(entry.name) ? [path] : [];
  });
}

function currentModels(): Record<string, string> {
  const models: Record<string, string> = {};
  for (const file of [...playbookFiles(join(ROOT, 'examples')), ...playbookFiles(join(ROOT, 'test', 'fixtures'))].sort()) {
    const { playbook } = parsePlaybook(readFileSync(file, 'utf8'));
    if (playbook) models[relative(ROOT, file)] = createHash('sha256').update(JSON.stringify(playbook)).digest('hex');
  }
  return models;
}

describe('the playbook model format', () => {
  const models = currentModels();

  if (process.env['MODEL_FORMAT'] === 'write') {
    it('records the models at the current format', () => {
      writeFileSync(GOLDEN_FILE, `${JSON.stringify({ format: PLAYBOOK_MODEL_FORMAT, models } satisfies Golden, null, 2)}\n`);
      expect(Object.keys(models).length).toBeGreaterThan(50);
    });
    return;
  }

  const golden = JSON.parse(readFileSync(GOLDEN_FILE, 'utf8')) as Golden;

  it('is the format the models were recorded at (record them again after a bump)', () => {
    expect(golden.format).toBe(PLAYBOOK_MODEL_FORMAT);
  });

  it('makes the recorded model of every playbook, or PLAYBOOK_MODEL_FORMAT is bumped', () => {
    expect(Object.keys(models).length).toBeGreaterThan(50);
    expect(models).toEqual(golden.models);
  });

  it('makes models of plain JSON data, which the catalog stores and reads back as they were', () => {
    for (const file of Object.keys(models)) {
      const { playbook } = parsePlaybook(readFileSync(join(ROOT, file), 'utf8'));
      expect(JSON.parse(JSON.stringify(playbook))).toEqual(playbook);
    }
  });
});
