"""A real LangGraph agent, served over AG-UI 1.0 for Baton's tests.

The protocol side is `ag_ui_langgraph` (`LangGraphAgent`, served by
`add_langgraph_fastapi_endpoint`): it merges the client's messages into the
thread the in-memory checkpointer keeps, hands the client's tools to the graph
as state, streams the graph's events and maps `interrupt()` to AG-UI 1.0
interrupts. Only the chat model is ours: a LangChain `BaseChatModel` that
decides deterministically, offline, from the conversation since the last user
message, so each delegation on a thread behaves the same.

Usage: python langgraph_agent.py [port]  (prints `PORT <n>` once it listens on
127.0.0.1; port 0, the default, picks a free one)
POST /<scenario> with a RunAgentInput body; the reply is an SSE stream.
Scenarios: frontend, own_tool, invalid, slow, approval.
"""

import asyncio
import json
import sys
import uuid
from typing import Annotated, Any

from approval_record import Witness
from serving import CORS, serve
from streams import Streams
from ag_ui_langgraph import LangGraphAgent, add_langgraph_fastapi_endpoint
from fastapi import Depends, FastAPI, Request
from fastapi.middleware.cors import CORSMiddleware
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, AIMessageChunk, HumanMessage, ToolMessage
from langchain_core.messages.tool import tool_call_chunk
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult
from langchain_core.tools import InjectedToolCallId, tool
from langchain_core.utils.function_calling import convert_to_openai_tool
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, MessagesState, StateGraph
from langgraph.prebuilt import ToolNode
from langgraph.types import interrupt

RECIPIENT = "ops@example.com"
SLOW_WORDS = "the quick brown fox jumps over the lazy dog again and again".split()
APPROVAL_SCHEMA = {
    "type": "object",
    "properties": {"approved": {"type": "boolean"}, "editedArgs": {"type": "object"}},
    "required": ["approved"],
}


# --- the agent's own tools ---------------------------------------------------


@tool
def web_search(query: str) -> str:
    """Search the web."""
    return "Ship the release"


@tool
def send_email(to: str, body: str, tool_call_id: Annotated[str, InjectedToolCallId]) -> str:
    """Send an email. Consequential, so a person approves each call first."""
    # ag_ui_langgraph copies reason, message, toolCallId and responseSchema
    # from this value onto the AG-UI Interrupt; the resume payload comes back
    # as interrupt()'s return value when the tool runs again.
    answer = interrupt({
        "reason": "tool_call",
        "message": f"Send the email to {to}?",
        "toolCallId": tool_call_id,
        "responseSchema": APPROVAL_SCHEMA,
    })
    if isinstance(answer, dict) and answer.get("approved") is True:
        edited = answer.get("editedArgs") or {}
        return f"sent to {edited.get('to', to)}"
    return f"not sent: the email to {to} was rejected"


OWN_TOOLS = {"own_tool": [web_search], "approval": [send_email]}


# --- the model -------------------------------------------------------------------


def plan(scenario, messages, tool_names):
    """What the model says next: ("text", str), ("call", name, arguments) or ("slow", None)."""
    last_user = max((i for i, m in enumerate(messages) if isinstance(m, HumanMessage)), default=-1)
    current = messages[last_user + 1 :]
    # Tool messages the client sends carry no name: take it from the call.
    names = {c["id"]: c["name"] for m in current if isinstance(m, AIMessage) for c in m.tool_calls}
    results = [m for m in current if isinstance(m, ToolMessage)]
    by_tool = {names.get(m.tool_call_id, m.name): m for m in results}
    rename = next((n for n in tool_names if n.endswith("__rename")), None)
    if scenario == "frontend":
        if results:
            return ("text", "Renamed: " + results[-1].text)
        return ("call", rename, {"id": "card-7", "title": "Ship the release"})
    if scenario == "own_tool":
        if rename in by_tool:
            return ("text", "Renamed after searching.")
        if "web_search" in by_tool:
            return ("call", rename, {"id": "card-7", "title": by_tool["web_search"].text})
        return ("call", "web_search", {"query": "release name"})
    if scenario == "invalid":
        if results:
            return ("text", "Understood: " + results[-1].text)
        return ("call", rename, {"id": "card-7"})
    if scenario == "slow":
        return ("slow", None)
    if scenario == "approval":
        sent = by_tool.get("send_email")
        if sent is None:
            return ("call", "send_email", {"to": RECIPIENT, "body": "The release ships today."})
        if sent.text.startswith("sent to"):
            return ("text", f"Approved: {sent.text}.")
        return ("text", f"Rejected: the email to {RECIPIENT} was not sent.")
    return ("text", f"No such scenario: {scenario}")


