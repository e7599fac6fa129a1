import { newQuickJSWASMModuleFromVariant, type QuickJSSyncVariant, type QuickJSWASMModule, RELEASE_SYNC } from 'quickjs-emscripten';

/**
 * The release-sync variant, loading its Emscripten module through the CommonJS entry. The stock
 * variant uses a native dynamic `import()` of an .mjs file, which CommonJS hosts without ESM
 * support in their VM (Jest without --experimental-vm-modules) cannot run. The specifier is a
 * variable so the compiler turns this `import()` into `require()`.
 */
const EMSCRIPTEN_MODULE: string = '@jitl/quickjs-wasmfile-release-sync/emscripten-module';

const COMMONJS_RELEASE_SYNC: QuickJSSyncVariant = {
  type: 'sync',
  importFFI: RELEASE_SYNC.importFFI,
  importModuleLoader: async () => {
    const loaded: { default: Awaited<ReturnType<QuickJSSyncVariant['importModuleLoader']>> } = await import(EMSCRIPTEN_MODULE);
    return loaded.default;
  },
};

/** A new, independent QuickJS WebAssembly module (one instance per crash-free lifetime). */
export function loadQuickJSModule(): Promise<QuickJSWASMModule> {
  return newQuickJSWASMModuleFromVariant(COMMONJS_RELEASE_SYNC);
}
