import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { WEB_API_TYPES, webApiTypes } from './web-api-types';

const REPO_ROOT = join(__dirname, '..', '..', '..');

describe('the web UI API types', () => {
  it("are what the server's OpenAPI document gives now (else run `npm run web:api-types`)", async () => {
    const current = await webApiTypes(REPO_ROOT);
    expect(current).toContain('"/api/executions/{id}"');
    expect(readFileSync(join(REPO_ROOT, WEB_API_TYPES), 'utf8')).toBe(current);
  }, 30_000);
});
