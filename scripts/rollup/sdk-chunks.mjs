// rollup plugin of rollup.config.mjs (svc.min.js); test: test/scripts/rollup/sdk-chunks.test.ts.
import { createHash } from 'node:crypto'
import { rmSync } from 'node:fs'

/** A chunk's name as rollup writes it: a placeholder of the length of the digest that replaces it (sdkChunks). */
export const CHUNK_FILE_NAMES = `chunks/[name]-[hash:21]${'_'.repeat(22)}.js`
export const DIGEST_PLACEHOLDER = /-([A-Za-z0-9_-]{21}_{22})\.js$/

/**
 * svc.min.js's chunks (dist/javascript/v2.2/chunks): old ones are removed before a build; the build fails
 * if the bundle itself would need one to start, since the loader runs the bundle at once; and each chunk
 * is named by the SHA-256 of its bytes as written (base64url), which sdk/chunk-loader.ts also uses as the
 * chunk's Subresource Integrity, so pinning svc.min.js pins its chunks. The digest replaces a placeholder
 * of its length, so svc.min.js's source map stays right; a chunk's own map is named apart
 * (`sourcemapFileNames`), since a chunk naming itself could not be named by its own digest.
 * @param {{ chunksDir: string }} opts `chunksDir`: where the chunks are written (emptied at the start of a build)
 * @returns {import('rollup').Plugin}
 */
export function sdkChunks({ chunksDir }) {
  return {
    name: 'svc-sdk-chunks',
    buildStart() {
      rmSync(chunksDir, { recursive: true, force: true })
    },
    generateBundle(_, bundle) {
      const chunks = Object.values(bundle).filter((c) => c.type === 'chunk')
      const entry = chunks.find((c) => c.isEntry)
      if (entry.imports.length > 0)
        this.error(
          `${entry.fileName} imports ${entry.imports.join(', ')} statically: the bundle must start without a chunk`,
        )
      for (const chunk of chunks.filter((c) => !c.isEntry)) {
        const placeholder = DIGEST_PLACEHOLDER.exec(chunk.fileName)?.[1]
        if (!placeholder)
          this.error(`${chunk.fileName}: a chunk's name must end in the digest placeholder (CHUNK_FILE_NAMES)`)
        // Only the bundle names the chunks (a chunk naming another would change that one's digest).
        if ([...chunk.imports, ...chunk.dynamicImports].some((f) => f !== entry.fileName))
          this.error(`${chunk.fileName} imports another chunk: name the chunks in their order`)
        const digest = createHash('sha256').update(chunk.code).digest('base64url')
        delete bundle[chunk.fileName]
        chunk.fileName = chunk.fileName.replace(placeholder, digest)
        bundle[chunk.fileName] = chunk
        const map = chunk.sourcemapFileName && bundle[chunk.sourcemapFileName]
        if (map?.type === 'asset') map.source = String(map.source).replace(placeholder, digest)
        if (!entry.code.includes(placeholder)) this.error(`${entry.fileName} does not name ${chunk.fileName}`)
        entry.code = entry.code.replaceAll(placeholder, digest)
      }
    },
  }
}
