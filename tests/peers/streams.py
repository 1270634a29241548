"""What a test server saw of its long streams: whether each response to a
`/slow` request ran to its end or was cut off by the client going away
(`closed`), and how many body chunks went out before. The framework tests
read it (GET /streams) to check that stopping a run in the page closes the
HTTP stream on the server too. An ASGI middleware, so it watches the
connection whatever the framework does with its own work."""


class Streams:
    def __init__(self, app):
        self.app = app
        self.ended = []

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http" or scope["method"] != "POST" or not scope["path"].endswith("/slow"):
            return await self.app(scope, receive, send)
        seen = {"chunks": 0, "done": False}

        def end(closed):
            if not seen["done"]:
                seen["done"] = True
                self.ended.append({"closed": closed, "chunks": seen["chunks"]})

        async def watched_receive():
            message = await receive()
            if message["type"] == "http.disconnect":
                end(True)
            return message

        async def watched_send(message):
            try:
                await send(message)
            except OSError:
                # The client went away: writing to it fails.
                end(True)
                raise
            if message["type"] == "http.response.body":
                seen["chunks"] += 1
                if not message.get("more_body", False):
                    end(False)

        try:
            await self.app(scope, watched_receive, watched_send)
        finally:
            end(True)
