// WebSocket echo server (langbench ws-echo): Bun's built-in Bun.serve websocket.
// Usage: bun ws_echo.js <port>   (listens on 127.0.0.1 only, any path)
const port = Number(process.argv[2] || 8080);

Bun.serve({
  hostname: "127.0.0.1",
  port,
  fetch(req, server) {
    if (server.upgrade(req)) return; // any path
    return new Response("WebSocket upgrade expected", { status: 400 });
  },
  websocket: {
    perMessageDeflate: false, // Bun's default, stated explicitly
    // text arrives as a string (sent back as text), binary as a Buffer
    // (sent back as binary): same type, same bytes.
    message(ws, message) {
      ws.send(message);
    },
  },
});

console.error(`bun ws-echo listening on 127.0.0.1:${port}`);

// Bun would die from SIGTERM with a signal status; exit 0 instead.
for (const sig of ["SIGTERM", "SIGINT"]) {
  process.on(sig, () => process.exit(0));
}
