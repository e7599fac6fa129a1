// Loaded with `node -r` into a worker by the worker-clock-skew scenario
// only: the process's wall clock (Date) runs CHAOS_CLOCK_SKEW_MS off the
// machine's, as on a host whose NTP failed. Monotonic timers are untouched.
const skew = Number(process.env.CHAOS_CLOCK_SKEW_MS || 0);
const RealDate = Date;
class SkewedDate extends RealDate {
  constructor(...args) {
    if (args.length === 0) super(RealDate.now() + skew);
    else super(...args);
  }
  static now() {
    return RealDate.now() + skew;
  }
}
globalThis.Date = SkewedDate;
