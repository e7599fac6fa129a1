import { createRequire } from 'node:module';
import { join } from 'node:path';
import ts from 'typescript';
import { REPO_ROOT, describe, type Manifest } from './deploy-files';

/**
 * Schema checks of Kubernetes objects without a cluster, from the
 * `kubernetes-models` packages (generated from the Kubernetes OpenAPI
 * definitions and, for `keda.sh`, from KEDA's CRDs):
 *
 * - `modelProblems`: the model's JSON-schema validation (ajv): types,
 *   required fields, enums, formats. It lets unknown fields through, as the
 *   OpenAPI definitions do.
 * - `unknownFieldProblems`: the same packages' TypeScript interfaces, with the
 *   compiler's excess-property check on each object as a literal: a misspelt
 *   field (`readinessProb`) is an error there, as `kubectl apply` (strict field
 *   validation) rejects it.
 */

/** The package holding the models of an API group; every other group is in `kubernetes-models`. */
const MODEL_PACKAGES: Record<string, string> = { 'keda.sh': '@kubernetes-models/keda' };

const load = createRequire(__filename);

function modelModule(apiVersion: string, kind: string): string {
  const group = apiVersion.includes('/') ? apiVersion.slice(0, apiVersion.indexOf('/')) : '';
  return `${MODEL_PACKAGES[group] ?? 'kubernetes-models'}/${apiVersion}/${kind}`;
}

type ModelClass = new (data: unknown) => { validate(): void };

export function modelProblems(manifest: Manifest): string[] {
  let exports: Record<string, unknown>;
  try {
    exports = load(modelModule(manifest.apiVersion, manifest.kind)) as Record<string, unknown>;
  } catch {
    return [`${describe(manifest)}: no schema for apiVersion ${manifest.apiVersion}, kind ${manifest.kind}`];
  }
  const Model = exports[manifest.kind] as ModelClass | undefined;
  if (typeof Model !== 'function')
    return [`${describe(manifest)}: ${modelModule(manifest.apiVersion, manifest.kind)} exports no ${manifest.kind}`];
  try {
    new Model(manifest.doc).validate();
    return [];
  } catch (error) {
    return String(error instanceof Error ? error.message : error)
      .split('\n')
      .filter(Boolean)
      .map((line) => `${describe(manifest)}: ${line}`);
  }
}

const COMPILER_OPTIONS: ts.CompilerOptions = {
  strict: true,
  noEmit: true,
  skipLibCheck: true,
  types: [],
  lib: ['lib.es2022.d.ts'],
  module: ts.ModuleKind.CommonJS,
  moduleResolution: ts.ModuleResolutionKind.Node10,
};

export function unknownFieldProblems(manifests: Manifest[]): string[] {
  // One program for all of them: virtual files beside node_modules, never written.
  const sources = new Map<string, { text: string; manifest: Manifest }>();
  manifests.forEach((manifest, index) => {
    const fileName = join(REPO_ROOT, `.manifest-check-${index}.ts`);
    const type = `I${manifest.kind}`;
    const text =
      `import type { ${type} } from '${modelModule(manifest.apiVersion, manifest.kind)}';\n` +
      `export const manifest: ${type} = ${JSON.stringify(manifest.doc)};\n`;
    sources.set(fileName, { text, manifest });
  });
  const host = ts.createCompilerHost(COMPILER_OPTIONS);
  const getSourceFile = host.getSourceFile.bind(host);
  const fileExists = host.fileExists.bind(host);
  const readFile = host.readFile.bind(host);
  host.getSourceFile = (fileName, language, onError) => {
    const source = sources.get(fileName);
    return source ? ts.createSourceFile(fileName, source.text, language) : getSourceFile(fileName, language, onError);
  };
  host.fileExists = (fileName) => sources.has(fileName) || fileExists(fileName);
  host.readFile = (fileName) => sources.get(fileName)?.text ?? readFile(fileName);
  const program = ts.createProgram([...sources.keys()], COMPILER_OPTIONS, host);
  return ts.getPreEmitDiagnostics(program).map((diagnostic) => {
    const source = diagnostic.file && sources.get(diagnostic.file.fileName);
    const where = source ? describe(source.manifest) : (diagnostic.file?.fileName ?? 'typescript');
    return `${where}: ${ts.flattenDiagnosticMessageText(diagnostic.messageText, ' ')}`;
  });
}
