/**
 * The design tokens, element by element, as Chromium parsed the styles (the CSSOM, not the source text):
 * every `--svc-*` custom property an element's stylesheets read (its static styles, and the sheets its
 * shadow root adopts once drawn: the dialog frames' in card and modal display) is a documented token, one
 * with an @cssproperty in custom-elements.json, which is where a seller finds them (THEME_PROPS, the SDK
 * theme's tokens, are all among them); each element reads every token it documents; and no documented
 * token is read by no element. (The private `--_*` aliases: test/components/theme.test.ts.)
 */
import { expect } from '@esm-bundle/chai'
import type { LitElement } from 'lit'
import '../../components/index.ts'
import { THEME_PROPS } from '../../components/theme-props.ts'
import { cleanup, settle } from '../browser/helpers.ts'

afterEach(cleanup)

interface Manifest {
  modules: Array<{
    declarations?: Array<{ tagName?: string; customElement?: boolean; cssProperties?: Array<{ name: string }> }>
  }>
}

/** Each element of the manifest (npm run build:manifest writes it; the test server serves the repository) with the tokens it documents. */
async function documentedByElement(): Promise<Map<string, Set<string>>> {
  const res = await fetch('/custom-elements.json')
  expect(res.ok, 'custom-elements.json (npm run build:manifest)').to.be.true
  const manifest = (await res.json()) as Manifest
  const out = new Map<string, Set<string>>()
  for (const d of manifest.modules.flatMap((m) => m.declarations ?? [])) {
    if (d.customElement && d.tagName) out.set(d.tagName, new Set((d.cssProperties ?? []).map((p) => p.name)))
  }
  return out
}

/** The `--svc-*` tokens read (`var(--svc-…)`) by the rules of these sheets, nested rules (@media, @supports, @container) included. */
function tokensOf(sheets: Iterable<CSSStyleSheet>): Set<string> {
  const found = new Set<string>()
  const walk = (rules: CSSRuleList) => {
    for (const rule of Array.from(rules)) {
      // The declarations as serialized: a shorthand reading var() (`margin: var(--svc-space)`) is kept
      // whole there, while each of its longhands' values reads as empty.
      if (rule instanceof CSSStyleRule)
        for (const m of rule.style.cssText.matchAll(/var\(\s*(--svc-[\w-]+)/g)) found.add(m[1]!)
      if ('cssRules' in rule) walk((rule as CSSGroupingRule).cssRules)
    }
  }
  for (const sheet of sheets) walk(sheet.cssRules)
  return found
}

/**
 * An element's stylesheets: its class's static styles (Lit's finalized `elementStyles`), and what its shadow
 * root has adopted once connected, in card display for the views that have one (so the dialog frames' sheets,
 * adopted when a view first draws its card, are counted).
 */
async function sheetsOf(tag: string): Promise<CSSStyleSheet[]> {
  const ctor = customElements.get(tag) as unknown as typeof LitElement | undefined
  expect(ctor, `${tag} is registered by components/index.ts`).to.exist
  const sheets = new Set<CSSStyleSheet>()
  for (const s of ctor!.elementStyles) {
    const sheet = s instanceof CSSStyleSheet ? s : s.styleSheet
    expect(sheet, `${tag}: a constructable stylesheet`).to.exist
    sheets.add(sheet!)
  }
  const main = document.createElement('main')
  document.body.append(main)
  const el = document.createElement(tag)
  if ('display' in el) el.setAttribute('display', 'card')
  main.append(el)
  await settle(el)
  for (const sheet of el.shadowRoot?.adoptedStyleSheets ?? []) sheets.add(sheet)
  main.remove()
  return [...sheets]
}

describe('design tokens, through the CSSOM', () => {
  it('every element reads documented tokens only, reads every token it documents, and every documented token is read', async () => {
    const documented = await documentedByElement()
    const tags = [...documented.keys()].sort()
    expect(tags).to.include.members([
      'svc-bag-upsell',
      'svc-basket',
      'svc-modal',
      'svc-option-card',
      'svc-price',
      'svc-seat-map',
      'svc-spinner',
      'svc-upsell',
    ])
    const all = new Set([...documented.values()].flatMap((s) => [...s]))
    // The SDK theme's keys set tokens a seller finds documented.
    expect(
      Object.values(THEME_PROPS).filter((t) => !all.has(t)),
      'theme tokens without an @cssproperty',
    ).to.deep.equal([])

    const used = new Set<string>()
    const undocumented: string[] = []
    const unread: string[] = []
    for (const tag of tags) {
      const reads = tokensOf(await sheetsOf(tag))
      for (const t of reads) {
        used.add(t)
        if (!all.has(t)) undocumented.push(`${t} (${tag})`)
      }
      for (const t of documented.get(tag)!) if (!reads.has(t)) unread.push(`${t} (${tag})`)
    }
    expect(used.size, 'the styles read the tokens').to.be.greaterThan(10)
    expect(undocumented, 'tokens an element reads that no @cssproperty documents').to.deep.equal([])
    expect(unread, 'tokens an element documents but its styles never read').to.deep.equal([])
    expect(
      [...all].filter((t) => !used.has(t)),
      'documented tokens no element reads',
    ).to.deep.equal([])
  })

  it('finds a token in nested rules, and only var() reads (a declaration of a token is no use of it)', () => {
    const sheet = new CSSStyleSheet()
    sheet.replaceSync(
      ':host { --svc-declared: 1px; color: var(--svc-a, red) } @media (min-width: 1px) { .x { margin: var(--svc-b) } } @supports (display: grid) { .y { --_z: var(--svc-c, var(--svc-d)) } }',
    )
    expect([...tokensOf([sheet])].sort()).to.deep.equal(['--svc-a', '--svc-b', '--svc-c', '--svc-d'])
  })
})
