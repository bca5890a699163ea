/**
 * The SDK `theme`'s keys and the `--svc-*` custom property each one sets: with no Lit, so the SDK's option
 * checks (sdk/options.ts, DOM-free) read the same list as ./theme.ts.
 */
import type { Theme } from '../client/types.ts'

export const THEME_PROPS: Record<Exclude<keyof Theme, 'dark'>, string> = {
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

export const THEME_KEYS = Object.keys(THEME_PROPS) as Array<keyof typeof THEME_PROPS>
