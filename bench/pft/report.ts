import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { spanTable, type SpanBreakdown } from '../spans';

export interface VariantResult {
  variant: string;
  /** Rows per frame; null for the plain script. */
  max_rows: number | null;
  execution_id: string | null;
  wall_ms: number;
  /** Every request the mock answered, 429s included. */
  http_requests: number;
  http_rate_limited: number;
  rows_saved: number;
  events_total: number;
  events_by_type: Record<string, number>;
  events_per_request: number | null;
  /** `frame.dispatched` events: one per frame claim, a re-claim after a lost lease included. */
  frame_claims: number | null;
  peak_rss_mb: number;
  /** Where a frame's time went (engine variants): `noetl_step_span_seconds` per frame claim. */
  spans_per_frame?: SpanBreakdown[];
  /** The engine's database round trips per frame claim (every transaction and statement of the process). */
  round_trips_per_frame?: { transactions: number; statements: number };
  /** Why the variant does not count (wrong row count, failed execution). */
  failure?: string;
}

export interface PftReport {
  benchmark: 'pft-lite';
  date: string;
  database: 'DATABASE_URL' | 'embedded';
  node: string;
  scale: { facilities: number; patients: number; concurrency: number; rows_per_page: number; rate_limit: number | null };
  expected: { http_requests: number; rows: number };
  variants: VariantResult[];
  /** Each engine variant over the plain script. */
  ratios: { variant: string; wall: number; peak_rss: number }[];
}

export const round = (value: number, digits = 2): number => Math.round(value * 10 ** digits) / 10 ** digits;

export function ratiosOf(variants: VariantResult[]): PftReport['ratios'] {
  const plain = variants.find((v) => v.max_rows === null);
  if (!plain) return [];
  return variants
    .filter((v) => v.max_rows !== null)
    .map((v) => ({ variant: v.variant, wall: round(v.wall_ms / plain.wall_ms), peak_rss: round(v.peak_rss_mb / plain.peak_rss_mb) }));
}

export function markdownOf(report: PftReport): string {
  const { scale, expected } = report;
  const dash = (value: number | null): string => (value === null ? '-' : String(value));
  const types = [...new Set(report.variants.flatMap((v) => Object.keys(v.events_by_type)))].sort();
  const engines = report.variants.filter((v) => v.max_rows !== null);
  return [
    `PFT-lite: ${scale.facilities} facilities x ${scale.patients} patients x 5 domains, ${scale.rows_per_page} rows per page, ` +
      `concurrency ${scale.concurrency}, rate limit ${scale.rate_limit ?? 'off'}; expected ${expected.http_requests} requests, ${expected.rows} rows ` +
      `(${report.database} database, node ${report.node}, ${report.date})`,
    '',
    '| variant | wall s | HTTP requests | rows saved | events | events / request | frame claims | peak RSS MB |',
    '| --- | --- | --- | --- | --- | --- | --- | --- |',
    ...report.variants.map(
      (v) =>
        `| ${v.variant}${v.failure ? ' (FAILED)' : ''} | ${round(v.wall_ms / 1000, 1)} | ${v.http_requests}${v.http_rate_limited ? ` (${v.http_rate_limited} x 429)` : ''} | ` +
        `${v.rows_saved} | ${v.events_total} | ${dash(v.events_per_request)} | ${dash(v.frame_claims)} | ${v.peak_rss_mb} |`,
    ),
    '',
    '| engine / plain | wall | peak RSS |',
    '| --- | --- | --- |',
    ...report.ratios.map((r) => `| ${r.variant} | ${r.wall} | ${r.peak_rss} |`),
    '',
    spanTable(
      'frame',
      engines.flatMap((v) => (v.spans_per_frame ? [{ name: v.variant, breakdown: v.spans_per_frame }] : [])),
    ),
    `| transactions / frame | ${engines.map((v) => dash(v.round_trips_per_frame?.transactions ?? null)).join(' | ')} |`,
    `| statements / frame | ${engines.map((v) => dash(v.round_trips_per_frame?.statements ?? null)).join(' | ')} |`,
    '',
    `| event type | ${engines.map((v) => v.variant).join(' | ')} |`,
    `| --- | ${engines.map(() => '---').join(' | ')} |`,
    ...types.map((type) => `| ${type} | ${engines.map((v) => v.events_by_type[type] ?? 0).join(' | ')} |`),
    ...report.variants.filter((v) => v.failure).map((v) => `\n${v.variant} FAILED: ${v.failure}`),
  ].join('\n');
}

/** Writes `<name>.json` and `<name>.md` under `dir`; returns the markdown. */
export async function writeReport(dir: string, name: string, report: PftReport): Promise<string> {
  const markdown = markdownOf(report);
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, `${name}.json`), `${JSON.stringify(report, null, 2)}\n`);
  await writeFile(join(dir, `${name}.md`), `${markdown}\n`);
  return markdown;
}
