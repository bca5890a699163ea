/**
 * Shape signatures of Duffel's answers: which JSON paths an answer has, the JSON types seen at each, and the
 * names seen under each `type` key. The fake Duffel (server.ts) is checked against the signatures of
 * Duffel's recorded answers (shapes.test.ts), so that it cannot drift back to a shape Duffel never sends, or
 * miss one Duffel does send (a null designator, a seat service, a passenger without a type).
 *
 * A signature holds structure only: paths, types and the `type` names, never a recorded id, price or name.
 * That is what lets the signatures of Duffel's fixtures be committed (test/fakes/duffel/recorded/), made by:
 *
 *   node --import tsx test/fakes/duffel/shapes.ts write <folder of recorded JSON> <route> <out.json>
 *
 * e.g. `write /tmp/dfx/src/fixtures/offers offer test/fakes/duffel/recorded/offer.json` (likewise `seat-maps`
 * as `seat_maps`, `offer-requests` as `offer_request`), from a checkout of duffelhq/duffel-components.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { basename, join } from 'node:path'
import { fileURLToPath } from 'node:url'

/** The routes signed: GET /air/offers/{id}?return_available_services=true, GET /air/seat_maps, POST /air/offer_requests. */
export type Route = 'offer' | 'seat_maps' | 'offer_request'
export const ROUTES: readonly Route[] = ['offer', 'seat_maps', 'offer_request']

export interface Signature {
  route: string
  /** JSON path (array items as `[]`) → the sorted JSON types seen there. */
  paths: Record<string, string[]>
  /** Every path whose last key is `type` → the sorted string values seen there. */
  values: Record<string, string[]>
}
/** A signature as committed: where it was derived from, beside it. */
export interface RecordedSignature extends Signature {
  source: string
}

type JsonType = 'null' | 'string' | 'number' | 'boolean' | 'object' | 'array'
const jsonType = (v: unknown): JsonType =>
  v === null
    ? 'null'
    : Array.isArray(v)
      ? 'array'
      : typeof v === 'object'
        ? 'object'
        : (typeof v as 'string' | 'number' | 'boolean')

/**
 * The signature of some answers of one route. A body's `data` is unwrapped first (an answer is `{ data }`;
 * a fixture may be the data alone); a list (seat maps: one per segment) counts as that many bodies, so that
 * its paths start at each item (`cabins[].rows[]…`).
 */
export function signature(route: string, bodies: unknown[]): Signature {
  const paths = new Map<string, Set<string>>()
  const values = new Map<string, Set<string>>()
  const seen = (map: Map<string, Set<string>>, key: string, v: string) => {
    map.set(key, (map.get(key) ?? new Set()).add(v))
  }
  const walk = (v: unknown, path: string, key: string | null): void => {
    seen(paths, path, jsonType(v))
    if (key === 'type' && typeof v === 'string') seen(values, path, v)
    if (Array.isArray(v)) for (const item of v) walk(item, `${path}[]`, null)
    else if (v !== null && typeof v === 'object') {
      for (const [k, child] of Object.entries(v)) walk(child, path === '' ? k : `${path}.${k}`, k)
    }
  }
  const roots = bodies.flatMap((body) => {
    const data =
      body !== null && typeof body === 'object' && !Array.isArray(body) && 'data' in body
        ? (body as { data: unknown }).data
        : body
    return Array.isArray(data) ? data : [data]
  })
  for (const root of roots) {
    if (root === null || typeof root !== 'object') continue
    for (const [k, child] of Object.entries(root)) walk(child, k, k)
  }
  const sorted = (map: Map<string, Set<string>>) =>
    Object.fromEntries([...map.keys()].sort().map((k) => [k, [...map.get(k)!].sort()]))
  return { route, paths: sorted(paths), values: sorted(values) }
}

/**
 * Keys whose contents `compare` does not hold the fake to: their shape is the recorder's or the airline's,
 * not a contract the adapter reads.
 * - `_description`: a note duffel-components' fixture script adds to each offer it saves, not Duffel's.
 * - `cabin.amenities` (of a segment's passenger): free-form per airline (wifi, power, seat pitch), absent
 *   or null as the airline pleases, and read by no one here.
 */
export const EXCLUDED: readonly string[] = ['_description', 'cabin.amenities']

const excluded = (path: string) =>
  EXCLUDED.some((x) => {
    const at = path.replace(/\[\]/g, '')
    return at === x || at.startsWith(`${x}.`) || at.endsWith(`.${x}`) || at.includes(`.${x}.`)
  })

/**
 * What the fake's signature lacks of a recorded one: a recorded path it never produces, a recorded type at
 * a path it never produces there, a recorded `type` name it never produces. The fake may produce more
 * (a type or a path Duffel did not happen to send while recording).
 */
export function compare(recorded: Signature, fake: Signature): string[] {
  const problems: string[] = []
  for (const [path, types] of Object.entries(recorded.paths)) {
    if (excluded(path)) continue
    const made = fake.paths[path]
    if (!made) {
      problems.push(`${recorded.route}: the fake never produces ${path} (recorded as ${types.join(' | ')})`)
      continue
    }
    for (const t of types)
      if (!made.includes(t))
        problems.push(`${recorded.route}: ${path} is ${t} in the recordings, never in the fake (${made.join(' | ')})`)
  }
  for (const [path, names] of Object.entries(recorded.values)) {
    if (excluded(path)) continue
    const made = fake.values[path] ?? []
    for (const name of names)
      if (!made.includes(name))
        problems.push(`${recorded.route}: ${path} "${name}" is recorded, never made by the fake`)
  }
  return problems
}

/** The pinned checkout of duffel-components the committed signatures were made from. */
const FIXTURES_COMMIT = '223357b'

function write(folder: string, route: string, out: string): void {
  const bodies = readdirSync(folder)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((f) => JSON.parse(readFileSync(join(folder, f), 'utf8')) as unknown)
  const sig = signature(route, bodies)
  const recorded: RecordedSignature = {
    source: `structure of Duffel's recorded fixtures in duffelhq/duffel-components src/fixtures/${basename(folder)}, commit ${FIXTURES_COMMIT}; no values but the type names (of seat map elements, services, passengers, places, bags and seats)`,
    ...sig,
  }
  // A path a line, so that a new signature reads as a diff of paths.
  const lines = (map: Record<string, string[]>) =>
    Object.entries(map)
      .map(([k, v]) => `    ${JSON.stringify(k)}: ${JSON.stringify(v)}`)
      .join(',\n')
  const { source } = recorded
  writeFileSync(
    out,
    `{\n  "source": ${JSON.stringify(source)},\n  "route": ${JSON.stringify(route)},\n  "paths": {\n${lines(sig.paths)}\n  },\n  "values": {\n${lines(sig.values)}\n  }\n}\n`,
  )
  console.log(`${out}: ${bodies.length} file(s), ${Object.keys(sig.paths).length} paths`)
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const [command, folder, route, out] = process.argv.slice(2)
  if (command !== 'write' || !folder || !route || !out || !(ROUTES as readonly string[]).includes(route)) {
    console.error(
      `usage: node --import tsx test/fakes/duffel/shapes.ts write <folder> <${ROUTES.join('|')}> <out.json>`,
    )
    process.exit(2)
  }
  write(folder, route, out)
}
