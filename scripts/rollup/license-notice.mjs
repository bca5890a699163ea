// rollup plugin of rollup.config.mjs; test: test/scripts/rollup/license-notice.test.ts.

/**
 * Lit's BSD-3-Clause notice once, instead of its eleven per-file copies (dropped by the minifier). At the
 * end, after minification, so no mapping moves.
 * @returns {import('rollup').Plugin}
 */
export function licenseNotice() {
  return {
    name: 'svc-license-notice',
    renderChunk: (code, chunk) =>
      chunk.isEntry
        ? {
            code: `${code}\n/*! svc browser SDK v2.2. Includes Lit and @lit/context, (c) Google LLC, BSD-3-Clause: https://github.com/lit/lit/blob/main/LICENSE */`,
            map: null,
          }
        : null,
  }
}
