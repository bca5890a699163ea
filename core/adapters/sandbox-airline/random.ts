/**
 * Seeded pseudo-randomness for the sandbox. Everything that looks random (seat occupancy, booking
 * references) derives from stable inputs, so the same trip always gets the same answer in every host.
 */

/** FNV-1a, 32 bit. Not for security: it only spreads stable inputs over a seed space. */
export function hashString(text: string, seed = 0x811c9dc5): number {
  let h = seed >>> 0
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i)
    h = Math.imul(h, 0x01000193)
  }
  return h >>> 0
}

/** mulberry32: tiny, fast, and good enough to look random in a seat map. Returns values in [0, 1). */
export function prng(seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}
