/**
 * A node:test reporter: under CI=true a skipped test fails the run. A skip says a check did not run (no
 * PostgreSQL, no curl, no build); on a developer's machine that may be fine, in CI it would hide the check
 * behind a green run, so there the run names every skipped test and exits non-zero. Elsewhere it says nothing.
 */
export default async function* ciSkips(source) {
  const skipped = []
  for await (const event of source) {
    if ((event.type === 'test:pass' || event.type === 'test:fail') && event.data.skip !== undefined) {
      skipped.push(`${event.data.name} (${event.data.skip === true ? 'skipped' : event.data.skip})`)
    }
  }
  if (process.env.CI !== 'true' || skipped.length === 0) return
  yield `\nCI=true: ${skipped.length} skipped test(s) would hide a check; the run fails:\n${skipped.map((s) => `  - ${s}\n`).join('')}`
  process.exitCode = 1
}
