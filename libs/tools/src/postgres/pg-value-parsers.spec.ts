import { int8Value, numericValue, resultTypes, timestamptzValue, timestampValue } from './pg-value-parsers';

describe('result value parsers', () => {
  it('returns int8 as a number when it is a safe integer, else as a string', () => {
    expect(int8Value('42')).toBe(42);
    expect(int8Value('-9007199254740991')).toBe(-9007199254740991);
    expect(int8Value('9007199254740993')).toBe('9007199254740993');
  });

  it('returns numeric as a number up to 15 significant digits, else as a string', () => {
    expect(numericValue('12.50')).toBe(12.5);
    expect(numericValue('0.000')).toBe(0);
    expect(numericValue('-0.1')).toBe(-0.1);
    expect(numericValue('123456789012345')).toBe(123456789012345);
    expect(numericValue('1234567890123456')).toBe('1234567890123456');
    expect(numericValue('12345678901234567890.123')).toBe('12345678901234567890.123');
    expect(numericValue('NaN')).toBe('NaN');
  });

  it('keeps timestamps as ISO text and turns timestamptz into UTC', () => {
    expect(timestampValue('2025-01-02 03:04:05.123456')).toBe('2025-01-02T03:04:05.123456');
    expect(timestamptzValue('2025-01-02 03:04:05.123+00')).toBe('2025-01-02T03:04:05.123Z');
    expect(timestamptzValue('2025-01-02 03:04:05+05:30')).toBe('2025-01-01T21:34:05.000Z');
    expect(timestamptzValue('infinity')).toBe('infinity');
  });

  it('parses arrays element by element and leaves other types to pg', () => {
    expect(resultTypes.getTypeParser(1016, 'text')('{1,NULL,9007199254740993}')).toEqual([1, null, '9007199254740993']);
    expect(resultTypes.getTypeParser(1231, 'text')('{{1.5,2},{3,4}}')).toEqual([
      [1.5, 2],
      [3, 4],
    ]);
    expect(resultTypes.getTypeParser(1082, 'text')('2025-03-04')).toBe('2025-03-04');
    expect(resultTypes.getTypeParser(3802, 'text')('{"a":[1]}')).toEqual({ a: [1] });
    expect(resultTypes.getTypeParser(23, 'text')('7')).toBe(7);
  });
});
