"use strict";

function main() {
  const args = typeof Deno !== "undefined" ? Deno.args : process.argv.slice(2);
  const n = args.length > 0 ? parseInt(args[0], 10) : 10000000;
  // the spec's array of N 64-bit floats is JavaScript's Float64Array
  const a = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    a[i] = n - i;
  }

  let gap = n;
  for (;;) {
    gap = Math.floor(gap / 1.3);
    if (gap === 9 || gap === 10) gap = 11;
    if (gap < 1) gap = 1;
    let swapped = false;
    for (let i = 0; i + gap < n; i++) {
      if (a[i] > a[i + gap]) {
        const t = a[i];
        a[i] = a[i + gap];
        a[i + gap] = t;
        swapped = true;
      }
    }
    if (gap === 1 && !swapped) break;
  }

  let bad = 0;
  for (let i = 1; i < n; i++) {
    if (a[i] < a[i - 1]) bad++;
  }
  console.log(`${bad} ${a[0]} ${a[n - 1]}`);
}

main();
