import { jsonValue, shapePostgresResult, shapeStatementResult } from './shape-pg-result';

describe('shapeStatementResult', () => {
  it('returns rows when the statement described fields, whatever it was', () => {
    expect(shapeStatementResult({ fields: [{ name: 'id' }], rows: [{ id: 1 }], rowCount: 1 })).toEqual({
      rows: [{ id: 1 }],
      row_count: 1,
      columns: ['id'],
    });
    expect(shapeStatementResult({ fields: [{ name: 'id' }], rows: [], rowCount: 0 })).toEqual({ rows: [], row_count: 0, columns: ['id'] });
  });

  it('returns affected rows and no rows for DML and DDL', () => {
    expect(shapeStatementResult({ fields: [], rows: [], rowCount: 3 })).toEqual({ rows: [], row_count: 3, columns: [] });
    expect(shapeStatementResult({ fields: [], rows: [], rowCount: null })).toEqual({ rows: [], row_count: 0, columns: [] });
  });

  it('turns leftover dates and buffers into JSON values', () => {
    const row = { d: [new Date('2025-01-02T00:00:00Z')], b: Buffer.from([0xde, 0xad]) };
    expect(shapeStatementResult({ fields: [{ name: 'd' }, { name: 'b' }], rows: [row] }).rows).toEqual([
      { d: ['2025-01-02T00:00:00.000Z'], b: '\\xdead' },
    ]);
    expect(jsonValue(BigInt(5))).toBe(5);
    expect(jsonValue(BigInt('9007199254740993'))).toBe('9007199254740993');
  });
});

describe('shapePostgresResult', () => {
  it('puts the last statement at top level and every statement under command_<i>', () => {
    const insert = { rows: [], row_count: 2, columns: [] };
    const select = { rows: [{ n: 2 }], row_count: 1, columns: ['n'] };
    expect(shapePostgresResult([insert, select])).toEqual({
      status: 'success',
      statement_count: 2,
      rows: [{ n: 2 }],
      row_count: 1,
      columns: ['n'],
      command_0: insert,
      command_1: select,
    });
  });

  it('gives an empty rowset for no statements', () => {
    expect(shapePostgresResult([])).toEqual({ status: 'success', statement_count: 0, rows: [], row_count: 0, columns: [] });
  });
});
