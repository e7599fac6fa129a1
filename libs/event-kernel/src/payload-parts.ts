import { canonicalJson, sha256Hex } from './canonical-json';
import type { Json, PayloadRef } from './event-payloads';

/**
 * A list kept in pieces (DESIGN.md invariant 6, issue 23 item 6): a large
 * loop's collection, or a large loop's results, is never one value in the
 * payload store but a manifest of parts, so a reader takes only the parts it
 * needs (a frame its rows) and nothing holds the whole list unless a reader
 * asks for all of it. A part is stored elsewhere (`ref`: JSON holding a list,
 * or a frame's Arrow output whose rows' results are the items), inline
 * (`values`), or a run of nulls (the rows of a failed frame).
 */
export type ListPart = { ref: PayloadRef; items: number } | { values: Json[] } | { nulls: number };

/** A collection in parts: resolves to the concatenation of its parts. */
export const LIST_PARTS_MEDIA_TYPE = 'application/vnd.noetl.list-parts+json';

/** A loop step's result `{results, stats}` whose results are parts: resolves to that object with `results` concatenated. */
export const LOOP_RESULT_MEDIA_TYPE = 'application/vnd.noetl.loop-result+json';

export interface ListParts {
  items: number;
  parts: ListPart[];
}

export interface LoopResultParts extends ListParts {
  stats: { [key: string]: Json };
}

/** Whether a stored value is a list manifest (`LIST_PARTS_MEDIA_TYPE`), as `listParts` writes it. */
export function isListParts(value: unknown): value is ListParts {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const { items, parts } = value as { items?: unknown; parts?: unknown };
  return typeof items === 'number' && Array.isArray(parts) && parts.every(isListPart);
}

/** Whether a stored value is a loop result in parts (`LOOP_RESULT_MEDIA_TYPE`): a manifest with its stats. */
export function isLoopResultParts(value: unknown): value is LoopResultParts {
  const stats = isListParts(value) ? (value as { stats?: unknown }).stats : undefined;
  return typeof stats === 'object' && stats !== null && !Array.isArray(stats);
}

function isListPart(part: unknown): part is ListPart {
  if (typeof part !== 'object' || part === null) return false;
  if ('ref' in part) return typeof part.ref === 'object' && part.ref !== null && 'items' in part && typeof part.items === 'number';
  if ('values' in part) return Array.isArray(part.values);
  return 'nulls' in part && typeof part.nulls === 'number';
}

/** A payload a pure planner states; whoever appends its events stores the body first. */
export interface StagedPayload {
  ref: PayloadRef;
  body: string;
}

/** The ref and canonical body of a value, computed without storing it (the address is the content's sha256). */
export function stagedJson(value: Json | ListParts | LoopResultParts, mediaType: string): StagedPayload {
  const body = canonicalJson(value);
  return { ref: { sha256: sha256Hex(body), media_type: mediaType, bytes: Buffer.byteLength(body) }, body };
}

export function partItems(part: ListPart): number {
  if ('values' in part) return part.values.length;
  if ('nulls' in part) return part.nulls;
  return part.items;
}

/** Adjacent inline parts merged (into copies: `part` is not changed), so a manifest of many small frames stays short. */
export function appendPart(parts: ListPart[], part: ListPart): void {
  const last = parts.at(-1);
  if (last && 'nulls' in last && 'nulls' in part) last.nulls += part.nulls;
  else if (last && 'values' in last && 'values' in part) for (const value of part.values) last.values.push(value);
  else parts.push('values' in part ? { values: [...part.values] } : { ...part });
}
