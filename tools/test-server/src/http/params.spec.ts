import { HttpError } from './http-error';
import { floatParam, intParam, optionalStrParam, readParams, requiredStrParam, strParam, type ParamSchema } from './params';

const from = (query: Record<string, string>) => (name: string) => query[name];
const read = <S extends ParamSchema>(schema: S, query: Record<string, string>) => readParams({ schema, lookup: from(query) });

function issuesOf(run: () => unknown): { type: string; loc: string[] }[] {
  try {
    run();
  } catch (error) {
    if (error instanceof HttpError && error.status === 422) return (error.body as { detail: { type: string; loc: string[] }[] }).detail;
    throw error;
  }
  throw new Error('expected a 422');
}

describe('FastAPI-like parameter validation', () => {
  it('applies defaults for absent values and passes strings through, empty included', () => {
    expect(
      read(
        { page: intParam({ default: 1 }), label: strParam('probe'), fail_on: strParam('x'), cursor: optionalStrParam() },
        { fail_on: '' },
      ),
    ).toEqual({
      page: 1,
      label: 'probe',
      fail_on: '',
      cursor: undefined,
    });
  });

  it('accepts base-10 integers only', () => {
    const schema = { page: intParam({ default: 1 }) };
    expect(read(schema, { page: '42' }).page).toBe(42);
    expect(read(schema, { page: '-3' }).page).toBe(-3);
    expect(read(schema, { page: ' +7 ' }).page).toBe(7);
    for (const bad of ['2.0', '', 'abc', '0x10', '1e3', '1_000', '99999999999999999999']) {
      expect(issuesOf(() => read(schema, { page: bad }))).toEqual([
        expect.objectContaining({ type: 'int_parsing', loc: ['query', 'page'] }),
      ]);
    }
  });

  it('accepts integers and decimals as floats, finite only', () => {
    const schema = { d: floatParam({ default: 0 }) };
    expect(read(schema, { d: '1' }).d).toBe(1);
    expect(read(schema, { d: '0.25' }).d).toBe(0.25);
    expect(read(schema, { d: '.5' }).d).toBe(0.5);
    expect(read(schema, { d: '2e-1' }).d).toBe(0.2);
    expect(issuesOf(() => read(schema, { d: 'abc' }))[0]?.type).toBe('float_parsing');
    expect(issuesOf(() => read(schema, { d: '1e999' }))[0]?.type).toBe('finite_number');
  });

  it('enforces ge and le bounds', () => {
    const schema = { page: intParam({ default: 1, ge: 1 }), d: floatParam({ default: 0, ge: 0, le: 300 }) };
    expect(read(schema, { page: '1', d: '300' })).toEqual({ page: 1, d: 300 });
    expect(issuesOf(() => read(schema, { page: '0', d: '300.5' })).map((i) => i.type)).toEqual(['greater_than_equal', 'less_than_equal']);
  });

  it('reports a missing required value and lists every issue, path first', () => {
    const issues = issuesOf(() =>
      readParams(
        { schema: { patientId: requiredStrParam(), page: intParam({ default: 1 }) }, lookup: from({ page: 'x' }) },
        { schema: { record_id: intParam() }, lookup: from({ record_id: 'abc' }) },
      ),
    );
    expect(issues.map((i) => [i.type, ...i.loc])).toEqual([
      ['int_parsing', 'path', 'record_id'],
      ['missing', 'query', 'patientId'],
      ['int_parsing', 'query', 'page'],
    ]);
  });
});
