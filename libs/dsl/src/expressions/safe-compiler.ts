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
 *   outputs record their position for error messages.
 *
 * A template that is one `{{ expr }}` compiles to a root that hands the
 * expression's value to the callback instead of appending it to a string.
 */
import {
  BaseCompiler, baseRuntime, childList, childNode, isNode, requiredChild,
  type NjCompileFrame, type NjCompiler, type NjNode,
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

/** A readable name for the thing being called, for "x is not callable" errors. */
function calleeName(node: NjNode | undefined): string {
  if (!node) return 'expression';
  const value = node['value'];
  if (node.typename === 'Symbol') return String(value);
  if (node.typename === 'Literal') return JSON.stringify(value) ?? 'expression';
  if (node.typename === 'LookupVal') {
    const target = calleeName(childNode(node, 'target'));
    const key = childNode(node, 'val');
    const keyValue = key?.typename === 'Literal' ? key['value'] : undefined;
    return typeof keyValue === 'string' ? `${target}.${keyValue}` : `${target}[${typeof keyValue === 'number' ? keyValue : '...'}]`;
  }
  if (node.typename === 'FunCall') return `${calleeName(childNode(node, 'name'))}()`;
  const [only, ...more] = childList(node);
  if (node.typename === 'Group' && only && more.length === 0) return calleeName(only);
  return 'expression';
}

export const SafeCompiler = BaseCompiler.extend('SafeCompiler', {
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
    binaryCall(this, 'add', node, frame);
  },

  compileMul(this: NjCompiler, node: NjNode, frame: Frame): void {
    binaryCall(this, 'multiply', node, frame);
  },

  compileMod(this: NjCompiler, node: NjNode, frame: Frame): void {
    binaryCall(this, 'modulo', node, frame);
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
    if (val.typename !== 'Slice') {
      BaseCompiler.prototype.compileLookupVal.call(this, node, frame);
      return;
    }
    this._emit('runtime.slice(');
    this._compileExpression(requiredChild(node, 'target'), frame);
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
    this._emit(`, ${JSON.stringify(calleeName(callee))}, context, `);
    this._compileAggregate(requiredChild(node, 'args'), frame, '[', ']');
    this._emit('))');
  },

  compileFilter(this: NjCompiler, node: NjNode, frame: Frame): void {
    const name = String(requiredChild(node, 'name')['value']);
    this._emit('(');
    position(this, node);
    this._emit(`env.getFilter(${JSON.stringify(name)}).call(context, `);
    this._compileAggregate(requiredChild(node, 'args'), frame);
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
          this._emit(`${this.buffer} += `);
          this.compileLiteral(child, frame);
          this._emitLine(';');
        }
        continue;
      }
      this._emitLine(`lineno = ${child.lineno}; colno = ${child.colno};`);
      this._emit(`${this.buffer} += runtime.suppressValue(`);
      this._compileExpression(child, frame);
      this._emitLine(', false);');
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
