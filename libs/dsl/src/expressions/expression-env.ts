/** What the expression engine needs from the outside world: a clock and an id source. */
export interface ExpressionEnv {
  /** The clock behind `now()`. */
  now: () => Date;
  /** The id source behind `uuid()`. */
  uuid: () => string;
}
