/**
 * nunjucks' code generator, subclassed to give templates Python semantics and
 * to route every operation through the sandbox runtime:
 *
 * - `and`, `or`, `not`, `if`, `x if c else y` use Python truthiness
 *   (`[]`, `{}` and `''` are false) and `and`/`or` return an operand;
 * - comparisons use Python equality (deep, `1 == '1'` false) and chain;
 *   `+` joins lists, `*` repeats strings, `%` takes the divisor's sign, `~`
 *   uses str() (`True`); `True`/`False`/`None` are literals; `(a, b)` is a
 *   list, not JavaScript's comma operator;
 * - names in generated code are always JSON-quoted, and calls, filters and
 *   outputs record their position for error messages;
 * - a value that must not be undefined (a name read with `.x` or `[i]`, an
 *   operand of arithmetic, the iterable of `{% for %}`, the input of a
 *   filter that needs one) goes through `runtime.defined(value, name)`,
 *   which fails naming the expression as written (see sandbox-runtime.ts);
 * - every `{% for %}` iteration and every piece of output charges the
 *   render's budget.
 *
 * A template that is one `{{ expr }}` compiles to a root that hands the
 * expression's value to the callback instead of appending it to a string.
 */
import { FILTERS_NEEDING_A_VALUE } from './filters';
import {
  BaseCompiler,
  baseRuntime,
  childList,
  childNode,
  isNode,
  nodes,
  requiredChild,
  type NjCompileFrame,
  type NjCompiler,
  type NjNode,
} from './nunjucks-internals';
import { PYTHON_LITERALS, testName } from './validate-template';

type Frame = NjCompileFrame;

function position(c: NjCompiler, node: NjNode): void {
  c._emit(`lineno = ${node.lineno}, colno = ${node.colno}, `);
}

function binaryCall(c: NjCompiler, helper: string, node: NjNode, frame: Frame): void {
  c._emit(`runtime.${helper}(`);
  c.compile(requiredChild(node, 'left'), frame);
  c._emit(', ');
  c.compile(requiredChild(node, 'right'), frame);
  c._emit(')');
}

function lazyBinary(c: NjCompiler, helper: string, node: NjNode, frame: Frame): void {
  c._emit(`runtime.${helper}(`);
  c.compile(requiredChild(node, 'left'), frame);
  c._emit(', function () { return ');
  c.compile(requiredChild(node, 'right'), frame);
  c._emit('; })');
}

function truthyCall(c: NjCompiler, node: NjNode, frame: Frame): void {
  c._emit('runtime.truthy(');
  c._compileExpression(node, frame);
  c._emit(')');
}

function optional(c: NjCompiler, node: NjNode | undefined, frame: Frame): void {
  if (node) c._compileExpression(node, frame);
  else c._emit('null');
}

/** Where an expression starts in the source: `a.b.c` at `a`, `f(x)` at `f`, `x | f` at `x`. */
function startOf(node: NjNode): NjNode {
  const first =
    node.typename === 'LookupVal'
      ? childNode(node, 'target')
      : node.typename === 'FunCall'
        ? childNode(node, 'name')
        : node.typename === 'Filter'
          ? childList(requiredChild(node, 'args'))[0]
          : undefined;
  return first ? startOf(first) : node;
}

/** The value of `node`, failing at run time (at its start) when it is undefined. Literals never are. */
function definedValue(c: NjCompiler, node: NjNode, frame: Frame): void {
  if (node.typename === 'Literal') {
    c._compileExpression(node, frame);
    return;
  }
  const start = startOf(node);
  c._emit('runtime.defined(');
  c._compileExpression(node, frame);
  c._emit(`, ${JSON.stringify(sourceName(node))}, ${start.lineno}, ${start.colno})`);
}

/** A variable name (not `True`/`False`/`None`). */
function isName(node: NjNode): boolean {
  return node.typename === 'Symbol' && !PYTHON_LITERALS.has(String(node['value']));
}

/**
 * The target of `.x`, `[i]` or a slice: a name must be defined (`{{ nothing.here }}`
 * fails); a missing member of a value is undefined all the way down
 * (`{{ response.data.next.cursor }}`), as NoETL's data access is.
 */
function lookupTarget(c: NjCompiler, node: NjNode, frame: Frame): void {
  if (isName(node)) definedValue(c, node, frame);
  else c._compileExpression(node, frame);
}

function definedBinary(c: NjCompiler, node: NjNode, frame: Frame, before: string, between: string, after: string): void {
  c._emit(before);
  definedValue(c, requiredChild(node, 'left'), frame);
  c._emit(between);
  definedValue(c, requiredChild(node, 'right'), frame);
  c._emit(after);
}

