// WebSocket echo server (langbench ws-echo): Deno's built-in Deno.serve +
// Deno.upgradeWebSocket.
// Usage: deno run --allow-net=127.0.0.1 ws_echo.ts <port>
//        (listens on 127.0.0.1 only, any path)
const port = Number(Deno.args[0] ?? 8080);

Deno.serve({
  hostname: "127.0.0.1",
  port,
  // Deno.serve prints "Listening on ..." to stdout by default: say it on stderr.
  onListen: ({ hostname, port }) =>
    console.error(`deno ws-echo listening on ${hostname}:${port}`),
}, (req) => {
  if (req.headers.get("upgrade")?.toLowerCase() !== "websocket") {
    return new Response("WebSocket upgrade expected", { status: 400 });
  }
  const { socket, response } = Deno.upgradeWebSocket(req); // any path
  socket.binaryType = "arraybuffer";
  // text arrives as a string (sent back as text), binary as an ArrayBuffer
  // (sent back as binary): same type, same bytes.
  socket.onmessage = (e) => socket.send(e.data);
  return response;
});

// Deno would die from SIGTERM with a signal status; exit 0 instead.
for (const sig of ["SIGTERM", "SIGINT"] as const) {
  Deno.addSignalListener(sig, () => Deno.exit(0));
}
