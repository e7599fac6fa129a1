import 'reflect-metadata';
import { writeFileSync } from 'node:fs';
import { WEB_API_TYPES, webApiTypes } from './web-api-types';

// Run from the repository root (`npm run web:api-types`).
void webApiTypes(process.cwd()).then(
  (types) => {
    writeFileSync(WEB_API_TYPES, types);
    process.stdout.write(`wrote ${WEB_API_TYPES}\n`);
  },
  (error: unknown) => {
    process.stderr.write(`web:api-types: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  },
);
