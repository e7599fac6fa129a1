import { createHash } from 'node:crypto';
import { detPayload } from './det-payload';

describe('detPayload', () => {
  it('matches the check value of TEST_SERVER.md §8', () => {
    const payload = detPayload(1, 'item-1');
    expect(payload.startsWith('59908df50572502ceeab')).toBe(true);
    expect(payload).toHaveLength(1024);
  });

  it('repeats the hex SHA-256 of the seed and cuts it to kb * 1024 characters', () => {
    const block = createHash('sha256').update('item-7').digest('hex');
    const payload = detPayload(3, 'item-7');
    expect(payload).toHaveLength(3072);
    expect(payload).toBe(block.repeat(48));
    expect(detPayload(1, 'item-7')).toBe(block.repeat(16));
  });

  it('is empty when the size is zero or negative', () => {
    expect(detPayload(0, 'item-1')).toBe('');
    expect(detPayload(-2, 'item-1')).toBe('');
  });
});
