// WebSocket echo server (langbench ws-echo): Node.js + the `ws` package.
// Usage: node ws_echo.js <port>   (listens on 127.0.0.1 only, any path)
'use strict';
const { WebSocketServer } = require('ws');

const port = Number(process.argv[2] || 8080);

const wss = new WebSocketServer({
  host: '127.0.0.1',
  port,
  backlog: 4096,
  perMessageDeflate: false, // the ws default for servers, stated explicitly
});

wss.on('connection', (ws) => {
  ws.on('message', (data, isBinary) => {
    // same bytes, same type (text stays text, binary stays binary)
    ws.send(data, { binary: isBinary });
  });
  ws.on('error', () => {}); // a broken client must not crash the server
});

wss.on('listening', () => {
  process.stderr.write(`node-ws ws-echo listening on 127.0.0.1:${port}\n`);
});

// Node would die from SIGTERM with a signal status; exit 0 instead.
for (const sig of ['SIGTERM', 'SIGINT']) {
  process.on(sig, () => process.exit(0));
}
