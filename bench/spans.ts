import { STEP_SPANS, type RuntimeMetrics, type StepSpan } from '@noetl/runtime';

/** Per span: how many were observed and their total seconds. */
export type SpanTotals = Record<StepSpan, { count: number; seconds: number }>;

/** What `noetl_step_span_seconds` has observed so far in this process. */
export async function spanTotals(metrics: RuntimeMetrics): Promise<SpanTotals> {
  const { values } = await metrics.stepSpan.get();
  const totals = Object.fromEntries(STEP_SPANS.map((span) => [span, { count: 0, seconds: 0 }])) as SpanTotals;
  for (const value of values) {
    const span = value.labels['span'] as StepSpan | undefined;
    if (!span || !(span in totals)) continue;
    if (value.metricName === 'noetl_step_span_seconds_sum') totals[span].seconds += value.value;
    if (value.metricName === 'noetl_step_span_seconds_count') totals[span].count += value.value;
  }
  return totals;
}

/** Per span, between two readings: spans per `unit` and milliseconds per `unit` (a step, a frame). */
export interface SpanBreakdown {
  span: StepSpan;
  per_unit: number;
  ms_per_unit: number;
}

export function spanBreakdown(before: SpanTotals, after: SpanTotals, units: number): SpanBreakdown[] {
  const round = (value: number): number => Math.round(value * 100) / 100;
  return STEP_SPANS.map((span) => ({
    span,
    per_unit: round((after[span].count - before[span].count) / Math.max(1, units)),
    ms_per_unit: round(((after[span].seconds - before[span].seconds) * 1000) / Math.max(1, units)),
  }));
}

/** A markdown table of breakdowns side by side, one column per named reading. */
export function spanTable(unit: string, columns: { name: string; breakdown: SpanBreakdown[] }[]): string {
  return [
    `| span (ms / ${unit}, spans / ${unit}) | ${columns.map((c) => c.name).join(' | ')} |`,
    `| --- | ${columns.map(() => '---').join(' | ')} |`,
    ...STEP_SPANS.map(
      (span) =>
        `| ${span} | ${columns
          .map((c) => {
            const row = c.breakdown.find((b) => b.span === span);
            return row ? `${row.ms_per_unit} (${row.per_unit})` : '-';
          })
          .join(' | ')} |`,
    ),
  ].join('\n');
}
