/**
 * "Who's travelling": a fieldset per passenger and the contact details, checked here as the backend
 * checks them again (a backend never trusts a form), with every problem beside its input and in a summary.
 */
import { $, announce, find, h } from './dom.ts'
import { loadedTrip } from './state.ts'
import type { Passenger, TravellerForm } from './types.ts'

const SAMPLE = {
  passengers: [
    { first_names: 'Ada', surname: 'Lovelace', date_of_birth: '1985-12-10' },
    { first_names: 'Charles', surname: 'Babbage', date_of_birth: '1981-12-26' },
    { first_names: 'Byron', surname: 'Lovelace', date_of_birth: null },
  ],
  email: 'ada@example.com',
  phone: '+44 20 7946 0000',
}

const DOB_MIN = '1900-01-01'
const today = () => new Date().toISOString().slice(0, 10)

const NAME = /^\p{L}[\p{L}\p{M}' .-]{0,49}$/u
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/
const PHONE = /^\+?[0-9 ()-]{6,20}$/

/** A problem with the form: the input it is about (none: the summary alone says it) and what to do. */
export interface FieldError {
  id: string | null
  message: string
}

const input = (id: string) => $<HTMLInputElement>(id)

function passengerRole(p: Passenger, i: number): string {
  if (p.type === 'infant') {
    const holder = loadedTrip().passengers.findIndex((x) => x.passenger_id === p.on_lap_of)
    return `Passenger ${i + 1}: infant on passenger ${holder + 1}’s lap`
  }
  return `Passenger ${i + 1}: adult${i === 0 ? ' (lead passenger)' : ''}`
}

function field(id: string, label: string, control: HTMLInputElement, hint?: string): HTMLDivElement {
  return h(
    'div',
    { class: 'field' },
    h('label', { for: id }, label),
    hint ? h('p', { class: 'hint', id: `${id}-hint` }, hint) : null,
    h('p', { class: 'field-error', id: `${id}-error`, hidden: true }),
    control,
  )
}

/** One passenger's fieldset: names and date of birth, the lead passenger's filled in by the browser. */
function passengerFields(p: Passenger, i: number): HTMLFieldSetElement {
  const id = (name: string) => `p${i}-${name}`
  const describedBy = (name: string, hint?: boolean) =>
    [hint ? `${id(name)}-hint` : null, `${id(name)}-error`].filter(Boolean).join(' ')
  return h(
    'fieldset',
    { class: 'passenger', 'data-passenger': p.passenger_id },
    h('legend', {}, passengerRole(p, i)),
    h(
      'div',
      { class: 'field-row' },
      field(
        id('first'),
        'First names',
        h('input', {
          id: id('first'),
          name: `${p.passenger_id}.first_names`,
          autocomplete: i === 0 ? 'given-name' : 'off',
          'aria-describedby': describedBy('first'),
          value: p.first_names ?? '',
        }),
      ),
      field(
        id('surname'),
        'Surname',
        h('input', {
          id: id('surname'),
          name: `${p.passenger_id}.surname`,
          autocomplete: i === 0 ? 'family-name' : 'off',
          'aria-describedby': describedBy('surname'),
          value: p.surname ?? '',
        }),
      ),
    ),
    field(
      id('dob'),
      'Date of birth',
      h('input', {
        id: id('dob'),
        name: `${p.passenger_id}.date_of_birth`,
        type: 'date',
        min: DOB_MIN,
        max: today(),
        autocomplete: i === 0 ? 'bday' : 'off',
        'aria-describedby': describedBy('dob', true),
        value: p.date_of_birth ?? '',
      }),
      p.type === 'infant' ? 'Under 2 on the day of the return flight.' : 'Aged 12 or over on the day of travel.',
    ),
  )
}

export function renderPassengerFields(): void {
  $('passenger-fields').replaceChildren(...loadedTrip().passengers.map(passengerFields))
}

function ageOn(birth: string, on: string): number {
  const [by, bm, bd] = birth.split('-').map(Number) as [number, number, number]
  const [y, m, d] = on.split('-').map(Number) as [number, number, number]
  return y - by - (m < bm || (m === bm && d < bd) ? 1 : 0)
}

/** One passenger's values, and their problems added to `errors`. */
function readPassenger(p: Passenger, i: number, departures: string[], errors: FieldError[]) {
  const value = (name: string) => input(`p${i}-${name}`).value.trim().replace(/\s+/g, ' ')
  const first = value('first')
  const surname = value('surname')
  const dob = value('dob')
  const who = i === 0 ? 'passenger 1' : `passenger ${i + 1}`
  if (!first) errors.push({ id: `p${i}-first`, message: `Enter the first names of ${who}` })
  else if (!NAME.test(first))
    errors.push({
      id: `p${i}-first`,
      message: `First names of ${who} may only have letters, spaces, hyphens and apostrophes`,
    })
  if (!surname) errors.push({ id: `p${i}-surname`, message: `Enter the surname of ${who}` })
  else if (!NAME.test(surname))
    errors.push({
      id: `p${i}-surname`,
      message: `Surname of ${who} may only have letters, spaces, hyphens and apostrophes`,
    })
  if (!dob) errors.push({ id: `p${i}-dob`, message: `Enter the date of birth of ${who}` })
  else if (dob > today()) errors.push({ id: `p${i}-dob`, message: `The date of birth of ${who} is in the future` })
  else if (dob < DOB_MIN) errors.push({ id: `p${i}-dob`, message: `Check the year of birth of ${who}` })
  else if (p.type === 'adult' && ageOn(dob, departures[0]!) < 12)
    errors.push({ id: `p${i}-dob`, message: `An adult must be 12 or older on the day of travel (${who})` })
  else if (p.type === 'infant' && ageOn(dob, departures.at(-1)!) >= 2)
    errors.push({ id: `p${i}-dob`, message: `An infant on a lap must be under 2 on the return flight (${who})` })
  return { passenger_id: p.passenger_id, first_names: first, surname, date_of_birth: dob }
}

/** The form's values in the backend's shape, and every problem as {input id, message}. */
export function readForm(): { form: TravellerForm; errors: FieldError[] } {
  const trip = loadedTrip()
  const departures = trip.journeys.map((j) => j.segments[0]!.departure_time.slice(0, 10))
  const errors: FieldError[] = []
  const passengers = trip.passengers.map((p, i) => readPassenger(p, i, departures, errors))
  const email = input('contact-email').value.trim()
  const phone = input('contact-phone').value.trim()
  if (!email) errors.push({ id: 'contact-email', message: 'Enter an email address' })
  else if (!EMAIL.test(email))
    errors.push({ id: 'contact-email', message: 'Enter an email address like name@example.com' })
  if (!phone) errors.push({ id: 'contact-phone', message: 'Enter a mobile phone number' })
  else if (!PHONE.test(phone))
    errors.push({ id: 'contact-phone', message: 'Enter a phone number with digits only, like +44 7700 900123' })
  return { form: { passengers, contact: { email, phone } }, errors }
}

/** A passenger's field as the backend names it → the end of its input's id, and its name to the traveller. */
const INPUT_OF: Record<string, string> = { first_names: 'first', surname: 'surname', date_of_birth: 'dob' }
const FIELD_NAMES: Record<string, string> = {
  first_names: 'first names',
  surname: 'surname',
  date_of_birth: 'date of birth',
}

/** The backend's JSON pointers (/passengers/1/surname, /contact/email) as the inputs they are about. */
export function inputForPath(path: string): string | null {
  const m = /^\/passengers\/(\d+)\/(first_names|surname|date_of_birth)/.exec(path)
  if (m) return `p${m[1]}-${INPUT_OF[m[2]!]}`
  if (path.startsWith('/contact/email')) return 'contact-email'
  if (path.startsWith('/contact/phone')) return 'contact-phone'
  return null
}

/** The field a backend JSON pointer names, as the traveller reads it. */
export function fieldName(path: string): string {
  const m = /^\/passengers\/(\d+)\/(\w+)/.exec(path)
  if (m) return `Passenger ${Number(m[1]) + 1}: ${FIELD_NAMES[m[2]!]}`
  return path.startsWith('/contact/email') ? 'Email address' : path.startsWith('/contact/phone') ? 'Phone number' : path
}

export function clearFieldErrors(): void {
  for (const el of document.querySelectorAll<HTMLElement>('#checkout-form .field-error')) {
    el.hidden = true
    el.textContent = ''
  }
  for (const el of document.querySelectorAll('#checkout-form [aria-invalid]')) el.removeAttribute('aria-invalid')
  $('form-errors').hidden = true
}

export function showFieldErrors(errors: FieldError[]): void {
  clearFieldErrors()
  const list: HTMLLIElement[] = []
  for (const e of errors) {
    const control = e.id ? find(e.id) : null
    if (control) {
      control.setAttribute('aria-invalid', 'true')
      const msg = $(`${e.id}-error`)
      msg.textContent = e.message
      msg.hidden = false
    }
    list.push(
      h(
        'li',
        {},
        control
          ? h(
              'a',
              {
                href: `#${e.id}`,
                onclick: (ev) => {
                  ev.preventDefault()
                  control.focus()
                },
              },
              e.message,
            )
          : e.message,
      ),
    )
  }
  const summary = $('form-errors')
  summary.querySelector('ul')!.replaceChildren(...list)
  summary.hidden = false
  summary.focus()
}

export function fillSample(): void {
  const infantBorn = new Date(Date.now() - 200 * 86_400_000).toISOString().slice(0, 10)
  SAMPLE.passengers.forEach((p, i) => {
    if (!find(`p${i}-first`)) return
    input(`p${i}-first`).value = p.first_names
    input(`p${i}-surname`).value = p.surname
    input(`p${i}-dob`).value = p.date_of_birth ?? infantBorn
  })
  input('contact-email').value = SAMPLE.email
  input('contact-phone').value = SAMPLE.phone
  clearFieldErrors()
  announce('Sample travellers filled in.')
}
