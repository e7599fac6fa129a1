import { parsePyInt } from './py-int';

const BASE64_DATA = /^[A-Za-z0-9+/]$/;

/**
 * Decodes an `/events` cursor into a page number (TEST_SERVER.md §5): base64,
 * then UTF-8 text, then an integer. Absent, empty or undecodable means page 1.
 */
export function decodeCursorPage(cursor: string | undefined): number {
  if (!cursor) return 1;
  const text = lenientBase64Text(cursor);
  if (text === undefined) return 1;
  return parsePyInt(text) ?? 1;
}

/** The standard, padded base64 of the decimal string of `page`. */
export function encodeCursor(page: number): string {
  return Buffer.from(String(page), 'utf8').toString('base64');
}

/**
 * Python's non-strict `base64.b64decode` followed by a strict UTF-8 decode:
 * characters outside the alphabet are skipped, a pad that completes a quantum
 * ends the input, and an incomplete final quantum is an error (`undefined`).
 */
function lenientBase64Text(cursor: string): string | undefined {
  let data = '';
  let pads = 0;
  for (const ch of cursor) {
    if (ch === '=') {
      const quadPos = data.length % 4;
      if (quadPos >= 2) {
        pads += 1;
        if (quadPos + pads >= 4) break;
      }
      continue;
    }
    if (!BASE64_DATA.test(ch)) continue;
    data += ch;
    pads = 0;
  }
  const quadPos = data.length % 4;
  if (quadPos === 1) return undefined;
  if (quadPos !== 0 && quadPos + pads < 4) return undefined;
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(Buffer.from(data, 'base64'));
  } catch {
    return undefined;
  }
}
