/**
 * nunjucks' parser plus two Jinja forms it lacks, added by subclassing (the
 * global parser is left alone, unlike nunjucks' own installJinjaCompat):
 *
 * - slices: `rows[1:3]`, `name[:5]`, `items[::-1]` parse to a `Slice` node;
 * - numeric attribute access: `rows.0.id` reads like `rows[0].id`.
 */
import { BaseParser, lexer, nodes, type NjNode, type NjParser, type NjToken, type NjTokenizer } from './nunjucks-internals';

/** `start:stop:step` inside a subscript; any part may be absent. */
export const SliceNode = nodes.Node.extend('Slice', { fields: ['start', 'stop', 'step'] });

function tokenState(tokens: NjTokenizer): { index: number; lineno: number; colno: number } {
  return { index: tokens.index, lineno: tokens.lineno, colno: tokens.colno };
}

/**
 * Parses the rest of a `[ ... ]` subscript as `start:stop:step`. Returns null
 * when no colon comes before the first problem: then it was not a slice.
 */
function parseSlice(parser: NjParser, bracket: NjToken): NjNode | null {
  const parts: (NjNode | null)[] = [null, null, null];
  let part = 0;
  try {
    for (;;) {
      if (parser.skip(lexer.TOKEN_RIGHT_BRACKET)) break;
      if (parser.skip(lexer.TOKEN_COLON)) {
        part++;
        if (part > 2) parser.fail('too many slice components', bracket.lineno, bracket.colno);
        continue;
      }
      if (parts[part] !== null) parser.fail('expected ":" or "]" in slice', bracket.lineno, bracket.colno);
      parts[part] = parser.parseExpression();
    }
  } catch (error) {
    if (part === 0) return null;
    throw error;
  }
  return part === 0 ? null : new SliceNode(bracket.lineno, bracket.colno, parts[0], parts[1], parts[2]);
}

const baseParseAggregate = BaseParser.prototype.parseAggregate;

interface SafeParserInstance extends NjParser {
  parseDottedName(target: NjNode, dot: NjToken): NjNode;
}

export const SafeParser = BaseParser.extend('SafeParser', {
  /** As nunjucks, but a `[a:b]` subscript that fails as a list parses as a slice. */
  parseAggregate(this: NjParser): NjNode | null {
    const before = tokenState(this.tokens);
    before.colno--;
    before.index--;
    try {
      return baseParseAggregate.call(this);
    } catch (error) {
      const atError = tokenState(this.tokens);
      const peekedAtError = this.peeked;
      Object.assign(this.tokens, before);
      this.peeked = null;
      const bracket = this.peekToken();
      const slice = bracket && bracket.type === lexer.TOKEN_LEFT_BRACKET && this.nextToken() && parseSlice(this, bracket);
      if (!bracket || !slice) {
        Object.assign(this.tokens, atError);
        this.peeked = peekedAtError;
        throw error;
      }
      return new nodes.Array(bracket.lineno, bracket.colno, [slice]);
    }
  },

  /** As nunjucks, plus `x.0` (an integer after the dot is an index). */
  parsePostfix(this: SafeParserInstance, target: NjNode): NjNode {
    let node = target;
    for (let tok = this.peekToken(); tok; tok = this.peekToken()) {
      if (tok.type === lexer.TOKEN_LEFT_PAREN) {
        node = new nodes.FunCall(tok.lineno, tok.colno, node, this.parseSignature());
      } else if (tok.type === lexer.TOKEN_LEFT_BRACKET) {
        const lookup = this.parseAggregate();
        const children = lookup && Array.isArray(lookup['children']) ? lookup['children'] : [];
        if (children.length !== 1) this.fail('invalid index', tok.lineno, tok.colno);
        node = new nodes.LookupVal(tok.lineno, tok.colno, node, children[0]);
      } else if (tok.type === lexer.TOKEN_OPERATOR && tok.value === '.') {
        this.nextToken();
        node = this.parseDottedName(node, tok);
      } else {
        break;
      }
    }
    return node;
  },

  parseDottedName(this: SafeParserInstance, target: NjNode, dot: NjToken): NjNode {
    const val = this.nextToken();
    if (val && val.type === lexer.TOKEN_SYMBOL) {
      return new nodes.LookupVal(dot.lineno, dot.colno, target, new nodes.Literal(val.lineno, val.colno, val.value));
    }
    if (val && val.type === lexer.TOKEN_INT) {
      return new nodes.LookupVal(dot.lineno, dot.colno, target, new nodes.Literal(val.lineno, val.colno, Number(val.value)));
    }
    // `x.0.y` lexes as x, '.', float '0.', y and `x.0.1` as x, '.', float '0.1'.
    const float = val && val.type === lexer.TOKEN_FLOAT ? /^(\d+)\.(\d*)$/.exec(val.value) : null;
    if (val && float) {
      const index = (n: string): NjNode => new nodes.Literal(val.lineno, val.colno, Number(n));
      const first = new nodes.LookupVal(dot.lineno, dot.colno, target, index(float[1] ?? '0'));
      if (float[2]) return new nodes.LookupVal(val.lineno, val.colno, first, index(float[2]));
      return this.parseDottedName(first, val);
    }
    return this.fail(`expected name as lookup value, got ${val ? val.value : 'end of template'}`, val?.lineno, val?.colno);
  },
});

/** Parses a template into its AST (throws nunjucks' TemplateError with 1-based positions). */
export function parseTemplate(template: string): NjNode {
  const parser = new SafeParser(lexer.lex(template, {}));
  return parser.parseAsRoot();
}
