/**
 * Static checks on a parsed template, run before any code is generated:
 * only known node types, filters, tests and functions; identifiers that are
 * plain names; no reads or writes of `constructor`, `__proto__`, `prototype`;
 * no regex literals; no template-loading or macro tags. Problems carry 1-based
 * positions inside the template.
 */
import { childList, childNode, isNode, type NjNode } from './nunjucks-internals';
import { FORBIDDEN_MEMBERS, type KnownNames } from './known-names';

export interface TemplateProblem {
  message: string;
  line?: number;
  column?: number;
}

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Python spellings the compiler turns into literals. */
export const PYTHON_LITERALS: ReadonlyMap<string, boolean | null> = new Map([
  ['True', true],
  ['False', false],
  ['None', null],
]);

const EXPRESSION_NODES = new Set([
  'Root',
  'Output',
  'TemplateData',
  'NodeList',
  'Literal',
  'Symbol',
  'Group',
  'Array',
  'Dict',
  'Pair',
  'KeywordArgs',
  'InlineIf',
  'In',
  'Is',
  'And',
  'Or',
  'Not',
  'Add',
  'Concat',
  'Sub',
  'Mul',
  'Div',
  'FloorDiv',
  'Mod',
  'Pow',
  'Neg',
  'Pos',
  'Compare',
  'CompareOperand',
  'LookupVal',
  'FunCall',
  'Filter',
  'If',
  'For',
  'Set',
  'Capture',
  'Switch',
  'Case',
  'Slice',
]);

/**
 * The scope name whose values are secrets. A template uses one whole or not at all: a part
 * of it (`keychain.api.token[0:7]`, `| truncate(7)`, `.split('-')`) would leave the worker
 * unmasked, since the scrubber knows whole values only, and two parts make the secret again.
 */
const SECRET_ROOT = 'keychain';
/** Filters and methods that hand out part of a string. */
const PART_TAKERS = new Set([
  'first',
  'last',
  'list',
  'slice',
  'batch',
  'truncate',
  'wordwrap',
  'replace',
  'split',
  'rsplit',
  'partition',
  'rpartition',
  'splitlines',
]);
const PART_OF_SECRET = `a template may not take part of a ${SECRET_ROOT} value (a slice, a character, or a filter or method that splits it): use it whole`;

/** The scope name an expression like `a.b[0].c` starts from; undefined for anything else. */
function rootName(node: NjNode | undefined): string | undefined {
  if (node?.typename === 'Symbol') return String(node['value']);
  if (node?.typename === 'LookupVal') return rootName(childNode(node, 'target'));
  const grouped = node?.typename === 'Group' ? childList(node) : [];
  return grouped.length === 1 ? rootName(grouped[0]) : undefined;
}

const UNSUPPORTED_TAGS: ReadonlyMap<string, string> = new Map([
  ['Macro', '{% macro %}'],
  ['Caller', '{% call %}'],
  ['Import', '{% import %}'],
  ['FromImport', '{% from %}'],
  ['Include', '{% include %}'],
  ['Extends', '{% extends %}'],
  ['Block', '{% block %}'],
  ['Super', 'super()'],
  ['IfAsync', '{% ifAsync %}'],
  ['AsyncEach', '{% asyncEach %}'],
  ['AsyncAll', '{% asyncAll %}'],
  ['CallExtension', 'extension tags'],
  ['CallExtensionAsync', 'extension tags'],
  ['FilterAsync', 'async filters'],
]);

/** The test name an `is` right-hand side denotes: `is none`, `is None`, `is true`, `is defined`. */
export function testName(right: NjNode): string | undefined {
  const named = right.typename === 'FunCall' ? childNode(right, 'name') : right;
  if (!named) return undefined;
  const value = named['value'];
  if (named.typename === 'Literal') {
    if (value === null) return 'none';
    return typeof value === 'boolean' ? String(value) : undefined;
  }
  if (named.typename !== 'Symbol' || typeof value !== 'string') return undefined;
  return PYTHON_LITERALS.has(value) ? value.toLowerCase() : value;
}

class TemplateValidator {
  readonly problems: TemplateProblem[] = [];

  constructor(private readonly known: KnownNames) {}

  private report(node: NjNode, message: string): void {
    this.problems.push({ message, line: node.lineno + 1, column: node.colno + 1 });
  }

  visit(node: NjNode): void {
    const type = node.typename;
    const tag = UNSUPPORTED_TAGS.get(type);
    if (tag) return this.report(node, `${tag} is not supported in expressions`);
    if (!EXPRESSION_NODES.has(type)) return this.report(node, `unsupported syntax (${type})`);
    switch (type) {
      case 'Symbol':
        return this.checkName(node);
      case 'Literal':
        return this.checkLiteral(node);
      case 'LookupVal':
        return this.checkLookup(node);
      case 'Pair':
        return this.checkPair(node);
      case 'Filter':
        return this.checkFilter(node);
      case 'Is':
        return this.checkIs(node);
      case 'FunCall':
        return this.checkCall(node);
      case 'Set':
        return this.checkSet(node);
      case 'Slice':
        // Subscript slices are taken care of by checkLookup; any other place is an error.
        return this.report(node, 'a slice is only allowed inside a subscript');
      default:
        return this.visitFields(node);
    }
  }

