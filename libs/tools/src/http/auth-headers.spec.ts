import { CallError } from '@noetl/dsl';
import { authHeaders } from './auth-headers';

describe('authHeaders', () => {
  it('makes a bearer header from a bearer credential or a bare token', () => {
    expect(authHeaders({ type: 'bearer', token: 't1' }, 'c')).toEqual({ Authorization: 'Bearer t1' });
    expect(authHeaders({ access_token: 't2' }, 'c')).toEqual({ Authorization: 'Bearer t2' });
  });

  it('makes a basic header from username and password', () => {
    expect(authHeaders({ type: 'basic', username: 'u', password: 'p:w' }, 'c')).toEqual({
      Authorization: `Basic ${Buffer.from('u:p:w').toString('base64')}`,
    });
  });

  it('passes headers through and adds api keys under their header', () => {
    expect(authHeaders({ headers: { 'X-Api-Key': 'k', 'X-N': 1 } }, 'c')).toEqual({ 'X-Api-Key': 'k', 'X-N': '1' });
    expect(authHeaders({ type: 'api_key', api_key: 'k2' }, 'c')).toEqual({ 'X-API-Key': 'k2' });
    expect(authHeaders({ type: 'api_key', header: 'X-Token', value: 'k3' }, 'c')).toEqual({ 'X-Token': 'k3' });
  });

  it('fails without revealing values when nothing usable is there', () => {
    try {
      authHeaders({ type: 'bearer', password: 'hunter2' }, 'credential "api"');
      throw new Error('expected a failure');
    } catch (err) {
      expect(err).toBeInstanceOf(CallError);
      expect((err as CallError).info.message).toContain('credential "api"');
      expect((err as CallError).info.message).not.toContain('hunter2');
    }
  });
});
