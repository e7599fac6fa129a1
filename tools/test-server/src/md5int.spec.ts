import { createHash } from 'node:crypto';
import { md5int, md5mod } from './md5int';

describe('md5int', () => {
  it('reads the MD5 digest as one unsigned big-endian 128-bit integer', () => {
    expect(md5int('')).toBe(0xd41d8cd98f00b204e9800998ecf8427en);
    expect(md5int('abc')).toBe(BigInt('0x900150983cd24fb0d6963f7d28e17f72'));
  });

  it('hashes the UTF-8 bytes of the text', () => {
    expect(md5int('é')).toBe(
      BigInt(
        '0x' +
          createHash('md5')
            .update(Buffer.from([0xc3, 0xa9]))
            .digest('hex'),
      ),
    );
  });

  it('keeps the full 128 bits when reducing modulo small numbers', () => {
    expect(md5mod('P-0001', 4)).toBe(Number(md5int('P-0001') % 4n));
    expect(md5mod('abc', 1000)).toBe(Number(0x900150983cd24fb0d6963f7d28e17f72n % 1000n));
  });
});
