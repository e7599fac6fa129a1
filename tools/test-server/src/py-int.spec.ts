import { parsePyInt } from './py-int';

describe('parsePyInt', () => {
  it.each([
    ['2', 2],
    [' 2 ', 2],
    ['+7', 7],
    ['-3', -3],
    ['007', 7],
    ['1_000', 1000],
  ])('reads %j as %d', (text, value) => {
    expect(parsePyInt(text)).toBe(value);
  });

  it.each(['', ' ', '2.0', '0x10', '1e3', 'abc', '1__0', '_1', '99999999999999999999'])('rejects %j', (text) => {
    expect(parsePyInt(text)).toBeUndefined();
  });
});
