import { CallError } from '@noetl/dsl';
import { SecretSet } from './secret-set';

const CANARY = 'cAn4ry-s3cr3t/v+1 ü';

function secretsOf(...data: unknown[]): SecretSet {
  const secrets = new SecretSet();
  for (const d of data) secrets.add(d);
  return secrets;
}

describe('SecretSet', () => {
  it('cleans an error message, keeping its classification and data', () => {
    const err = new CallError({ kind: 'auth', message: 'bad token tok-123', retryable: false, status: 401 }, { body: 1 });
    const clean = secretsOf({ token: 'tok-123' }).callError(err);
    expect(clean.info).toEqual({ kind: 'auth', message: 'bad token ***', retryable: false, status: 401 });
    expect(clean.data).toEqual({ body: 1 });
    expect(secretsOf({}).callError(err)).toBe(err);
  });

  it('collects every string of a credential except where-and-who fields', () => {
    const secrets = secretsOf({ db_host: 'db.internal', db_port: '5432', db_user: 'etl', db_name: 'warehouse', db_password: 'hunter22', api: { key: 'k-998877' } });
    expect(secrets.text('etl@db.internal:5432/warehouse with hunter22 and k-998877')).toBe('etl@db.internal:5432/warehouse with *** and ***');
  });

  it('replaces a secret as written, URL-encoded, form-encoded and JSON-escaped', () => {
    const secrets = secretsOf({ token: CANARY, quoted: 'say "hi" \\ now' });
    expect(secrets.text(`raw ${CANARY}`)).toBe('raw ***');
    expect(secrets.text(`?t=${encodeURIComponent(CANARY)}&x=1`)).toBe('?t=***&x=1');
    expect(secrets.text(`t=${encodeURIComponent(CANARY).replace(/%20/g, '+')}`)).toBe('t=***');
    expect(secrets.text(JSON.stringify({ echo: 'say "hi" \\ now' }))).toBe('{"echo":"***"}');
  });

  it('replaces base64 forms, also inside a longer base64 text at any alignment', () => {
    const secrets = secretsOf({ token: CANARY });
    const bytes = Buffer.from(CANARY);
    expect(secrets.text(bytes.toString('base64'))).toBe('***');
    expect(secrets.text(bytes.toString('base64url'))).not.toContain(bytes.toString('base64url').slice(2, 10));
    for (const prefix of ['', 'x', 'xy', 'xyz', '{"a":']) {
      const embedded = Buffer.from(`${prefix}${CANARY}"}`).toString('base64');
      expect(secrets.text(embedded)).toContain('***');
    }
  });

  it('catches HTTP basic auth: base64 of user:password', () => {
    const secrets = secretsOf({ username: 'alice', password: 'pa55word' });
    expect(secrets.text(`Basic ${Buffer.from('alice:pa55word').toString('base64')}`)).toBe('Basic ***');
  });

  it("adds a DSN's password on its own, decoded", () => {
    const secrets = secretsOf({ dsn: 'postgres://app:p%40ss%2Fword@db:5432/x' });
    expect(secrets.text('password authentication failed: p@ss/word')).toBe('password authentication failed: ***');
  });

  it('scrubs values and keys of a JSON document, leaving other values alone', () => {
    const secrets = secretsOf({ token: CANARY });
    expect(secrets.scrub({ [CANARY]: [CANARY, 1, true, null, { h: `Bearer ${CANARY}` }] })).toEqual({ '***': ['***', 1, true, null, { h: 'Bearer ***' }] });
  });

  it('leaves everything as it is when it holds no secret, and ignores values too short to mask', () => {
    const secrets = secretsOf({ password: 'ab' });
    const doc = { a: 'ab ab' };
    expect(secrets.size).toBe(0);
    expect(secrets.scrub(doc)).toBe(doc);
  });
});
