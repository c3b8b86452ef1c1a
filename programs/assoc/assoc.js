"use strict";

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

function main() {
  const args = typeof Deno !== "undefined" ? Deno.args : process.argv.slice(2);
  const n = args.length > 0 ? parseInt(args[0], 10) : 12000000;
  const m = new Map();
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
