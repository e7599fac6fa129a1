import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { playbookSchema } from '@noetl/dsl';

/** The text of docs/playbook.schema.json: the schema, two-space indented, one trailing newline. */
export function schemaText(): string {
  return `${JSON.stringify(playbookSchema(), null, 2)}\n`;
}

// `npm run schema` runs the built file, dist/tools/schema/write-schema.js: the repository is three levels up.
if (require.main === module) {
  const file = join(__dirname, '..', '..', '..', 'docs', 'playbook.schema.json');
  writeFileSync(file, schemaText());
  console.log(`wrote ${file}`);
}
