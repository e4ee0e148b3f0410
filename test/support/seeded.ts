/** Seeded randomness for tests that must replay exactly: the same seed gives the same run. */

/** mulberry32: a small, fast 32-bit generator; numbers in [0, 1). */
export const seededRandom = (seed: number): (() => number) => {
  let state = seed >>> 0
  return () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296
  }
}

/** The `n`th number of the sequence of `seed`, without drawing the ones before (for concurrent use). */
export const seededAt = (seed: number, n: number): number => seededRandom((seed * 2_654_435_761 + n) >>> 0)()
