import { RateWindow } from './rate-window';

describe('RateWindow', () => {
  it('accepts up to the limit inside one second and does not record rejections', () => {
    const window = new RateWindow();
    expect(window.tryAcquire(2, 0)).toEqual({ accepted: true, inWindow: 1 });
    expect(window.tryAcquire(2, 100)).toEqual({ accepted: true, inWindow: 2 });
    expect(window.tryAcquire(2, 200)).toEqual({ accepted: false, inWindow: 2, oldestMs: 0 });
    expect(window.tryAcquire(2, 999)).toEqual({ accepted: false, inWindow: 2, oldestMs: 0 });
  });

  it('drops stamps that are one second old or older', () => {
    const window = new RateWindow();
    window.tryAcquire(1, 0);
    expect(window.tryAcquire(1, 999.9).accepted).toBe(false);
    expect(window.tryAcquire(1, 1000)).toEqual({ accepted: true, inWindow: 1 });
  });

  it('rejects everything when the limit is zero', () => {
    expect(new RateWindow().tryAcquire(0, 0)).toEqual({ accepted: false, inWindow: 0, oldestMs: undefined });
  });

  it('forgets every stamp on clear', () => {
    const window = new RateWindow();
    window.tryAcquire(1, 0);
    window.clear();
    expect(window.tryAcquire(1, 1).accepted).toBe(true);
  });
});
