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
    const secrets = secretsOf({
      db_host: 'db.internal',
      db_port: '5432',
      db_user: 'etl',
      db_name: 'warehouse',
      db_password: 'hunter22',
      api: { key: 'k-998877' },
    });
    expect(secrets.text('etl@db.internal:5432/warehouse with hunter22 and k-998877')).toBe(
      'etl@db.internal:5432/warehouse with *** and ***',
    );
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
    // A multi-host DSN (issue 29), which WHATWG URL refuses.
    const multi = secretsOf({ dsn: 'postgres://app:p%40ss%2Fword2@h1:5432,h2:5432/x?target_session_attrs=read-write' });
    expect(multi.text('password authentication failed: p@ss/word2')).toBe('password authentication failed: ***');
  });

  it('scrubs values and keys of a JSON document, leaving other values alone', () => {
    const secrets = secretsOf({ token: CANARY });
    expect(secrets.scrub({ [CANARY]: [CANARY, 1, true, null, { h: `Bearer ${CANARY}` }] })).toEqual({
      '***': ['***', 1, true, null, { h: 'Bearer ***' }],
    });
  });

  it('treats numbers in credential data as secrets, as text and as numbers, but not booleans', () => {
    const secrets = secretsOf({ token: 987654321987, pin: 48151623, verify_ssl: true, port: 5432 });
    expect(secrets.scrub({ echo: 987654321987, text: 'pin 48151623', other: 42, flag: true, port: 5432 })).toEqual({
      echo: '***',
      text: 'pin ***',
      other: 42,
      flag: true,
      port: 5432,
    });
    expect(secrets.text('true 5432')).toBe('true 5432');
  });

  it('replaces the JSON form that escapes every non-ASCII character, as Python writes it', () => {
    const secrets = secretsOf({ password: 'Päss-wörd-😀' });
    const pythonJson = '{"p": "P\\u00e4ss-w\\u00f6rd-\\ud83d\\ude00"}';
    expect(secrets.text(pythonJson)).toBe('{"p": "***"}');
    // Upper-case hex digits, as other encoders write them.
    expect(secrets.text('"P\\u00E4ss-w\\u00F6rd-\\uD83D\\uDE00"')).toBe('"***"');
  });

  it('matches a secret of 8 characters or more in any case, a shorter one only as written', () => {
    const secrets = secretsOf({ token: 'hunter2-PASS', short: 'aBc1' });
    expect(secrets.text('HUNTER2-pass and Hunter2-Pass')).toBe('*** and ***');
    expect(secrets.text('aBc1 ABC1 abc1')).toBe('*** ABC1 abc1');
  });

  it('leaves everything as it is when it holds no secret, and ignores values too short to mask', () => {
    const secrets = secretsOf({ password: 'ab' });
    const doc = { a: 'ab ab' };
    expect(secrets.size).toBe(0);
    expect(secrets.scrub(doc)).toBe(doc);
  });
});
