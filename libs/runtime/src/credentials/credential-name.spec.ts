import { RuntimeError } from '../runtime-error';
import { assertCredentialName } from './credential-name';

describe('assertCredentialName', () => {
  it.each(['pg_main', 'api.token', 'tenant:prod-db', 'a'.repeat(200)])('accepts %s', (name) => {
    expect(() => assertCredentialName(name)).not.toThrow();
  });

  it.each(['', 'a'.repeat(201), 'has space', 'slash/name', 'semi;colon', 'é'])('rejects %j as invalid_request', (name) => {
    expect(() => assertCredentialName(name)).toThrow(expect.objectContaining({ code: 'invalid_request' }) as RuntimeError);
  });
});
