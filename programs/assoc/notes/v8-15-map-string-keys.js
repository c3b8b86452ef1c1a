// Deno 2.9.8 (V8 15.0): Maps holding array-index strings ("0", "1", ...) and
// other strings go superlinear; node 20 (V8 11.3) and node 26 (V8 14.6) stay
// linear. The reduction of deno-chained-map's assoc timeout (languages.toml).
// Run: deno run v8-15-map-string-keys.js KEYS [index|other]   (node: the same)
const [keys, only] = globalThis.Deno?.args ?? process.argv.slice(2);
const m = new Map();
const t0 = performance.now(), c0 = process.cpuUsage(); // deno has process too
for (let i = 0; m.size < Number(keys); i++) {
  if (only !== "other") m.set(String(i), i); // an array-index string
  if (only !== "index") m.set("k" + i, i); // any other string
}
const cpu = process.cpuUsage(c0), wall = (performance.now() - t0) / 1e3;
console.log(`${m.size} keys: ${wall.toFixed(2)} s, CPU ${((cpu.user + cpu.system) / 1e6).toFixed(2)} s`);
