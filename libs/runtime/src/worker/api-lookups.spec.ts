import { CallError } from '@noetl/dsl';
import { RuntimeError } from '../runtime-error';
import { retryableLedgerIdentity, retryableLookup } from './api-lookups';

describe('retryableLookup', () => {
  it('makes a lookup the API could not answer (restarting, its database down) a retryable connection error', async () => {
    const lookup = retryableLookup(() =>
      Promise.reject(new Error('POST http://api/api/frames/1/credential failed after 4 attempt(s): HTTP 500')),
    );
    const error = await lookup('sink_pg').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CallError);
    expect((error as CallError).info).toMatchObject({ kind: 'connection', retryable: true, code: 'CREDENTIAL_UNAVAILABLE' });
    expect((error as CallError).info.message).toContain('credential "sink_pg" could not be looked up');
  });

  it('keeps a refusal final and passes the data through', async () => {
    const refused = new RuntimeError('credential_not_allowed', 'not in the keychain');
    await expect(retryableLookup(() => Promise.reject(refused))('x')).rejects.toBe(refused);
    await expect(retryableLookup(() => Promise.resolve({ user: 'u' }))('x')).resolves.toEqual({ user: 'u' });
  });
});

describe('retryableLedgerIdentity', () => {
  it("makes the ledger's identity the API could not give (restarting) a retryable connection error, so a postgres step's retry covers it", async () => {
    const identity = retryableLedgerIdentity(() =>
      Promise.reject(new Error('GET http://api/api/workers/ledger failed after 4 attempt(s): connect ECONNREFUSED 127.0.0.1:1')),
    );
    const error = await identity().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CallError);
    expect((error as CallError).info).toMatchObject({ kind: 'connection', retryable: true, code: 'LEDGER_IDENTITY_UNAVAILABLE' });
    expect((error as CallError).info.message).toContain('ECONNREFUSED');
  });

  it('keeps a refusal final and passes the identity through', async () => {
    const refused = new RuntimeError('forbidden', 'not a worker key');
    await expect(retryableLedgerIdentity(() => Promise.reject(refused))()).rejects.toBe(refused);
    const known = { cluster: 'c', startedAt: 's', oid: '1', name: 'noetl' };
    await expect(retryableLedgerIdentity(() => Promise.resolve(known))()).resolves.toBe(known);
  });
});
