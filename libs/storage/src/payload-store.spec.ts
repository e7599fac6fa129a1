import { sha256Hex } from '@noetl/event-kernel';
import { PayloadCorruptError, payloadRefOf, payloadSha, toBuffer, verifyPayload } from './payload-store';

describe('payload addressing', () => {
  it('addresses bytes by their sha256 and length', () => {
    const bytes = toBuffer('héllo');
    expect(payloadRefOf(bytes, 'text/plain')).toEqual({ sha256: sha256Hex('héllo'), media_type: 'text/plain', bytes: 6 });
  });

  it('views a Uint8Array slice without copying the rest of its buffer', () => {
    const whole = new Uint8Array([1, 2, 3, 4, 5]);
    expect([...toBuffer(whole.subarray(1, 3))]).toEqual([2, 3]);
  });

  it('accepts a ref or a bare digest and nothing else', () => {
    const sha = sha256Hex('x');
    expect(payloadSha(sha)).toBe(sha);
    expect(payloadSha({ sha256: sha, media_type: 'text/plain', bytes: 1 })).toBe(sha);
    expect(() => payloadSha('../../etc/passwd')).toThrow(/not a sha256 payload address/);
    expect(() => payloadSha(sha.toUpperCase())).toThrow(/not a sha256 payload address/);
  });

  it('refuses bytes that do not hash to their address', () => {
    expect(verifyPayload(sha256Hex('x'), Buffer.from('x')).toString()).toBe('x');
    expect(() => verifyPayload(sha256Hex('x'), Buffer.from('y'))).toThrow(PayloadCorruptError);
  });
});
