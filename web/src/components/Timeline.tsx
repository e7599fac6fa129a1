import { useVirtualizer } from '@tanstack/react-virtual';
import { useMemo, useRef } from 'react';
import type { Schemas } from '../api/client';

type Bar = Schemas['TimelineBarDto'];
const ROW_PX = 20;

/** A bar as it was at the chosen event: open bars run to that event, and a worker shows once it had claimed. */
interface BarAt {
  bar: Bar;
  name: string;
  status: string;
  worker?: string;
  from: number;
  to: number;
}

function nameOf(bar: Bar): string {
  const index = bar.index !== undefined ? `[${bar.index}]` : '';
  if (bar.kind === 'command') return `${bar.step}${index} attempt ${bar.attempt}/${bar.max_attempts}`;
  if (bar.kind === 'frame') return `${bar.step} frame${index} attempt ${bar.attempt}`;
  if (bar.kind === 'retry') return `${bar.step} retry wait before attempt ${(bar.attempt ?? 0) + 1}`;
  return `${bar.step} wait`;
}

function openStatus(bar: Bar, claimed: boolean): string {
  if (bar.kind === 'retry' || bar.kind === 'wait') return 'WAITING';
  return claimed ? 'RUNNING' : 'ISSUED';
}

/** A bar with its times parsed once (a scrub redraws thousands of bars). */
interface ParsedBar {
  bar: Bar;
  name: string;
  begin: number;
  end?: number;
}

function parse(bars: Bar[]): ParsedBar[] {
  return bars.map((bar) => ({
    bar,
    name: nameOf(bar),
    begin: Date.parse(bar.begin.time),
    ...(bar.end ? { end: Date.parse(bar.end.time) } : {}),
  }));
}

function barsAt(parsed: ParsedBar[], position: number, until: string): { rows: BarAt[]; span: number } {
  // Bars are in the order they began: those shown are a prefix.
  const count = parsed.findIndex((p) => p.bar.begin.position > position);
  const shown = count === -1 ? parsed : parsed.slice(0, count);
  const end = Date.parse(until);
  const start = shown[0]?.begin ?? end;
  const rows = shown.map(({ bar, name, begin, end: ended_at }): BarAt => {
    const ended = bar.end !== undefined && bar.end.position <= position;
    const claimed = bar.claimed !== undefined && bar.claimed.position <= position;
    return {
      bar,
      name,
      status: ended ? (bar.status ?? 'ENDED') : openStatus(bar, claimed),
      ...(claimed && bar.worker_id ? { worker: bar.worker_id } : {}),
      from: begin - start,
      to: (ended ? ended_at! : end) - start,
    };
  });
  return { rows, span: Math.max(end - start, 1) };
}

/**
 * A Gantt of the commands, loop frames (one bar per attempt), retry delays
 * and waits at the chosen event, with the worker of each. Rows are
 * virtualised (@tanstack/react-virtual): a loop of thousands of frames draws
 * only the rows in view. A bar is two numbers, so it is a positioned span,
 * not a chart library's series.
 */
export function Timeline({ bars, position, until }: { bars: Bar[]; position: number; until: string }) {
  const scroller = useRef<HTMLDivElement>(null);
  const parsed = useMemo(() => parse(bars), [bars]);
  const { rows, span } = barsAt(parsed, position, until);
  const rowsInView = useVirtualizer({
    count: rows.length,
    getScrollElement: () => scroller.current,
    estimateSize: () => ROW_PX,
    overscan: 10,
  });
  if (rows.length === 0) return <p>No commands yet.</p>;
  const counts = (kind: Bar['kind']) => rows.filter((r) => r.bar.kind === kind).length;
  return (
    <>
      <p className="timeline-summary">
        {counts('command')} commands, {counts('frame')} frame attempts, {counts('retry')} retries, {counts('wait')} waits
      </p>
      <div className="timeline-scroll" ref={scroller}>
        <ol className="timeline" aria-label="Timeline" style={{ height: rowsInView.getTotalSize() }}>
          {rowsInView.getVirtualItems().map((item) => {
            const row = rows[item.index]!;
            return (
              <li key={`${row.bar.kind}-${row.bar.id}`} style={{ transform: `translateY(${item.start}px)` }}>
                <span className="label">{row.name}</span>
                <span className="track">
                  <span
                    className={`bar kind-${row.bar.kind} status-${row.status}`}
                    style={{ left: `${(row.from / span) * 100}%`, width: `${Math.max(((row.to - row.from) / span) * 100, 0.5)}%` }}
                    title={`${row.name}: ${row.status}, ${row.to - row.from} ms on ${row.worker ?? 'no worker yet'}`}
                  />
                </span>
                <span className="worker">
                  {row.status} {row.worker ?? ''}
                </span>
              </li>
            );
          })}
        </ol>
      </div>
    </>
  );
}
