import type { EventOutputLine } from '@noetl/event-kernel';

/** How much of what user code printed a command's terminal event keeps: the last lines, bounded. */
export const OUTPUT_TAIL_LINES = 100;
const MAX_LINE_CHARS = 2000;
const MAX_TOTAL_CHARS = 32 * 1024;

/**
 * The last lines user code printed in one run of a command (python's print,
 * javascript's console), for its report: what `noetl logs` shows. Bounded,
 * so a step that prints without end costs the ledger a few kilobytes; what
 * came before the tail is counted in a line that says so.
 */
export class OutputTail {
  private readonly lines: EventOutputLine[] = [];
  private chars = 0;
  private dropped = 0;

  /** A chunk of one stream: whole lines, as the tools pass them on. */
  push(stream: EventOutputLine['stream'], text: string): void {
    for (const line of text.replace(/\n$/, '').split('\n')) {
      const kept =
        line.length > MAX_LINE_CHARS ? `${line.slice(0, MAX_LINE_CHARS)}… (${line.length - MAX_LINE_CHARS} more characters)` : line;
      this.lines.push({ stream, text: kept });
      this.chars += kept.length;
      while (this.lines.length > OUTPUT_TAIL_LINES || this.chars > MAX_TOTAL_CHARS) {
        this.chars -= this.lines.shift()!.text.length;
        this.dropped += 1;
      }
    }
  }

  /** The report's `output`, absent when nothing was printed. */
  report(): { output?: EventOutputLine[] } {
    if (this.lines.length === 0) return {};
    const cut: EventOutputLine[] = this.dropped > 0 ? [{ stream: 'stderr', text: `(${this.dropped} earlier line(s) not kept)` }] : [];
    return { output: [...cut, ...this.lines] };
  }
}
