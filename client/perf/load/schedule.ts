/** Arrival schedules of the open loop: constant, Poisson or gamma gaps from a seeded generator. */
import { uniformFloat64 } from 'pure-rand/distribution/uniformFloat64';
import { mersenne } from 'pure-rand/generator/mersenne';

/** How the gaps between open-loop sends are drawn. */
export type ArrivalDistribution = 'constant' | 'poisson' | 'gamma';

export const ARRIVAL_DISTRIBUTIONS: readonly ArrivalDistribution[] = ['constant', 'poisson', 'gamma'];

/**
 * Uniform numbers in [0, 1) from a seeded generator: the same seed gives the same schedule.
 * Mersenne Twister, whose seeding mixes small seeds: xoroshiro128+ seeded with 0, 1, 2… first
 * drew 0.9999…, which made the first Poisson gap about 17 mean gaps long.
 */
export function seededRandom(seed: number): () => number {
  if (!Number.isSafeInteger(seed)) throw new Error(`seed must be a whole number (got ${seed})`);
  const rng = mersenne(seed);
  return () => uniformFloat64(rng);
}

/**
 * Gaps between sends, ms, with mean 1000 / rate: all equal; exponential (Poisson arrivals); or
 * gamma with the given shape (shape 1 is Poisson, smaller is burstier, larger more regular —
 * vLLM's `--burstiness`).
 */
export function gapSampler(
  distribution: ArrivalDistribution,
  rate: number,
  random: () => number,
  gammaShape = 1,
): () => number {
  const meanMs = 1000 / rate;
  switch (distribution) {
    case 'constant':
      return () => meanMs;
    case 'poisson':
      return () => -Math.log(1 - random()) * meanMs;
    case 'gamma': {
      if (!(gammaShape > 0)) throw new Error(`gamma shape must be more than 0 (got ${gammaShape})`);
      return () => (gammaSample(gammaShape, random) * meanMs) / gammaShape;
    }
    default:
      throw new Error(
        `distribution must be one of ${ARRIVAL_DISTRIBUTIONS.join(', ')} (got '${String(distribution)}')`,
      );
  }
}

/** Gamma(shape, 1) by Marsaglia and Tsang's method (shape < 1 boosted by U^(1/shape)). */
function gammaSample(shape: number, random: () => number): number {
  if (shape < 1) return gammaSample(shape + 1, random) * Math.pow(1 - random(), 1 / shape);
  const d = shape - 1 / 3;
  const c = 1 / Math.sqrt(9 * d);
  for (;;) {
    let x: number;
    let v: number;
    do {
      x = normalSample(random);
      v = 1 + c * x;
    } while (v <= 0);
    v = v * v * v;
    const u = 1 - random();
    if (Math.log(u) < 0.5 * x * x + d - d * v + d * Math.log(v)) return d * v;
  }
}

/** Standard normal by Box–Muller. */
export function normalSample(random: () => number): number {
  return Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
}