  private visitFields(node: NjNode, skip: readonly string[] = []): void {
    for (const field of node.fields) {
      if (skip.includes(field)) continue;
      const value = node[field];
      if (isNode(value)) this.visit(value);
      else if (Array.isArray(value)) for (const item of value) if (isNode(item)) this.visit(item);
    }
  }

  private checkName(node: NjNode): void {
    const name = String(node['value']);
    if (!IDENTIFIER.test(name)) this.report(node, `invalid name ${JSON.stringify(name)}`);
    else if (FORBIDDEN_MEMBERS.has(name)) this.report(node, `access to '${name}' is not allowed`);
  }

  private checkLiteral(node: NjNode): void {
    const value = node['value'];
    const ok =
      value === null || typeof value === 'string' || typeof value === 'boolean' || (typeof value === 'number' && Number.isFinite(value));
    if (!ok) this.report(node, value instanceof RegExp ? 'regular expression literals are not supported' : 'unsupported literal');
  }

  private checkLookup(node: NjNode): void {
    const val = childNode(node, 'val');
    const target = childNode(node, 'target');
    if (target) this.visit(target);
    const part = val?.typename === 'Slice' || (val?.typename === 'Literal' && typeof val['value'] === 'number');
    if (part && rootName(target) === SECRET_ROOT) this.report(node, PART_OF_SECRET);
    if (val?.typename === 'Literal' && typeof val['value'] === 'string' && FORBIDDEN_MEMBERS.has(val['value'])) {
      this.report(val, `access to '${val['value']}' is not allowed`);
    } else if (val?.typename === 'Slice') {
      this.visitFields(val);
    } else if (val) {
      this.visit(val);
    }
  }

  private checkPair(node: NjNode): void {
    const key = childNode(node, 'key');
    const name = key?.['value'];
    if (key && (key.typename === 'Symbol' || key.typename === 'Literal') && typeof name === 'string') {
      if (FORBIDDEN_MEMBERS.has(name)) this.report(key, `the key '${name}' is not allowed`);
    } else if (key) {
      this.report(key, 'dict keys must be strings or names');
    }
    const value = childNode(node, 'value');
    if (value) this.visit(value);
  }

  private checkFilter(node: NjNode): void {
    const name = childNode(node, 'name')?.['value'];
    if (typeof name !== 'string' || !this.known.filters.has(name)) {
      this.report(node, `unknown filter '${String(name)}'`);
    } else if (PART_TAKERS.has(name) && rootName(childList(childNode(node, 'args') ?? node)[0]) === SECRET_ROOT) {
      this.report(node, PART_OF_SECRET);
    }
    this.visitFields(node, ['name']);
  }

  private checkIs(node: NjNode): void {
    const right = childNode(node, 'right');
    const name = right && testName(right);
    if (!name || !this.known.tests.has(name)) this.report(right ?? node, `unknown test '${name ?? '?'}'`);
    const left = childNode(node, 'left');
    if (left) this.visit(left);
    const args = right?.typename === 'FunCall' ? childNode(right, 'args') : undefined;
    if (args) this.visit(args);
  }

  private checkCall(node: NjNode): void {
    const callee = childNode(node, 'name');
    if (callee?.typename === 'Symbol') {
      const name = String(callee['value']);
      if (!this.known.functions.has(name)) this.report(callee, `unknown function '${name}'`);
      const args = childNode(node, 'args');
      if (args) this.visit(args);
      return;
    }
    const method = callee?.typename === 'LookupVal' ? childNode(callee, 'val') : undefined;
    if (
      method?.typename === 'Literal' &&
      PART_TAKERS.has(String(method['value'])) &&
      rootName(childNode(callee!, 'target')) === SECRET_ROOT
    ) {
      this.report(node, PART_OF_SECRET);
    }
    this.visitFields(node);
  }

  private checkSet(node: NjNode): void {
    const targets = node['targets'];
    for (const target of Array.isArray(targets) ? targets.filter(isNode) : []) {
      const name = String(target['value']);
      if (PYTHON_LITERALS.has(name)) this.report(target, `cannot assign to ${name}`);
    }
    this.visitFields(node);
  }
}

export function validateTemplate(root: NjNode, known: KnownNames): TemplateProblem[] {
  const validator = new TemplateValidator(known);
  validator.visit(root);
  return validator.problems;
}

/**
 * The expression of a template that is exactly one `{{ expr }}` (surrounding
 * whitespace aside): such templates render to the expression's native value.
 */
export function soleExpression(root: NjNode): NjNode | undefined {
  const meaningful = childList(root).filter(
    (output) =>
      !(output.typename === 'Output' && childList(output).every((c) => c.typename === 'TemplateData' && String(c['value']).trim() === '')),
  );
  const [only] = meaningful;
  if (meaningful.length !== 1 || !only || only.typename !== 'Output') return undefined;
  const children = childList(only);
  const [expr] = children;
  return children.length === 1 && expr && expr.typename !== 'TemplateData' ? expr : undefined;
}
