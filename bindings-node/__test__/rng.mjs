// mulberry32: a seeded generator shared by the random-input tests, so that a
// failure can be replayed from its seed (POLYFLAKE_FUZZ_SEED).
export function rng(seed) {
  let a = seed >>> 0
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
  const below = (n) => Math.floor(next() * n)
  const pick = (xs) => xs[below(xs.length)]
  // A 64-bit value, every bit random.
  const u64 = () => (BigInt(below(2 ** 32)) << 32n) | BigInt(below(2 ** 32))
  return { next, below, pick, u64 }
}
