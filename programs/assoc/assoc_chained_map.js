"use strict";
// assoc with chained built-in Maps (rows node-chained-map, deno-chained-map);
// assoc.js (one Map) is the default JavaScript program.

const HEX = "0123456789aBcDeF";

function rhex(v) {
  let s = "";
  while (v > 0) {
    s += HEX[v % 16];
    v = Math.floor(v / 16);
  }
  return s;
}

function firstDigit(d) {
  while (d > 10) {
    d /= 10;
  }
  return Math.trunc(d);
}

// A V8 Map holds at most 2^24 (16,777,216) entries: one more throws
// "RangeError: Map maximum size exceeded", which N = 12,000,000 (about 23
// million keys) reaches on node and deno. The workaround a JavaScript
// developer reaches for: a chain of built-in Maps, a new one started when the
// current one is full. Hashing and probing stay the built-in Map's; below the
// limit it is one Map (one probe per get or set, like assoc.js); past it, a
// lookup also probes the full Maps, which only costs time.
class ChainedMap {
  constructor() {
    this.maps = [new Map()];
  }

  get(key) {
    for (const m of this.maps) {
      const v = m.get(key);
      if (v !== undefined) return v;
    }
    return undefined;
  }

  set(key, value) {
    const last = this.maps.length - 1;
    for (let i = 0; i < last; i++) {
      if (this.maps[i].has(key)) {
        this.maps[i].set(key, value);
        return this;
      }
    }
    try {
      this.maps[last].set(key, value);
    } catch (e) {
      if (!(e instanceof RangeError)) throw e;
      this.maps.push(new Map([[key, value]]));
    }
    return this;
  }

  *[Symbol.iterator]() {
    for (const m of this.maps) yield* m;
  }
}

function main() {
  const args = typeof Deno !== "undefined" ? Deno.args : process.argv.slice(2);
  const n = args.length > 0 ? parseInt(args[0], 10) : 12000000;
  const m = new ChainedMap();
  let dup1 = 0, dup2 = 0, dup3 = 0;
  for (let z = n; z > 0; z--) {
    const v2 = n - z;
    const v3 = 2 * n - z;

    let key = String(z);
    let old = m.get(key);
    if (old !== undefined) {
      m.set(key, old + v2);
      dup1++;
    } else {
      m.set(key, z);
    }

    key = String(v2);
    old = m.get(key);
    if (old !== undefined) {
      m.set(key, old + v3);
      dup2++;
    } else {
      m.set(key, v2);
    }

    key = rhex(v3);
    old = m.get(key);
    if (old !== undefined) {
      m.set(key, old + z);
      dup3++;
    } else {
      m.set(key, v3);
    }
  }
  console.log(`${dup1} ${dup2} ${dup3}`);

  let total = 0, verify = 0, count = 0;
  for (const [key, value] of m) {
    total += firstDigit(value);
    verify += key.length;
    count++;
  }
  console.log(`${total} ${verify} ${count}`);
}

main();
