// WebSocket echo server (langbench ws-echo): Node.js + uWebSockets.js.
// Usage: node server.js <port>   (listens on 127.0.0.1 only, any path)
// uWebSockets.js itself is published only on GitHub; npm's `uwebsockets`
// package (3.0.6, sha512-pinned in package-lock.json; a third party's copy
// of uWS.js's binaries branch, source commit b8704be9) ships its prebuilt
// addons (uws_linux_x64_<node ABI>.node) and loader: `npm ci` installs it.
'use strict';
const uWS = require('uwebsockets');

const port = Number(process.argv[2] || 8080);

uWS.App()
  .ws('/*', {
    compression: uWS.DISABLED,
    maxPayloadLength: 64 * 1024 * 1024,
    idleTimeout: 120,
    // same bytes, same type (text stays text, binary stays binary)
    message: (ws, message, isBinary) => {
      ws.send(message, isBinary);
    },
  })
  .listen('127.0.0.1', port, (listenSocket) => {
    if (!listenSocket) {
      process.stderr.write(`node-uws: cannot listen on 127.0.0.1:${port}\n`);
      process.exit(1);
    }
    process.stderr.write(`node-uws ws-echo listening on 127.0.0.1:${port}\n`);
  });

// Node would die from SIGTERM with a signal status; exit 0 instead.
for (const sig of ['SIGTERM', 'SIGINT']) {
  process.on(sig, () => process.exit(0));
}
