import { tableSinkStatement } from './table-sink-statement';

const populate = (target: string, list: string) =>
  `INSERT INTO ${target} (${list}) SELECT ${list} FROM jsonb_populate_recordset(NULL::${target}, $1::jsonb)`;

describe('tableSinkStatement', () => {
  it('inserts a row as one JSON parameter typed by the table, with quoted identifiers', () => {
    const row = { id: 1, name: 'a', tags: ['x'], meta: { k: 1 }, gone: undefined, none: null, ok: true };
    expect(tableSinkStatement('public.raw_events', [row], 'insert')).toEqual({
      command: populate('"public"."raw_events"', '"id", "name", "tags", "meta", "gone", "none", "ok"'),
      params: ['[{"id":1,"name":"a","tags":["x"],"meta":{"k":1},"none":null,"ok":true}]'],
    });
  });

  it('inserts many rows in one statement; columns are every key in the order first seen', () => {
    expect(tableSinkStatement('t', [{ a: 1 }, { b: 2, a: 3 }], 'insert')).toEqual({
      command: populate('"t"', '"a", "b"'),
      params: ['[{"a":1},{"b":2,"a":3}]'],
    });
  });

  it('upserts: ON CONFLICT on the key, updating every other column, the last of equal keys kept', () => {
    const rows = [
      { id: 1, day: 'mon', total: 5 },
      { id: 2, day: 'mon', total: 6 },
      { id: 1, day: 'mon', total: 7 },
    ];
    expect(tableSinkStatement('t', rows, 'upsert', ['id', 'day'])).toEqual({
      command: `${populate('"t"', '"id", "day", "total"')} ON CONFLICT ("id", "day") DO UPDATE SET "total" = EXCLUDED."total"`,
      params: ['[{"id":2,"day":"mon","total":6},{"id":1,"day":"mon","total":7}]'],
    });
  });

  it('does nothing on conflict when every column is a key', () => {
    expect(tableSinkStatement('t', [{ id: 1 }], 'upsert', ['id'])).toEqual({
      command: `${populate('"t"', '"id"')} ON CONFLICT ("id") DO NOTHING`,
      params: ['[{"id":1}]'],
    });
  });

  it('writes bigints as text', () => {
    expect(tableSinkStatement('t', [{ n: BigInt(10) }], 'insert')).toMatchObject({ params: ['[{"n":"10"}]'] });
  });

  it.each([
    ['a table with a quote', 't"; drop table x; --', [{ a: 1 }], 'insert', []],
    ['three-part table', 'a.b.c', [{ a: 1 }], 'insert', []],
    ['an empty table part', 'public.', [{ a: 1 }], 'insert', []],
    ['a column with a space', 't', [{ 'bad col': 1 }], 'insert', []],
    ['a column starting with a digit', 't', [{ '1a': 1 }], 'insert', []],
    ['a bad key', 't', [{ a: 1 }], 'upsert', ['a;']],
    ['an upsert without key', 't', [{ a: 1 }], 'upsert', []],
    ['an upsert row without its key', 't', [{ id: 1, a: 1 }, { a: 2 }], 'upsert', ['id']],
    ['a row that is not a mapping', 't', [1, 2], 'insert', []],
    ['an empty row', 't', [{}], 'insert', []],
  ] as const)('refuses %s', (_name, table, rows, mode, key) => {
    expect(typeof tableSinkStatement(table, rows, mode, key)).toBe('string');
  });
});
