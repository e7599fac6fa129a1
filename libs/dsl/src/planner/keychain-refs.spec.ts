import type { KeychainEntry } from '../model';
import { keychainReferences } from './keychain-refs';

const ENTRIES: KeychainEntry[] = [
  { name: 'api', spec: { kind: 'bearer', credential: 'api_token' } },
  { name: 'client', spec: { kind: 'static', map: { id: '{{ client_id }}', secret: '{{ client_secret }}' } } },
  { name: 'token', spec: { kind: 'oauth2', endpoint: 'http://auth/token', data: { client_id: "{{ keychain['client'].id }}" } } },
  { name: 'unused', spec: { kind: 'bearer', credential: 'other' } },
];

describe('keychainReferences', () => {
  it('gives the entries a spec reads, in declaration order, as {name, ...spec}', () => {
    const spec = { tool: { kind: 'http', headers: { Authorization: 'Bearer {{ keychain.api.access_token }}' } } };
    expect(keychainReferences(ENTRIES, spec)).toEqual([{ name: 'api', kind: 'bearer', credential: 'api_token' }]);
  });

  it('follows entries that read other entries', () => {
    expect(keychainReferences(ENTRIES, { input: { t: '{{ keychain.token.access_token }}' } }).map((e) => e.name)).toEqual([
      'client',
      'token',
    ]);
  });

  it('gives every entry to a template that reads keychain dynamically', () => {
    expect(keychainReferences(ENTRIES, { input: { t: '{{ keychain[which].x }}' } })).toHaveLength(4);
  });

  it('gives nothing when nothing reads keychain, or an unknown name', () => {
    expect(keychainReferences(ENTRIES, { tool: { kind: 'noop' }, input: { keychains: 'keychain_x' } })).toEqual([]);
    expect(keychainReferences(ENTRIES, { input: { t: '{{ keychain.nope.x }}' } })).toEqual([]);
    expect(keychainReferences([], { input: { t: '{{ keychain.api.x }}' } })).toEqual([]);
  });
});
