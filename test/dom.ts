/**
 * DOM queries through shadow roots and slots, for the Chromium suites (the *.browser.test.ts under test/) and
 * the stories' checks (stories/), which both look at the widgets as a traveller sees them.
 */

export function deepAll<T extends Element = HTMLElement>(root: Element | ShadowRoot | Document, selector: string): T[] {
  const out: T[] = []
  const walk = (node: Element | ShadowRoot | Document) => {
    for (const el of Array.from(node.querySelectorAll('*'))) {
      if (el.matches(selector)) out.push(el as T)
      if (el.shadowRoot) walk(el.shadowRoot)
    }
  }
  if (root instanceof Element && root.shadowRoot) walk(root.shadowRoot)
  walk(root)
  return out
}

export function deep<T extends Element = HTMLElement>(
  root: Element | ShadowRoot | Document,
  selector: string,
): T | null {
  return deepAll<T>(root, selector)[0] ?? null
}

/** The first button under `root` whose text or accessible label contains `text`. */
export function button(root: Element, text: string | RegExp): HTMLButtonElement | null {
  const match = (s: string | null) => s !== null && (typeof text === 'string' ? s.includes(text) : text.test(s))
  return (
    deepAll<HTMLButtonElement>(root, 'button').find(
      (b) => match(b.getAttribute('aria-label')) || match(b.textContent?.trim() ?? null),
    ) ?? null
  )
}

/** The visible text of `el` including its shadow content (slots followed), whitespace collapsed. */
export function textOf(el: Element): string {
  const parts: string[] = []
  const walk = (n: Node) => {
    if (n.nodeType === Node.TEXT_NODE) {
      parts.push(n.textContent ?? '')
      return
    }
    if (!(n instanceof Element)) return
    if (n instanceof HTMLStyleElement) return
    if (n instanceof HTMLSlotElement) {
      n.assignedNodes({ flatten: true }).forEach(walk)
      return
    }
    const kids = n.shadowRoot ? n.shadowRoot.childNodes : n.childNodes
    kids.forEach(walk)
  }
  walk(el)
  return parts.join(' ').replace(/\s+/g, ' ').trim()
}

/**
 * Waits for the finite animations and transitions under `el`. Spinners run forever, and scroll-driven
 * animations (the seat map's faded edges) follow the scroll position rather than time: both are skipped.
 */
export async function animationsDone(el: Element) {
  // document.getAnimations() leaves out shadow trees in Chromium: ask every element.
  const animations = [el, ...deepAll(el, '*')].flatMap((e) => e.getAnimations())
  const timed = (a: Animation) =>
    (!a.timeline || a.timeline instanceof DocumentTimeline) && a.effect?.getComputedTiming().iterations !== Infinity
  await Promise.all(animations.filter(timed).map((a) => a.finished.catch(() => {})))
}

/**
 * What sticks out of `el` at the width it has (the element itself when it scrolls sideways, else each
 * descendant past its edges), as `tag.class` names: empty when nothing needs horizontal scrolling.
 */
export function overflowing(el: Element): string[] {
  const box = el.getBoundingClientRect()
  if (el.scrollWidth > (el.clientWidth || Math.ceil(box.width)))
    return [`${el.localName} scrollWidth ${el.scrollWidth}`]
  return deepAll(el, '*')
    .filter((e) => {
      const r = e.getBoundingClientRect()
      return r.width > 0 && (r.right > box.right + 1 || r.left < box.left - 1)
    })
    .map((e) => `${e.localName}.${e.className}`)
}
