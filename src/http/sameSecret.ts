/** Compares a presented secret with the expected one in constant time (no early exit on a prefix). */
export const sameSecret = (given: string, expected: string) => {
  const a = new TextEncoder().encode(given)
  const b = new TextEncoder().encode(expected)
  return a.length === b.length && crypto.timingSafeEqual(a, b)
}
