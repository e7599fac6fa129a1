/**
 * A typed view of the parts of nunjucks that the engine builds on: the lexer,
 * parser, AST node classes, code generator and runtime helpers. @types/nunjucks
 * only describes the public rendering API, so this file is the one place that
 * reaches past it; everything else imports these names from here.
 *
 * Nothing here is patched: the engine subclasses the parser and compiler and
 * hands its own runtime object to the compiled code, so other users of
 * nunjucks in the same process are unaffected.
 */

/** An AST node. Fields are listed in `fields`; child nodes live in them. */
export interface NjNode {
  readonly typename: string;
  lineno: number;
  colno: number;
  readonly fields: readonly string[];
  [field: string]: unknown;
}

export interface NjNodeClass {
  new (lineno: number, colno: number, ...fields: unknown[]): NjNode;
  extend(name: string, props: object): NjNodeClass;
}

export interface NjToken {
  type: string;
  value: string;
  lineno: number;
  colno: number;
}

export interface NjTokenizer {
  index: number;
  lineno: number;
  colno: number;
  nextToken(): NjToken | null;
}

export interface NjParser {
  tokens: NjTokenizer;
  peeked: NjToken | null;
  peekToken(): NjToken | null;
  nextToken(withWhitespace?: boolean): NjToken | null;
  skip(type: string): boolean;
  fail(message: string, lineno?: number, colno?: number): never;
  parseExpression(): NjNode;
  parseSignature(tolerant?: boolean, noParens?: boolean): NjNode;
  parseAggregate(): NjNode | null;
  parsePostfix(node: NjNode): NjNode;
  parseAsRoot(): NjNode;
}

export interface NjParserClass {
  new (tokens: NjTokenizer): NjParser;
  readonly prototype: NjParser;
  extend(name: string, props: object): NjParserClass;
}

/** The compile-time frame: maps template names to generated JS identifiers. */
export interface NjCompileFrame {
  lookup(name: string): unknown;
}

export interface NjCompiler {
  /** The JS variable the current function appends output to. */
  buffer: string;
  fail(message: string, lineno?: number, colno?: number): never;
  compile(node: NjNode, frame?: NjCompileFrame): void;
  getCode(): string;
  _emit(code: string): void;
  _emitLine(code: string): void;
  _emitFuncBegin(node: NjNode, name: string): void;
  _emitFuncEnd(noReturn?: boolean): void;
  _withScopedSyntax(fn: () => void): void;
  _compileExpression(node: NjNode, frame: NjCompileFrame): void;
  _compileAggregate(node: NjNode, frame: NjCompileFrame, startChar?: string, endChar?: string): void;
  compileSymbol(node: NjNode, frame: NjCompileFrame): void;
  compileGroup(node: NjNode, frame: NjCompileFrame): void;
  compileLookupVal(node: NjNode, frame: NjCompileFrame): void;
  compileLiteral(node: NjNode, frame: NjCompileFrame): void;
  compileFor(node: NjNode, frame: NjCompileFrame): void;
}

export interface NjCompilerClass {
  new (templateName?: string, throwOnUndefined?: boolean): NjCompiler;
  readonly prototype: NjCompiler;
  extend(name: string, props: object): NjCompilerClass;
}

/** A render-time variable frame (`{% set %}`, loop variables). */
export interface NjFrame extends NjCompileFrame {
  variables: Record<string, unknown>;
  parent: NjFrame | null | undefined;
  topLevel: boolean;
}

export type NjFilter = (this: unknown, ...args: unknown[]) => unknown;

export interface NjEnvironment {
  opts: { autoescape: boolean; throwOnUndefined: boolean };
  addFilter(name: string, fn: NjFilter): void;
  getFilter(name: string): NjFilter;
  addTest(name: string, fn: NjFilter): void;
  getTest(name: string): NjFilter;
  readonly filters: Record<string, NjFilter>;
  readonly tests: Record<string, NjFilter>;
}

export interface NjRuntime {
  Frame: new (parent?: NjFrame, isolateWrites?: boolean) => NjFrame;
  SafeString: new (value: string) => object;
  [helper: string]: unknown;
}

interface NunjucksModule {
  Environment: new (loaders: unknown[], opts: { autoescape: boolean; throwOnUndefined: boolean }) => NjEnvironment;
  lexer: {
    lex(src: string, opts: object): NjTokenizer;
    TOKEN_LEFT_BRACKET: string;
    TOKEN_RIGHT_BRACKET: string;
    TOKEN_LEFT_PAREN: string;
    TOKEN_COLON: string;
    TOKEN_OPERATOR: string;
    TOKEN_SYMBOL: string;
    TOKEN_INT: string;
    TOKEN_FLOAT: string;
  };
  parser: { Parser: NjParserClass };
  compiler: { Compiler: NjCompilerClass };
  nodes: {
    Node: NjNodeClass;
    Array: NjNodeClass;
    FunCall: NjNodeClass;
    LookupVal: NjNodeClass;
    Literal: NjNodeClass;
    For: NjNodeClass;
    NodeList: NjNodeClass;
  };
  runtime: NjRuntime;
}

// The one untyped import of the package; its shape is pinned by NunjucksModule.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const nunjucks: NunjucksModule = require('nunjucks');

export const { Environment, lexer, nodes, runtime: baseRuntime } = nunjucks;
export const BaseParser = nunjucks.parser.Parser;
export const BaseCompiler = nunjucks.compiler.Compiler;

export function isNode(value: unknown): value is NjNode {
  return value instanceof nodes.Node;
}

/** The child node stored in `field`, or undefined when absent. */
export function childNode(node: NjNode, field: string): NjNode | undefined {
  const value = node[field];
  return isNode(value) ? value : undefined;
}

/** The child node stored in `field`; the parser guarantees it for this node type. */
export function requiredChild(node: NjNode, field: string): NjNode {
  const value = childNode(node, field);
  if (!value) throw new Error(`internal: ${node.typename}.${field} is missing`);
  return value;
}

export function childList(node: NjNode): NjNode[] {
  const children = node['children'];
  return Array.isArray(children) ? children.filter(isNode) : [];
}
