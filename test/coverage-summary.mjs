/**
 * A node:test reporter beside `spec` (test/run-node.ts adds it; plain JavaScript because Node loads
 * reporters before tsx is in place): prints the total line, branch and function coverage of the product
 * code (core, server, mock-server, client, sdk, components; not tests, benches, scripts or examples)
 * from Node's own coverage (--experimental-test-coverage).
 * Node 20 counts a TypeScript line with no JavaScript behind it (a type, an interface, an `import type`)
 * as not covered, so the line figure is a floor; branches and functions are not affected.
 */
import { relative, sep } from 'node:path'

const LAYERS = ['core', 'server', 'mock-server', 'client', 'sdk', 'components']
const PRODUCT = new RegExp(`^(${LAYERS.join('|')})/`)
const pct = (covered, total) => (total === 0 ? '100.00' : ((100 * covered) / total).toFixed(2))

/** @param {AsyncIterable<{ type: string, data: any }>} source */
export default async function* coverageSummary(source) {
  for await (const event of source) {
    if (event.type !== 'test:coverage') continue
    const { files, workingDirectory } = event.data.summary
    const ours = files.filter((f) => PRODUCT.test(relative(workingDirectory, f.path).split(sep).join('/')))
    const sum = (k) => ours.reduce((n, f) => n + f[k], 0)
    const part = (name, covered, total) => `${name} ${pct(sum(covered), sum(total))}% (${sum(covered)}/${sum(total)})`
    yield (
      `\ncoverage of ${LAYERS.join(', ')} (${ours.length} files loaded by the node suites): ` +
      `${part('lines', 'coveredLineCount', 'totalLineCount')}, ${part('branches', 'coveredBranchCount', 'totalBranchCount')}, ` +
      `${part('functions', 'coveredFunctionCount', 'totalFunctionCount')}\n`
    )
  }
}
