/**
 * The SDK `theme` object maps onto `--svc-*` custom properties; components read only those (with
 * defaults in tokens.styles), so a seller can also set them in its own CSS.
 */
import { css, unsafeCSS } from 'lit'
import type { Theme } from '../sdk/types.ts'

const PROPS: Record<Exclude<keyof Theme, 'dark'>, string> = {
  textPrimary: '--svc-color-text',
  textSecondary: '--svc-color-text-secondary',
  background: '--svc-color-background',
  surface: '--svc-color-surface',
  primary: '--svc-color-primary',
  primaryText: '--svc-color-on-primary',
  border: '--svc-color-border',
  radius: '--svc-radius',
  font: '--svc-font',
  spacing: '--svc-space',
  focusRing: '--svc-focus-ring',
  success: '--svc-color-success',
  warning: '--svc-color-warning',
  danger: '--svc-color-danger',
}

export const THEME_KEYS = Object.keys(PROPS) as Array<keyof typeof PROPS>

/** CSS declarations for a theme; values that could break out of a declaration are dropped. */
export function themeDeclarations(theme: Omit<Theme, 'dark'> = {}): string {
  return Object.entries(theme)
    .filter(([k, v]) => k in PROPS && typeof v === 'string' && !/[;{}<>]/.test(v))
    .map(([k, v]) => `${PROPS[k as keyof typeof PROPS]}: ${v};`)
    .join(' ')
}

/** A stylesheet for `:host` with the theme, and its dark variant under prefers-color-scheme. */
export function themeSheet(theme: Theme = {}): string {
  const { dark, ...light } = theme
  const base = `:host { ${themeDeclarations(light)} }`
  return dark ? `${base} @media (prefers-color-scheme: dark) { :host { ${themeDeclarations(dark)} } }` : base
}

/** Defaults of every token; light and dark. Components fall back to these. */
export const tokens = css`
  :host {
    --svc-color-text: #1b1f24;
    --svc-color-text-secondary: #57606a;
    --svc-color-background: #ffffff;
    --svc-color-surface: #f6f8fa;
    --svc-color-primary: #0b5fff;
    --svc-color-on-primary: #ffffff;
    --svc-color-border: #d0d7de;
    --svc-color-success: #1a7f37;
    --svc-color-warning: #9a6700;
    --svc-color-danger: #cf222e;
    --svc-radius: 8px;
    --svc-font: system-ui, -apple-system, 'Segoe UI', Roboto, 'Noto Sans', 'Noto Sans Arabic', sans-serif;
    --svc-space: 8px;
    --svc-focus-ring: 0 0 0 3px rgb(11 95 255 / 45%);
    font-family: var(--svc-font);
    color: var(--svc-color-text);
    box-sizing: border-box;
  }
  :host *, :host *::before, :host *::after { box-sizing: inherit; }
  @media (prefers-color-scheme: dark) {
    :host {
      --svc-color-text: #e6edf3;
      --svc-color-text-secondary: #9da7b3;
      --svc-color-background: #0d1117;
      --svc-color-surface: #161b22;
      --svc-color-primary: #4c8dff;
      --svc-color-on-primary: #0d1117;
      --svc-color-border: #30363d;
      --svc-color-success: #3fb950;
      --svc-color-warning: #d29922;
      --svc-color-danger: #f85149;
    }
  }
  :focus-visible { outline: none; box-shadow: var(--svc-focus-ring); }
  @media (prefers-reduced-motion: reduce) { :host *, :host *::before, :host *::after { animation: none !important; transition: none !important; } }
`

export const themeCss = (theme: Theme = {}) => unsafeCSS(themeSheet(theme))
