"""WebSocket echo server (langbench ws-echo): Python asyncio + `websockets`.

Usage: python ws_echo.py <port>   (listens on 127.0.0.1 only, any path)
"""
import asyncio
import signal
import sys

from websockets.asyncio.server import serve


async def echo(websocket):
    # text frames arrive as str and are sent back as text, binary as bytes
    # and sent back as binary: same type, same bytes.
    async for message in websocket:
        await websocket.send(message)


async def main(port):
    loop = asyncio.get_running_loop()
    stop = loop.create_future()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set_result, None)
    async with serve(
        echo,
        "127.0.0.1",
        port,
        compression=None,  # like the other servers (websockets enables permessage-deflate by default)
        backlog=4096,      # asyncio's default backlog is only 100
        close_timeout=1,   # on shutdown, wait at most 1 s (default 10 s) for clients' closing handshakes
    ):
        print(f"python-websockets ws-echo listening on 127.0.0.1:{port}", file=sys.stderr)
        await stop
        # leaving the block closes the server and its connections (going away)


if __name__ == "__main__":
    asyncio.run(main(int(sys.argv[1]) if len(sys.argv) > 1 else 8080))
