/** Focus across shadow roots: the element that really has focus, and the tabbable elements in flat-tree order. */

export function deepActiveElement(root: Document | ShadowRoot = document): Element | null {
  let active = root.activeElement
  while (active?.shadowRoot?.activeElement) active = active.shadowRoot.activeElement
  return active
}

function isTabbable(el: HTMLElement): boolean {
  if (el.tabIndex < 0 || el.hasAttribute('disabled') || el.inert) return false
  if (el instanceof HTMLInputElement && el.type === 'hidden') return false
  return el.checkVisibility({ visibilityProperty: true } as CheckVisibilityOptions)
}

/** Tabbable elements under `root`, walking into shadow roots and through slots as the browser does. */
export function tabbables(root: Element | ShadowRoot): HTMLElement[] {
  const out: HTMLElement[] = []
  const visit = (node: Element) => {
    if (node instanceof HTMLSlotElement) {
      const assigned = node.assignedElements({ flatten: true })
      for (const el of assigned.length ? assigned : Array.from(node.children)) visit(el)
      return
    }
    if (node instanceof HTMLElement && isTabbable(node)) out.push(node)
    // A shadow root replaces the light children in the flat tree; they come back through its slots.
    const children = node.shadowRoot ? node.shadowRoot.children : node.children
    for (const child of Array.from(children)) visit(child)
  }
  for (const child of Array.from(root.children)) visit(child)
  return out
}

/** The parent in the flat tree: the slot a node is assigned to, else its parent, else a shadow root's host. */
function flatParent(n: Node): Node | null {
  return (
    (n instanceof Element || n instanceof Text ? n.assignedSlot : null) ??
    n.parentNode ??
    (n instanceof ShadowRoot ? n.host : null)
  )
}

/** True when `el` is `container` or inside it in the flat tree (through shadow roots and slots). */
export function containsDeep(container: Node, el: Node | null): boolean {
  for (let n: Node | null = el; n; n = flatParent(n)) {
    if (n === container) return true
  }
  return false
}
