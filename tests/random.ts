/** Seeded randomness for the fuzz tests: a run is replayed from its seed. */

/** mulberry32: small, fast, and the same sequence for the same seed. */
export class Rng {
  #state: number;
  constructor(seed: number) {
    this.#state = seed >>> 0;
  }
  next(): number {
    let t = (this.#state = (this.#state + 0x6d2b79f5) >>> 0);
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  int(n: number): number {
    return Math.floor(this.next() * n);
  }
  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)];
  }
  chance(p: number): boolean {
    return this.next() < p;
  }
  string(length: number, alphabet: string): string {
    let s = "";
    for (let i = 0; i < length; i++) s += alphabet[this.int(alphabet.length)];
    return s;
  }
  bytes(length: number): Uint8Array<ArrayBuffer> {
    const out = new Uint8Array(length);
    for (let i = 0; i < length; i++) out[i] = this.int(256);
    return out;
  }
}
