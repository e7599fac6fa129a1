import { decodeCursorPage, encodeCursor } from './cursor';

describe('events cursor', () => {
  it('encodes the next page as padded standard base64 of its decimal string', () => {
    expect([2, 3, 4, 10].map(encodeCursor)).toEqual(['Mg==', 'Mw==', 'NA==', 'MTA=']);
  });

  it('treats an absent or empty cursor as page 1', () => {
    expect(decodeCursorPage(undefined)).toBe(1);
    expect(decodeCursorPage('')).toBe(1);
  });

  it('decodes base64 text holding an integer', () => {
    expect(decodeCursorPage('Mg==')).toBe(2);
    expect(decodeCursorPage('NA==')).toBe(4);
    expect(decodeCursorPage('MTA=')).toBe(10);
    expect(decodeCursorPage('IDIg')).toBe(2); // " 2 "
    expect(decodeCursorPage('MV8w')).toBe(10); // "1_0"
  });

  it('skips characters outside the alphabet and stops at completing padding, like Python', () => {
    expect(decodeCursorPage('M!g==')).toBe(2);
    expect(decodeCursorPage('=Mg==')).toBe(2);
    expect(decodeCursorPage('Mg===')).toBe(2);
    expect(decodeCursorPage('Mg==Mw==')).toBe(2);
  });

  it('falls back to page 1 when anything fails', () => {
    expect(decodeCursorPage('Mg')).toBe(1); // incorrect padding
    expect(decodeCursorPage('Mg=')).toBe(1);
    expect(decodeCursorPage('M')).toBe(1);
    expect(decodeCursorPage('YWJj')).toBe(1); // "abc"
    expect(decodeCursorPage('Mi4w')).toBe(1); // "2.0"
    expect(decodeCursorPage('/w==')).toBe(1); // invalid UTF-8
    expect(decodeCursorPage('!!!')).toBe(1);
  });
});
