// rollup plugin of rollup.config.mjs (the demo checkout's page script); tested in
// test/scripts/rollup/typescript-as-written.test.ts, and run by the demo's end-to-end tests
// (test/e2e/checkout.test.ts edits the built script by its text, as a seller edits theirs).
import ts from 'typescript'

/**
 * TypeScript to JavaScript as written: the types erased by TypeScript itself (transpileModule), the rest of
 * the code left as it is (its quotes, line breaks and comments), where esbuild would print it anew. For a
 * page script that sellers read as an example, and that a test edits by its text. Only .ts modules; ES2022,
 * as the SDK's builds.
 * @returns {import('rollup').Plugin}
 */
export function typescriptAsWritten() {
  return {
    name: 'svc-typescript-as-written',
    transform(code, id) {
      if (!id.endsWith('.ts')) return null
      const out = ts.transpileModule(code, {
        fileName: id,
        reportDiagnostics: false,
        compilerOptions: {
          target: ts.ScriptTarget.ES2022,
          module: ts.ModuleKind.ESNext,
          verbatimModuleSyntax: true,
          useDefineForClassFields: false,
          sourceMap: true,
        },
      })
      return {
        code: out.outputText.replace(/\n\/\/# sourceMappingURL=\S+\s*$/, '\n'),
        map: out.sourceMapText,
      }
    },
  }
}
