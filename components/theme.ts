/**
 * The SDK `theme` object maps onto `--svc-*` custom properties; components read only those (with
 * defaults in tokens.styles), so a seller can also set them in its own CSS.
 */
import { css, unsafeCSS } from 'lit'
import type { Theme } from '../client/types.ts'
import { THEME_PROPS } from './theme-props.ts'

export { THEME_KEYS } from './theme-props.ts'

/** CSS declarations for a theme; values that could break out of a declaration are dropped. */
export function themeDeclarations(theme: Omit<Theme, 'dark'> = {}): string {
  return Object.entries(theme)
    .filter(([k, v]) => k in THEME_PROPS && typeof v === 'string' && !/[;{}<>]/.test(v))
    .map(([k, v]) => `${THEME_PROPS[k as keyof typeof THEME_PROPS]}: ${v};`)
    .join(' ')
}

/** A stylesheet for `:host` with the theme, and its dark variant under prefers-color-scheme. */
export function themeSheet(theme: Theme = {}): string {
  const { dark, ...light } = theme
  const base = `:host { ${themeDeclarations(light)} }`
  return dark ? `${base} @media (prefers-color-scheme: dark) { :host { ${themeDeclarations(dark)} } }` : base
}

export const themeCss = (theme: Theme = {}) => unsafeCSS(themeSheet(theme))

/**
 * The tokens as every element reads them. Declaring the `--svc-*` defaults on each `:host` would let a
 * nested element reset the theme that `<svc-upsell>` (or the seller's CSS) set on an ancestor, so these
 * rules declare nothing under `--svc-*`: each element reads the inherited token, with its default as the
 * fallback, into a private `--_*` alias and styles itself with the alias. A theme set anywhere above
 * therefore reaches every nested element. With them, what every element needs alike: box sizing, the
 * focus ring, reduced motion, and the visually hidden text (`.sr-only`).
 */
export const tokenVars = css`
  :host {
    --_text: var(--svc-color-text, #1b1f24);
    --_text-2: var(--svc-color-text-secondary, #57606a);
    --_bg: var(--svc-color-background, #ffffff);
    --_surface: var(--svc-color-surface, #f6f8fa);
    --_primary: var(--svc-color-primary, #0b5fff);
    --_on-primary: var(--svc-color-on-primary, #ffffff);
    --_border: var(--svc-color-border, #d0d7de);
    --_success: var(--svc-color-success, #1a7f37);
    --_warning: var(--svc-color-warning, #9a6700);
    --_danger: var(--svc-color-danger, #cf222e);
    --_radius: var(--svc-radius, 8px);
    --_font: var(--svc-font, system-ui, -apple-system, 'Segoe UI', Roboto, 'Noto Sans', 'Noto Sans Arabic', sans-serif);
    --_space: var(--svc-space, 8px);
    --_focus: var(--svc-focus-ring, 0 0 0 3px rgb(11 95 255 / 45%));
    font-family: var(--_font);
    color: var(--_text);
    box-sizing: border-box;
    -webkit-text-size-adjust: 100%;
  }
  :host *, :host *::before, :host *::after { box-sizing: inherit; }
  @media (prefers-color-scheme: dark) {
    :host {
      --_text: var(--svc-color-text, #e6edf3);
      --_text-2: var(--svc-color-text-secondary, #9da7b3);
      --_bg: var(--svc-color-background, #0d1117);
      --_surface: var(--svc-color-surface, #161b22);
      --_primary: var(--svc-color-primary, #4c8dff);
      --_on-primary: var(--svc-color-on-primary, #0d1117);
      --_border: var(--svc-color-border, #30363d);
      --_success: var(--svc-color-success, #3fb950);
      --_warning: var(--svc-color-warning, #d29922);
      --_danger: var(--svc-color-danger, #f85149);
      --_focus: var(--svc-focus-ring, 0 0 0 3px rgb(76 141 255 / 60%));
    }
  }
  /* Text for assistive technology only (the live regions, words a symbol or a struck price stands for). */
  .sr-only {
    position: absolute; inline-size: 1px; block-size: 1px; padding: 0; margin: -1px;
    overflow: hidden; clip-path: inset(50%); white-space: nowrap; border: 0;
  }
  /* The transparent outline keeps a visible ring in forced-colors mode, where box-shadow is dropped. */
  :focus-visible { outline: 2px solid transparent; outline-offset: 2px; box-shadow: var(--_focus); }
  @media (prefers-reduced-motion: reduce) {
    :host *, :host *::before, :host *::after { animation-duration: 0s !important; animation-iteration-count: 1 !important; transition: none !important; }
  }
`

/** The sheets adoptTheme made: a new theme replaces the last one, and leaves the root's other sheets (the dialog frames') be. */
const themeSheets = new WeakSet<CSSStyleSheet>()

/** Adopts `themeCss(theme)` after the root's styles (a theme is per instance, static styles are per class). */
export function adoptTheme(root: ShadowRoot, theme: Theme | undefined) {
  // (A browser without constructable stylesheets, where Lit writes <style> elements, has no list to add to.)
  if (!root.adoptedStyleSheets) return
  const sheets = root.adoptedStyleSheets.filter((s) => !themeSheets.has(s))
  const sheet = theme && themeCss(theme).styleSheet
  if (sheet) themeSheets.add(sheet)
  root.adoptedStyleSheets = sheet ? [...sheets, sheet] : sheets
}