/** A readable name for an expression, for "x is not callable" and "'x' is undefined" errors. */
function sourceName(node: NjNode | undefined): string {
  if (!node) return 'expression';
  const value = node['value'];
  if (node.typename === 'Symbol') return String(value);
  if (node.typename === 'Literal') return JSON.stringify(value) ?? 'expression';
  if (node.typename === 'LookupVal') {
    const target = sourceName(childNode(node, 'target'));
    const key = childNode(node, 'val');
    const keyValue = key?.typename === 'Literal' ? key['value'] : undefined;
    return typeof keyValue === 'string' ? `${target}.${keyValue}` : `${target}[${typeof keyValue === 'number' ? keyValue : '...'}]`;
  }
  if (node.typename === 'FunCall') return `${sourceName(childNode(node, 'name'))}()`;
  const [only, ...more] = childList(node);
  if (node.typename === 'Group' && only && more.length === 0) return sourceName(only);
  return 'expression';
}

/** The iterable of a `{% for %}`, which must be defined. */
const IterableNode = nodes.Node.extend('Iterable', { fields: ['value'] });
/** Charges the budget for one loop iteration; first in every loop body. */
const LoopIterationNode = nodes.Node.extend('LoopIteration', { fields: [] });
const OWN_EXPRESSIONS = new Set(['Iterable']);

