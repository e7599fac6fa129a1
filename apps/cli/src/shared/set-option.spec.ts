import { addSetPair } from './set-option';

const payloadOf = (...pairs: string[]) => pairs.reduce((payload, pair) => addSetPair(pair, payload), {});

describe('--set k=v', () => {
  it('parses values as JSON when they are JSON, else keeps the text', () => {
    expect(payloadOf('n=3', 'flag=true', 'none=null', 'list=[1,"a"]', 'obj={"a":1}', 'name=Ada', 'quoted="3"')).toEqual({
      n: 3,
      flag: true,
      none: null,
      list: [1, 'a'],
      obj: { a: 1 },
      name: 'Ada',
      quoted: '3',
    });
  });

  it('splits at the first = only, and allows an empty value', () => {
    expect(payloadOf('url=http://x/?a=b', 'empty=')).toEqual({ url: 'http://x/?a=b', empty: '' });
  });

  it('nests dotted keys and merges them with siblings', () => {
    expect(payloadOf('db.host=localhost', 'db.port=5432', 'db.opts.ssl=false')).toEqual({
      db: { host: 'localhost', port: 5432, opts: { ssl: false } },
    });
  });

  it('lets a later pair win, without changing the earlier payload', () => {
    const first = payloadOf('a.b=1');
    expect(addSetPair('a.b=2', first)).toEqual({ a: { b: 2 } });
    expect(first).toEqual({ a: { b: 1 } });
    expect(payloadOf('a.b=1', 'a=5')).toEqual({ a: 5 });
  });

  it('rejects malformed pairs with a message that names them', () => {
    expect(() => payloadOf('novalue')).toThrow('expected key=value, got "novalue"');
    expect(() => payloadOf('=1')).toThrow('expected key=value');
    expect(() => payloadOf('a..b=1')).toThrow('"a..b" has an empty segment');
    expect(() => payloadOf('a=1', 'a.b=2')).toThrow('"a.b" goes inside "a", which is already set to 1');
  });

  it('refuses keys that would reach an object prototype', () => {
    expect(() => payloadOf('__proto__.polluted=1')).toThrow('"__proto__" cannot be a key');
    expect(() => payloadOf('a.constructor.prototype=1')).toThrow('cannot be a key');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
