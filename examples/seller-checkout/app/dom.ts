/**
 * The page's few DOM helpers: its elements by id, an element factory, and the live region that reads
 * what changed to screen-reader users.
 */
import type { Problem } from './types.ts'

/** An element of index.html by its id: the page's own ids are always there. */
export const $ = <T extends HTMLElement = HTMLElement>(id: string): T => document.getElementById(id) as T

/** An element that may not be there (a passenger's fields, the error line of an input). */
export const find = (id: string): HTMLElement | null => document.getElementById(id)

/** What `h` takes for an attribute: a value (false, null and undefined leave it out) or, for `on…`, a listener. */
export type Attr = string | number | boolean | null | undefined | ((event: Event) => void)
export type Child = Node | string | null | undefined | false

/** Creates an element: h('p', {class: 'x'}, 'text', child). */
export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs?: Record<string, Attr> | null,
  ...children: Array<Child | Child[]>
): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag)
  for (const [k, v] of Object.entries(attrs ?? {})) {
    if (v === false || v === null || v === undefined) continue
    if (k === 'class') el.className = String(v)
    else if (k.startsWith('on')) el.addEventListener(k.slice(2), v as (event: Event) => void)
    else if (k === 'text') el.textContent = String(v)
    else el.setAttribute(k, v === true ? '' : String(v))
  }
  for (const c of children.flat()) if (c !== null && c !== undefined && c !== false) el.append(c)
  return el
}

/** A spinner and the words beside it, as every "in progress" line of the page shows them. */
export const spinnerLine = (text: string): HTMLElement[] => [
  h('span', { class: 'spinner', 'aria-hidden': 'true' }),
  h('span', {}, text),
]

export function announce(text: string): void {
  const el = $('announcer')
  el.textContent = ''
  // A fresh node, so the same words twice are read twice.
  setTimeout(() => {
    el.textContent = text
  }, 50)
}

/** A refusal's code and request id, small under its message, for a support call. */
export const codeLine = (p: Problem) =>
  h('p', { class: 'muted small' }, `Code: ${p.code}${p.request_id ? ` · reference ${p.request_id}` : ''}`)

/**
 * A part of a box that may be absent, as the page has always handed it to `replaceChildren`, which writes a
 * null as the text "null" (after a message with no code, or under a flight lost with no extras). Kept so
 * that the page's output stays what it was; leaving the part out instead is a fix of its own.
 */
export const nullAsText = <T extends Node>(part: T | null): T | string => part ?? String(null)