export const SafeCompiler = BaseCompiler.extend('SafeCompiler', {
  _compileExpression(this: NjCompiler, node: NjNode, frame: Frame): void {
    if (OWN_EXPRESSIONS.has(node.typename)) this.compile(node, frame);
    else BaseCompiler.prototype._compileExpression.call(this, node, frame);
  },

  compileIterable(this: NjCompiler, node: NjNode, frame: Frame): void {
    definedValue(this, requiredChild(node, 'value'), frame);
  },

  compileLoopIteration(this: NjCompiler): void {
    this._emitLine('runtime.loopIteration();');
  },

  compileFor(this: NjCompiler, node: NjNode, frame: Frame): void {
    const arr = requiredChild(node, 'arr');
    const body = requiredChild(node, 'body');
    const checked = new nodes.For(
      node.lineno,
      node.colno,
      new IterableNode(arr.lineno, arr.colno, arr),
      node['name'],
      new nodes.NodeList(body.lineno, body.colno, [new LoopIterationNode(body.lineno, body.colno), ...childList(body)]),
      node['else_'],
    );
    BaseCompiler.prototype.compileFor.call(this, checked, frame);
  },

  compileSymbol(this: NjCompiler, node: NjNode, frame: Frame): void {
    const name = String(node['value']);
    if (PYTHON_LITERALS.has(name)) this._emit(String(PYTHON_LITERALS.get(name)));
    else BaseCompiler.prototype.compileSymbol.call(this, node, frame);
  },

  compileGroup(this: NjCompiler, node: NjNode, frame: Frame): void {
    if (childList(node).length === 1) BaseCompiler.prototype.compileGroup.call(this, node, frame);
    else this._compileAggregate(node, frame, '[', ']');
  },

  compileInlineIf(this: NjCompiler, node: NjNode, frame: Frame): void {
    this._emit('(');
    truthyCall(this, requiredChild(node, 'cond'), frame);
    this._emit(' ? ');
    this._compileExpression(requiredChild(node, 'body'), frame);
    this._emit(' : ');
    const otherwise = childNode(node, 'else_');
    if (otherwise) this._compileExpression(otherwise, frame);
    else this._emit('undefined');
    this._emit(')');
  },

  compileOr(this: NjCompiler, node: NjNode, frame: Frame): void {
    lazyBinary(this, 'or', node, frame);
  },

  compileAnd(this: NjCompiler, node: NjNode, frame: Frame): void {
    lazyBinary(this, 'and', node, frame);
  },

  compileNot(this: NjCompiler, node: NjNode, frame: Frame): void {
    this._emit('!');
    truthyCall(this, requiredChild(node, 'target'), frame);
  },

  compileAdd(this: NjCompiler, node: NjNode, frame: Frame): void {
    definedBinary(this, node, frame, 'runtime.add(', ', ', ')');
  },

  compileMul(this: NjCompiler, node: NjNode, frame: Frame): void {
    definedBinary(this, node, frame, 'runtime.multiply(', ', ', ')');
  },

  compileMod(this: NjCompiler, node: NjNode, frame: Frame): void {
    definedBinary(this, node, frame, 'runtime.modulo(', ', ', ')');
  },

  compileSub(this: NjCompiler, node: NjNode, frame: Frame): void {
    definedBinary(this, node, frame, '(', ' - ', ')');
  },

  compileDiv(this: NjCompiler, node: NjNode, frame: Frame): void {
    definedBinary(this, node, frame, '(', ' / ', ')');
  },

  compileFloorDiv(this: NjCompiler, node: NjNode, frame: Frame): void {
    definedBinary(this, node, frame, 'Math.floor(', ' / ', ')');
  },

  compilePow(this: NjCompiler, node: NjNode, frame: Frame): void {
    definedBinary(this, node, frame, 'Math.pow(', ', ', ')');
  },

  compileNeg(this: NjCompiler, node: NjNode, frame: Frame): void {
    this._emit('(-');
    definedValue(this, requiredChild(node, 'target'), frame);
    this._emit(')');
  },

  compilePos(this: NjCompiler, node: NjNode, frame: Frame): void {
    this._emit('(+');
    definedValue(this, requiredChild(node, 'target'), frame);
    this._emit(')');
  },

  compileConcat(this: NjCompiler, node: NjNode, frame: Frame): void {
    binaryCall(this, 'concat', node, frame);
  },

  compileCompare(this: NjCompiler, node: NjNode, frame: Frame): void {
    this._emit('runtime.compare(');
    this._compileExpression(requiredChild(node, 'expr'), frame);
    const ops = node['ops'];
    for (const op of Array.isArray(ops) ? ops.filter(isNode) : []) {
      this._emit(`, ${JSON.stringify(String(op['type']))}, `);
      this._compileExpression(requiredChild(op, 'expr'), frame);
    }
    this._emit(')');
  },

  compileIs(this: NjCompiler, node: NjNode, frame: Frame): void {
    const right = requiredChild(node, 'right');
    this._emit('(');
    position(this, node);
    this._emit(`env.getTest(${JSON.stringify(testName(right))}).call(context, `);
    this._compileExpression(requiredChild(node, 'left'), frame);
    const args = right.typename === 'FunCall' ? childNode(right, 'args') : undefined;
    if (args && childList(args).length > 0) {
      this._emit(', ');
      this._compileAggregate(args, frame);
    }
    this._emit(') === true)');
  },

  compileLookupVal(this: NjCompiler, node: NjNode, frame: Frame): void {
    const val = requiredChild(node, 'val');
    const target = requiredChild(node, 'target');
    if (val.typename !== 'Slice') {
      this._emit('runtime.memberLookup(');
      lookupTarget(this, target, frame);
      this._emit(', ');
      this._compileExpression(val, frame);
      this._emit(')');
      return;
    }
    this._emit('runtime.slice(');
    lookupTarget(this, target, frame);
    for (const part of ['start', 'stop', 'step']) {
      this._emit(', ');
      optional(this, childNode(val, part), frame);
    }
    this._emit(')');
  },

  compileFunCall(this: NjCompiler, node: NjNode, frame: Frame): void {
    const callee = requiredChild(node, 'name');
    this._emit('(');
    position(this, node);
    this._emit('runtime.callWrap(');
    this._compileExpression(callee, frame);
    this._emit(`, ${JSON.stringify(sourceName(callee))}, context, `);
    this._compileAggregate(requiredChild(node, 'args'), frame, '[', ']');
    this._emit('))');
  },

  compileFilter(this: NjCompiler, node: NjNode, frame: Frame): void {
    const name = String(requiredChild(node, 'name')['value']);
    this._emit('(');
    position(this, node);
    this._emit(`env.getFilter(${JSON.stringify(name)}).call(context`);
    childList(requiredChild(node, 'args')).forEach((arg, i) => {
      this._emit(', ');
      if (i === 0 && FILTERS_NEEDING_A_VALUE.has(name)) definedValue(this, arg, frame);
      else this.compile(arg, frame);
    });
    this._emit('))');
  },

  compileIf(this: NjCompiler, node: NjNode, frame: Frame): void {
    this._emit('if(');
    truthyCall(this, requiredChild(node, 'cond'), frame);
    this._emitLine(') {');
    this._withScopedSyntax(() => this.compile(requiredChild(node, 'body'), frame));
    const otherwise = childNode(node, 'else_');
    if (otherwise) {
      this._emitLine('}\nelse {');
      this._withScopedSyntax(() => this.compile(otherwise, frame));
    }
    this._emitLine('}');
  },

  compileOutput(this: NjCompiler, node: NjNode, frame: Frame): void {
    for (const child of childList(node)) {
      if (child.typename === 'TemplateData') {
        if (child['value']) {
          this._emit(`${this.buffer} = runtime.appendOutput(${this.buffer}, `);
          this.compileLiteral(child, frame);
          this._emitLine(');');
        }
        continue;
      }
      this._emitLine(`lineno = ${child.lineno}; colno = ${child.colno};`);
      this._emit(`${this.buffer} = runtime.appendOutput(${this.buffer}, runtime.suppressValue(`);
      this._compileExpression(child, frame);
      this._emitLine(', false));');
    }
  },
});

/** JavaScript source for a template: `return { root: function root(env, context, frame, runtime, cb) {...} }`. */
export function generateSource(root: NjNode, nativeExpression: NjNode | undefined): string {
  const compiler = new SafeCompiler();
  if (!nativeExpression) {
    compiler.compile(root);
    return compiler.getCode();
  }
  compiler._emitFuncBegin(nativeExpression, 'root');
  compiler._emit('cb(null, ');
  compiler._compileExpression(nativeExpression, new baseRuntime.Frame());
  compiler._emitLine(');');
  compiler._emitFuncEnd(true);
  compiler._emitLine('return { root: root };');
  return compiler.getCode();
}
