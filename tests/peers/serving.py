"""How the framework test servers listen: on 127.0.0.1 at the port given on
the command line (0, the default, picks a free one), announcing `PORT <n>` on
stdout once they do, with CORS open to the browser tests' other origin."""

import socket
import sys

import uvicorn

# Keyword arguments of Starlette's CORSMiddleware: the browser tests call
# from another origin.
CORS = {
    "allow_origins": ["*"],
    "allow_methods": ["GET", "POST", "OPTIONS"],
    "allow_headers": ["Content-Type", "Accept", "traceparent", "tracestate", "X-Test"],
}


def serve(app):
    """Serves the ASGI `app` until killed."""
    port = int(sys.argv[1]) if len(sys.argv) > 1 else 0
    # Bound here, not by uvicorn, so port 0 can be reported before serving:
    # connections wait in the backlog until uvicorn accepts them.
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", port))
    sock.listen(64)
    print(f"PORT {sock.getsockname()[1]}", flush=True)
    # No access log: uvicorn writes it to stdout, which holds only the PORT line.
    config = uvicorn.Config(app, log_level="warning", access_log=False)
    uvicorn.Server(config).run(sockets=[sock])
