"""A real pydantic-ai agent, served over AG-UI 1.0 for Baton's tests.

The protocol side is pydantic-ai's own `AGUIAdapter` (pydantic_ai.ui.ag_ui):
it validates the `RunAgentInput`, turns the client's tools into deferred
frontend tools, runs the agent and encodes every event. Only the model is
ours: a `FunctionModel` that decides deterministically, offline, from the
conversation since the last user message, so each delegation on a thread
behaves the same.

Usage: python pydantic_agent.py [port]  (prints `PORT <n>` once it listens on
127.0.0.1; port 0, the default, picks a free one)
POST /<scenario> with a RunAgentInput body; the reply is an SSE stream.
Scenarios: frontend, own_tool, invalid, slow, approval.
"""

import asyncio
import json
import sys

from approval_record import Witness
from serving import CORS, serve
from streams import Streams
from tracing import enabled as tracing_enabled, traced
from pydantic_ai import Agent, DeferredToolRequests, Tool
from pydantic_ai.messages import ModelRequest, ToolReturnPart, UserPromptPart
from pydantic_ai.models.function import AgentInfo, DeltaToolCall, FunctionModel
from pydantic_ai.ui.ag_ui import AGUIAdapter
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.middleware.cors import CORSMiddleware
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse
from starlette.routing import Route

RECIPIENT = "ops@example.com"
SLOW_WORDS = "the quick brown fox jumps over the lazy dog again and again".split()


# --- the agent's own tools ---------------------------------------------------


def web_search(query: str) -> str:
    """Search the web."""
    return "Ship the release"


def send_email(to: str, body: str) -> str:
    """Send an email. Consequential, so a person approves each call first."""
    return f"sent to {to}"


# --- the model -------------------------------------------------------------------


def results_since_user(messages):
    """The tool results of the current delegation: pydantic-ai keeps the
    whole transcript, and several delegations can share one thread."""
    results = []
    for message in messages:
        if not isinstance(message, ModelRequest):
            continue
        for part in message.parts:
            if isinstance(part, UserPromptPart):
                results = []
            elif isinstance(part, ToolReturnPart):
                results.append(part)
    return results


def rename_tool(info: AgentInfo):
    """The client's rename capability, whatever participant offers it."""
    return next((t.name for t in info.function_tools if t.name.endswith("__rename")), None)


async def say(text, size=4):
    for start in range(0, len(text), size):
        yield text[start : start + size]


async def call(name, arguments):
    # Name and arguments in separate chunks, as OpenAI streams a call, so the
    # client sees TOOL_CALL_START, then TOOL_CALL_ARGS.
    yield {0: DeltaToolCall(name=name)}
    text = json.dumps(arguments)
    for start in range(0, len(text), 8):
        yield {0: DeltaToolCall(json_args=text[start : start + 8])}


def text_of(result: ToolReturnPart):
    # The result as the client sent it: pydantic-ai would otherwise wrap a
    # tool message that carries `error` as {"error": ...}.
    return result.model_response_str(wrap_if_error=False)


def reply(scenario, messages, info: AgentInfo):
    """What the model says next, as the chunks it streams."""
    results = results_since_user(messages)
    by_tool = {part.tool_name: part for part in results}
    rename = rename_tool(info)
    if scenario == "frontend":
        if results:
            return say("Renamed: " + text_of(results[-1]))
        return call(rename, {"id": "card-7", "title": "Ship the release"})
    if scenario == "own_tool":
        if rename in by_tool:
            return say("Renamed after searching.")
        if "web_search" in by_tool:
            return call(rename, {"id": "card-7", "title": text_of(by_tool["web_search"])})
        return call("web_search", {"query": "release name"})
    if scenario == "invalid":
        if results:
            return say("Understood: " + text_of(results[-1]))
        return call(rename, {"id": "card-7"})
    if scenario == "slow":
        return slow()
    if scenario == "approval":
        sent = by_tool.get("send_email")
        if sent is None:
            return call("send_email", {"to": RECIPIENT, "body": "The release ships today."})
        # A denial (or cancellation) comes back as a result with outcome "denied".
        if sent.outcome == "success":
            return say(f"Approved: {text_of(sent)}.")
        return say(f"Rejected: the email to {RECIPIENT} was not sent.")
    return say(f"No such scenario: {scenario}")


def model_for(scenario):
    async def stream(messages, info):
        async for chunk in reply(scenario, messages, info):
            yield chunk

    return FunctionModel(stream_function=stream, model_name=f"scripted-{scenario}")


async def slow():
    for index in range(200):
        await asyncio.sleep(0.05)
        yield f"{SLOW_WORDS[index % len(SLOW_WORDS)]} {index} "


SCENARIOS = ("frontend", "own_tool", "invalid", "slow", "approval")
AGENTS = {
    name: Agent(
        model_for(name),
        # The agent's own tools; the client's arrive per request through the adapter.
        tools={
            "own_tool": [Tool(web_search)],
            "approval": [Tool(send_email, requires_approval=True)],
        }.get(name, []),
        # An approval ends the run as DeferredToolRequests, which the adapter
        # streams as RUN_FINISHED with an interrupt outcome.
        output_type=[str, DeferredToolRequests],
    )
    for name in SCENARIOS
}


# --- HTTP ----------------------------------------------------------------------


async def run_agent(request: Request):
    scenario = request.path_params["scenario"]
    body = await request.body()  # cached: the adapter reads it again
    try:
        sent = json.loads(body)
        roles = [m.get("role") for m in sent.get("messages", [])]
        resume = sent.get("resume") or []
        WITNESS.saw(sent)
    except (ValueError, AttributeError):
        roles, resume = ["<unreadable body>"], []
    print(f"pydantic {scenario}: {len(roles)} messages {roles} resume={len(resume)}", file=sys.stderr, flush=True)
    agent = AGENTS.get(scenario)
    if agent is None:
        return PlainTextResponse(f"no scenario {scenario!r}", status_code=404)
    return await AGUIAdapter.dispatch_request(request, agent=agent)


WITNESS = Witness()


async def approval_key(request: Request):
    WITNESS.key = await request.json()
    return JSONResponse({})


async def approval_verdicts(request: Request):
    return JSONResponse(WITNESS.verdicts)


async def streams(request: Request):
    return JSONResponse(STREAMS.ended)


app = Starlette(
    routes=[
        Route("/approval-key", approval_key, methods=["POST"]),
        Route("/approval-verdicts", approval_verdicts, methods=["GET"]),
        Route("/streams", streams, methods=["GET"]),
        Route("/{scenario}", run_agent, methods=["POST"]),
    ],
    middleware=[
        # The browser tests call from another origin.
        Middleware(CORSMiddleware, **CORS)
    ],
)

# The connection of every `/slow` response, watched (GET /streams).
STREAMS = Streams(app)


if __name__ == "__main__":
    if tracing_enabled():
        # pydantic-ai's own spans (the agent run, the model's) join the request's.
        Agent.instrument_all()
    serve(traced(STREAMS))
