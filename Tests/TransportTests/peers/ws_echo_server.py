"""WebSocket echo server peer for TransportTests (the Swift client drives it).

usage: ws_echo_server.py [CERT KEY]   prints "PORT <n>" then serves until stdin closes.
Replies to a message b"close-me" with close code 4001 reason "bye".
"""
import asyncio, ssl, sys
import websockets


async def echo(conn):
    async for msg in conn:
        if msg == b"close-me":
            await conn.close(4001, "bye")
            return
        await conn.send(msg)


async def main():
    ctx = None
    if len(sys.argv) == 3:
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.load_cert_chain(sys.argv[1], sys.argv[2])
    async with websockets.serve(echo, "127.0.0.1", 0, ssl=ctx, max_size=None) as server:
        port = server.sockets[0].getsockname()[1]
        print(f"PORT {port}", flush=True)
        await asyncio.get_running_loop().run_in_executor(None, sys.stdin.read)


asyncio.run(main())