class ScriptedChatModel(BaseChatModel):
    scenario: str

    @property
    def _llm_type(self) -> str:
        return "scripted"

    def bind_tools(self, tools, **kwargs):
        return self.bind(tools=[convert_to_openai_tool(t) for t in tools], **kwargs)

    def _chunks(self, messages, tools):
        names = [t["function"]["name"] for t in tools or []]
        kind, *rest = plan(self.scenario, messages, names)
        if kind == "call":
            name, arguments = rest
            # Name and arguments in separate chunks, as OpenAI streams a call:
            # ag_ui_langgraph sends no TOOL_CALL_ARGS for a call that arrives whole.
            yield AIMessageChunk(content="", tool_call_chunks=[
                tool_call_chunk(name=name, args="", id=f"call_{uuid.uuid4().hex[:24]}", index=0)])
            text = json.dumps(arguments)
            for start in range(0, len(text), 8):
                yield AIMessageChunk(content="", tool_call_chunks=[
                    tool_call_chunk(args=text[start : start + 8], index=0)])
        elif kind == "slow":
            for index in range(200):
                yield AIMessageChunk(content=f"{SLOW_WORDS[index % len(SLOW_WORDS)]} {index} ")
        else:
            text = rest[0]
            for start in range(0, len(text), 4):
                yield AIMessageChunk(content=text[start : start + 4])

    def _generate(self, messages, stop=None, run_manager=None, tools=None, **kwargs: Any) -> ChatResult:
        # Only for a caller that does not stream; the graph streams.
        merged = None
        for chunk in self._chunks(messages, tools):
            merged = chunk if merged is None else merged + chunk
        message = AIMessage(content=merged.content, tool_calls=merged.tool_calls)
        return ChatResult(generations=[ChatGeneration(message=message)])

    async def _astream(self, messages, stop=None, run_manager=None, tools=None, **kwargs: Any):
        # LangChain reports each chunk to the callbacks (and so to
        # astream_events, which ag_ui_langgraph reads) as it is yielded.
        for chunk in self._chunks(messages, tools):
            if self.scenario == "slow":
                await asyncio.sleep(0.05)
            yield ChatGenerationChunk(message=chunk)


# --- the graph ---------------------------------------------------------------------


class AgentState(MessagesState):
    # The client's tools: ag_ui_langgraph writes RunAgentInput.tools here.
    tools: list


def build_graph(scenario):
    own = OWN_TOOLS.get(scenario, [])
    own_names = {t.name for t in own}
    model = ScriptedChatModel(scenario=scenario)

    async def chat(state: AgentState, config):
        client_tools = [{"type": "function", "function": {
            "name": t["name"], "description": t.get("description", ""), "parameters": t.get("parameters") or {}}}
            for t in state.get("tools") or []]
        reply = await model.bind_tools([*own, *client_tools]).ainvoke(state["messages"], config)
        return {"messages": [reply]}

    def route(state: AgentState):
        # The agent's own calls run here; the client's end the run, for the
        # client to carry out and answer in its next request.
        calls = state["messages"][-1].tool_calls or []
        return "tools" if any(c["name"] in own_names for c in calls) else END

    graph = StateGraph(AgentState)
    graph.add_node("chat", chat)
    graph.add_edge(START, "chat")
    if own:
        graph.add_node("tools", ToolNode(own))
        graph.add_conditional_edges("chat", route, ["tools", END])
        graph.add_edge("tools", "chat")
    else:
        graph.add_edge("chat", END)
    return graph.compile(checkpointer=InMemorySaver())


# --- HTTP ----------------------------------------------------------------------


async def log_request(request: Request):
    # FastAPI has parsed the body already; this reads its cached copy.
    try:
        sent = json.loads(await request.body())
        roles = [m.get("role") for m in sent.get("messages", [])]
        resume = sent.get("resume") or []
        WITNESS.saw(sent)
    except (ValueError, AttributeError):
        roles, resume = ["<unreadable body>"], []
    scenario = request.url.path.strip("/")
    print(f"langgraph {scenario}: {len(roles)} messages {roles} resume={len(resume)}", file=sys.stderr, flush=True)


WITNESS = Witness()
app = FastAPI()


@app.post("/approval-key")
async def approval_key(request: Request):
    WITNESS.key = await request.json()
    return {}


@app.get("/approval-verdicts")
async def approval_verdicts():
    return WITNESS.verdicts


@app.get("/streams")
async def streams():
    return STREAMS.ended

app.add_middleware(CORSMiddleware, **CORS)
for name in ("frontend", "own_tool", "invalid", "slow", "approval"):
    agent = LangGraphAgent(
        name=name,
        graph=build_graph(name),
        # AG-UI 1.0: end an interrupted run with RUN_FINISHED outcome
        # "interrupt" (besides the legacy CUSTOM "on_interrupt" event, kept on
        # by default); the answer comes back in RunAgentInput.resume. The
        # rest is as deployed by default, RAW events and rawEvent fields too.
        emit_interrupt_outcome=True,
    )
    add_langgraph_fastapi_endpoint(app, agent, path=f"/{name}", dependencies=[Depends(log_request)])

# The connection of every `/slow` response, watched (GET /streams).
STREAMS = Streams(app)


if __name__ == "__main__":
    serve(STREAMS)
