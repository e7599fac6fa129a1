/**
 * The budget of the render in progress (see template-limits.ts). The
 * compiled template, the sandbox runtime, the filters and the Python value
 * helpers all charge it, so it is held as the render's dynamic scope rather
 * than passed through every one of their signatures: a render is synchronous
 * and never starts another, so exactly one budget is current while template
 * code runs, and `withBudget` restores the previous one when it ends.
 */
import { DEFAULT_TEMPLATE_LIMITS, type TemplateLimits } from './template-limits';

/** A render went over one of its limits. */
export class BudgetExceeded extends Error {
  constructor(
    what: string,
    readonly limit: keyof TemplateLimits,
    value: number,
  ) {
    super(`over budget: ${what} (limit ${value}, ${limit})`);
    this.name = 'BudgetExceeded';
  }
}

/**
 * An inline render ran out of its slice of time (see render-slice.ts). A
 * BudgetExceeded, so that what lets a budget error through (tojson's
 * replacer, say) lets it through too.
 */
export class SliceSpent extends BudgetExceeded {
  constructor(ms: number) {
    super(`more than ${ms} ms on the event loop`, 'maxWork', ms);
    this.name = 'SliceSpent';
  }
}

/** The time a render may take, read on `clock` (milliseconds). */
export interface RenderDeadline {
  clock: () => number;
  ms: number;
}

/**
 * Charges between two readings of a deadline's clock: each charge is an
 * operation (an iteration, a list built), so about a millisecond. The clock
 * is first read at the first of them, not when the render starts: nearly
 * every render ends before, and never reads it.
 */
const CHARGES_PER_CLOCK_READING = 1024;

export class RenderBudget {
  private loopIterations = 0;
  private work = 0;
  private charges = 0;
  private endsAt = Infinity;

  /** `metered: false` checks sizes only (for helpers called outside a render); a `deadline` ends the render with SliceSpent. */
  constructor(
    readonly limits: Readonly<TemplateLimits>,
    private readonly metered = true,
    private readonly deadline?: RenderDeadline,
  ) {}

  /** One iteration of a `{% for %}` loop is about to run. */
  loopIteration(): void {
    if (!this.metered) return;
    this.loopIterations += 1;
    if (this.loopIterations > this.limits.maxLoopIterations) {
      throw new BudgetExceeded(
        `more than ${this.limits.maxLoopIterations} loop iterations`,
        'maxLoopIterations',
        this.limits.maxLoopIterations,
      );
    }
    this.charge(1);
  }

  /** `units` of work (items or characters walked, values compared) are about to be done. */
  charge(units: number): void {
    if (!this.metered) return;
    this.work += units;
    if (this.work > this.limits.maxWork) {
      throw new BudgetExceeded('the template does too much work', 'maxWork', this.limits.maxWork);
    }
    if (this.deadline && ++this.charges % CHARGES_PER_CLOCK_READING === 0) this.checkDeadline(this.deadline);
  }

  private checkDeadline(deadline: RenderDeadline): void {
    const now = deadline.clock();
    if (this.endsAt === Infinity) this.endsAt = now + deadline.ms;
    else if (now > this.endsAt) throw new SliceSpent(deadline.ms);
  }

  /** A list of `length` items is about to be built. */
  list(length: number): void {
    if (length > this.limits.maxListLength) {
      throw new BudgetExceeded(`a list of ${length} items is too long`, 'maxListLength', this.limits.maxListLength);
    }
    this.charge(length);
  }

  /** `range()` is about to produce `count` items. */
  range(count: number): void {
    if (count > this.limits.maxRangeSize) {
      throw new BudgetExceeded(`range() of ${count} items is too large`, 'maxRangeSize', this.limits.maxRangeSize);
    }
    this.list(count);
  }

  /** A string of `length` characters was joined from others (V8 joins strings without copying them). */
  joinedString(length: number): void {
    if (length > this.limits.maxStringLength) {
      throw new BudgetExceeded(`a string of ${length} characters is too long`, 'maxStringLength', this.limits.maxStringLength);
    }
  }

  /** A string of `length` characters is about to be built by copying characters. */
  copiedString(length: number): void {
    this.joinedString(length);
    this.charge(length);
  }

  /** The render's output has grown to `length` characters. */
  output(length: number): void {
    if (length > this.limits.maxOutputLength) {
      throw new BudgetExceeded(`the output of ${length} characters is too long`, 'maxOutputLength', this.limits.maxOutputLength);
    }
  }
}

const UNMETERED = new RenderBudget(DEFAULT_TEMPLATE_LIMITS, false);
let current: RenderBudget = UNMETERED;

/** Runs `render` with `budget` current. */
export function withBudget<T>(budget: RenderBudget, render: () => T): T {
  const outer = current;
  current = budget;
  try {
    return render();
  } finally {
    current = outer;
  }
}

/** The budget of the render in progress; outside a render, one that checks sizes with the default limits. */
export function renderBudget(): RenderBudget {
  return current;
}
