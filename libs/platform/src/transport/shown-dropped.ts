/** A notification dropped for a missing field, as a log line shows it: the start of its JSON (it may be large, or anything at all). */
export function shownDropped(message: unknown): string {
  return (JSON.stringify(message) ?? String(message)).slice(0, 200);
}
