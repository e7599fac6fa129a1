/**
 * Splits a SQL text into statements the way psql does: a `;` ends a statement only
 * outside quotes, comments, dollar-quoted bodies and parentheses, and outside the
 * `BEGIN ... END` body of a `CREATE [OR REPLACE] FUNCTION|PROCEDURE` (SQL-standard bodies).
 *
 * Understood: '...' with '' escapes (a backslash is an ordinary character, as with
 * standard_conforming_strings), E'...' with backslash escapes, "..." identifiers with ""
 * escapes, $$...$$ and $tag$...$tag$ bodies, `--` line comments and nested `/* *\/` block
 * comments. Statements are returned trimmed, without their `;`; a statement made only of
 * whitespace and comments is dropped. An unterminated quote or comment runs to the end of
 * the text (the server then reports the error).
 */
export function splitStatements(sql: string): string[] {
  const statements: string[] = [];
  const n = sql.length;
  let start = 0;
  let hasCode = false;
  let parenDepth = 0;
  let body = newBodyTracker();

  const flush = (end: number): void => {
    const text = sql.slice(start, end).trim();
    if (hasCode && text !== '') statements.push(text);
    start = end + 1;
    hasCode = false;
    parenDepth = 0;
    body = newBodyTracker();
  };

  let i = 0;
  while (i < n) {
    const ch = sql.charAt(i);
    if (isSpace(ch)) {
      i++;
    } else if (ch === '-' && sql.charAt(i + 1) === '-') {
      const eol = sql.indexOf('\n', i + 2);
      i = eol === -1 ? n : eol + 1;
    } else if (ch === '/' && sql.charAt(i + 1) === '*') {
      i = skipBlockComment(sql, i);
    } else if (ch === ';' && parenDepth === 0 && body.depth === 0) {
      flush(i);
      i++;
    } else {
      hasCode = true;
      if (ch === "'") {
        i = skipQuoted(sql, i, "'", false);
      } else if (ch === '"') {
        i = skipQuoted(sql, i, '"', false);
      } else if (ch === '$') {
        i = skipDollarQuoted(sql, i);
      } else if (isIdentStart(ch)) {
        let j = i + 1;
        while (j < n && isIdentPart(sql.charAt(j))) j++;
        const word = sql.slice(i, j);
        if ((word === 'E' || word === 'e') && sql.charAt(j) === "'") {
          i = skipQuoted(sql, j, "'", true);
        } else {
          trackWord(body, word.toLowerCase(), parenDepth);
          i = j;
        }
      } else if (isDigit(ch)) {
        // A number, including forms like 1e5 or 0x1F: never a keyword or a quote prefix.
        let j = i + 1;
        while (j < n && isIdentPart(sql.charAt(j))) j++;
        i = j;
      } else {
        if (ch === '(') parenDepth++;
        else if (ch === ')' && parenDepth > 0) parenDepth--;
        i++;
      }
    }
  }
  flush(n);
  return statements;
}

/**
 * psql's heuristic (psqlscan.l) for `CREATE [OR REPLACE] FUNCTION|PROCEDURE ... BEGIN ATOMIC ... END`:
 * the statement's first words are remembered; inside such a statement, BEGIN and CASE open a
 * block and END closes one, at parenthesis depth 0.
 */
interface BodyTracker {
  /** First letters of the leading keywords create/or/replace/function/procedure, by position. */
  initials: (string | undefined)[];
  wordCount: number;
  depth: number;
}

function newBodyTracker(): BodyTracker {
  return { initials: [], wordCount: 0, depth: 0 };
}

const LEADING_WORDS = new Set(['create', 'or', 'replace', 'function', 'procedure']);

function trackWord(t: BodyTracker, word: string, parenDepth: number): void {
  if (t.wordCount < 4 && LEADING_WORDS.has(word)) t.initials[t.wordCount] = word.charAt(0);
  t.wordCount++;
  const [a, b, c, d] = t.initials;
  const isRoutine = a === 'c' && (b === 'f' || b === 'p' || (b === 'o' && c === 'r' && (d === 'f' || d === 'p')));
  if (!isRoutine || parenDepth !== 0) return;
  if (word === 'begin') t.depth++;
  else if (word === 'case' && t.depth >= 1) t.depth++;
  else if (word === 'end' && t.depth > 0) t.depth--;
}

/** Index just past the closing quote (or the end of the text). */
function skipQuoted(sql: string, open: number, quote: string, backslashEscapes: boolean): number {
  const n = sql.length;
  let j = open + 1;
  while (j < n) {
    const ch = sql.charAt(j);
    if (backslashEscapes && ch === '\\') {
      j += 2;
    } else if (ch === quote) {
      if (sql.charAt(j + 1) === quote) j += 2;
      else return j + 1;
    } else {
      j++;
    }
  }
  return n;
}

/** Index just past the matching `*\/`, counting nested comments (or the end of the text). */
function skipBlockComment(sql: string, open: number): number {
  const n = sql.length;
  let depth = 0;
  let j = open;
  while (j < n) {
    if (sql.charAt(j) === '/' && sql.charAt(j + 1) === '*') {
      depth++;
      j += 2;
    } else if (sql.charAt(j) === '*' && sql.charAt(j + 1) === '/') {
      depth--;
      j += 2;
      if (depth === 0) return j;
    } else {
      j++;
    }
  }
  return n;
}

/**
 * At a `$`: when it opens `$$` or `$tag$`, the index just past the closing delimiter (or the
 * end of the text); otherwise (a `$1` parameter, a stray `$`) the next index.
 */
function skipDollarQuoted(sql: string, at: number): number {
  const prev = at > 0 ? sql.charAt(at - 1) : '';
  if (prev !== '' && (isIdentPart(prev) || isDigit(prev))) return at + 1;
  let j = at + 1;
  if (j < sql.length && isIdentStart(sql.charAt(j))) {
    j++;
    while (j < sql.length && isTagPart(sql.charAt(j))) j++;
  }
  if (sql.charAt(j) !== '$') return at + 1;
  const delimiter = sql.slice(at, j + 1);
  const close = sql.indexOf(delimiter, j + 1);
  return close === -1 ? sql.length : close + delimiter.length;
}

function isSpace(ch: string): boolean {
  return ch === ' ' || ch === '\n' || ch === '\t' || ch === '\r' || ch === '\f' || ch === '\v';
}

function isDigit(ch: string): boolean {
  return ch >= '0' && ch <= '9';
}

function isIdentStart(ch: string): boolean {
  return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || ch === '_' || ch >= '\u0080';
}

/** Identifier characters after the first: letters, digits, `_`, `$`. */
function isIdentPart(ch: string): boolean {
  return isIdentStart(ch) || isDigit(ch) || ch === '$';
}

/** Dollar-quote tags are identifiers without `$`. */
function isTagPart(ch: string): boolean {
  return isIdentStart(ch) || isDigit(ch);
}
