import { tableSinkStatement } from './table-sink-statement';

describe('tableSinkStatement', () => {
  it('inserts one row with quoted identifiers and positional params', () => {
    expect(tableSinkStatement('public.raw_events', { id: 1, name: 'a', tags: ['x'], meta: { k: 1 }, gone: undefined, none: null, ok: true }, 'insert')).toEqual({
      command: 'INSERT INTO "public"."raw_events" ("id", "name", "tags", "meta", "gone", "none", "ok") VALUES ($1, $2, $3, $4, $5, $6, $7)',
      params: [1, 'a', '["x"]', '{"k":1}', null, null, true],
    });
  });

  it('upserts: ON CONFLICT on the key, updating every other column', () => {
    expect(tableSinkStatement('t', { id: 1, day: 'mon', total: 5, note: 'n' }, 'upsert', ['id', 'day'])).toEqual({
      command:
        'INSERT INTO "t" ("id", "day", "total", "note") VALUES ($1, $2, $3, $4) ON CONFLICT ("id", "day") DO UPDATE SET "total" = EXCLUDED."total", "note" = EXCLUDED."note"',
      params: [1, 'mon', 5, 'n'],
    });
  });

  it('does nothing on conflict when every column is a key', () => {
    expect(tableSinkStatement('t', { id: 1 }, 'upsert', ['id'])).toEqual({
      command: 'INSERT INTO "t" ("id") VALUES ($1) ON CONFLICT ("id") DO NOTHING',
      params: [1],
    });
  });

  it('writes bigints as text', () => {
    expect(tableSinkStatement('t', { n: BigInt(10) }, 'insert')).toMatchObject({ params: ['10'] });
  });

  it.each([
    ['a table with a quote', 't"; drop table x; --', { a: 1 }, 'insert', []],
    ['three-part table', 'a.b.c', { a: 1 }, 'insert', []],
    ['an empty table part', 'public.', { a: 1 }, 'insert', []],
    ['a column with a space', 't', { 'bad col': 1 }, 'insert', []],
    ['a column starting with a digit', 't', { '1a': 1 }, 'insert', []],
    ['a bad key', 't', { a: 1 }, 'upsert', ['a;']],
    ['an upsert without key', 't', { a: 1 }, 'upsert', []],
    ['a row that is not a mapping', 't', [1, 2], 'insert', []],
    ['an empty row', 't', {}, 'insert', []],
  ] as const)('refuses %s', (_name, table, row, mode, key) => {
    expect(typeof tableSinkStatement(table, row, mode, key)).toBe('string');
  });
});
