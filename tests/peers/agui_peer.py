"""A real AG-UI 1.0 peer for Baton's tests.

Every event it sends is built with the official AG-UI Python SDK
(`ag-ui-protocol`, `ag_ui.core`) and encoded by its `EventEncoder`; every
request it receives is validated as a `RunAgentInput` by the same SDK. The
protocol code is the SDK's; this file only chooses what to say.

Usage: python3 agui_peer.py [port]  (prints `PORT <n>` once it listens on 127.0.0.1;
port 0, the default, picks a free one)
POST /<scenario>[/<argument>] with a RunAgentInput body; the reply is an SSE stream.
"""

import json
import re
import sys
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from ag_ui.core import (
    Interrupt,
    RunAgentInput,
    RunErrorEvent,
    RunFinishedEvent,
    RunFinishedInterruptOutcome,
    RunStartedEvent,
    StateDeltaEvent,
    StateSnapshotEvent,
    TextMessageContentEvent,
    TextMessageEndEvent,
    TextMessageStartEvent,
    ToolCallArgsEvent,
    ToolCallEndEvent,
    ToolCallResultEvent,
    ToolCallStartEvent,
    ReasoningEndEvent,
    ReasoningMessageContentEvent,
    ReasoningMessageEndEvent,
    ReasoningMessageStartEvent,
    ReasoningStartEvent,
    SubagentFinishedEvent,
    SubagentStartedEvent,
)
from ag_ui.encoder import EventEncoder

TITLE_SCHEMA = {
    "type": "object",
    "properties": {"title": {"type": "string", "minLength": 1}},
    "required": ["title"],
    "additionalProperties": False,
}


TOOL_NAME = re.compile(r"[a-zA-Z0-9_-]{1,64}")


def pieces(text, size):
    return [text[i : i + size] for i in range(0, len(text), size)]


class Peer(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.0"

    def log_message(self, *args):
        pass

    def end_headers(self):
        # The browser tests reach the peer from another origin.
        self.send_header("Access-Control-Allow-Origin", "*")
        self.send_header("Access-Control-Allow-Headers", "Content-Type, Accept, X-Test, traceparent, tracestate")
        self.send_header("Access-Control-Allow-Methods", "POST, OPTIONS")
        super().end_headers()

    def do_OPTIONS(self):
        self.send_response(204)
        self.end_headers()

    def do_POST(self):
        length = int(self.headers.get("Content-Length", "0"))
        body = self.rfile.read(length)
        try:
            run = RunAgentInput.model_validate(json.loads(body))
            # What the function-calling APIs of the major model providers
            # accept as a tool name; an agent forwards our tools to them.
            for tool in run.tools:
                if not TOOL_NAME.fullmatch(tool.name):
                    raise ValueError(f"tool name {tool.name!r} is not ^[a-zA-Z0-9_-]{{1,64}}$")
        except Exception as error:  # the SDK, or a model API's rule, refused what we were sent
            self.send_response(400)
            self.send_header("Content-Type", "text/plain")
            self.end_headers()
            self.wfile.write(str(error).encode())
            return
        broken = history_problem(run.messages)
        if broken or self.path.strip("/") == "refuse":
            # What agent frameworks answer a history a model API would refuse
            # (pydantic-ai: HTTP 500): the call must precede its result.
            self.send_response(500)
            self.send_header("Content-Type", "text/plain")
            self.end_headers()
            self.wfile.write((broken or "Tool call with ID call-0 not found in the history").encode())
            return
        if self.path.strip("/") == "flood":
            # An error whose body never ends: the client reads a bounded
            # start of it, then hangs up.
            self.send_response(503)
            self.send_header("Content-Type", "text/plain")
            self.end_headers()
            try:
                while True:
                    self.wfile.write(b"overloaded " * 1024)
                    self.wfile.flush()
            except (BrokenPipeError, ConnectionResetError):
                return
        encoder = EventEncoder()
        self.send_response(200)
        self.send_header("Content-Type", encoder.get_content_type())
        self.end_headers()
        scenario, _, argument = self.path.strip("/").partition("/")
        arguments = [argument] if argument else []
        try:
            for event in getattr(self, "scenario_" + scenario)(run, *arguments):
                if event is None:  # the server goes away here
                    return
                data = event if isinstance(event, str) else encoder.encode(event)
                self.wfile.write(data.encode())
                self.wfile.flush()
        except (BrokenPipeError, ConnectionResetError):
            pass

    # --- helpers -----------------------------------------------------------

    def start(self, run):
        return RunStartedEvent(thread_id=run.thread_id, run_id=run.run_id)

    def finished(self, run, **kwargs):
        return RunFinishedEvent(thread_id=run.thread_id, run_id=run.run_id, **kwargs)

    def say(self, run, text, message_id="m1", size=4):
        yield TextMessageStartEvent(message_id=message_id, role="assistant")
        for piece in pieces(text, size):
            yield TextMessageContentEvent(message_id=message_id, delta=piece)
        yield TextMessageEndEvent(message_id=message_id)

    def call(self, run, call_id, tool, arguments, size=2):
        yield ToolCallStartEvent(tool_call_id=call_id, tool_call_name=tool)
        for piece in pieces(json.dumps(arguments), size):
            yield ToolCallArgsEvent(tool_call_id=call_id, delta=piece)
        yield ToolCallEndEvent(tool_call_id=call_id)

    def tool_results(self, run):
        """The tool results of the current delegation (after its intent)."""
        return [m for m in current(run.messages) if m.role == "tool"]

    # --- scenarios -----------------------------------------------------------

    def scenario_text(self, run):
        yield self.start(run)
        yield from self.say(run, "Twenty small pieces of text arrive one after another.", size=3)
        yield self.finished(run)

    def scenario_tool(self, run):
        yield self.start(run)
        results = self.tool_results(run)
        if results:
            yield from self.say(run, "Renamed: " + results[-1].content)
        else:
            tool = run.tools[0].name
            yield from self.call(run, "call-1", tool, {"id": "card-7", "title": "Ship the release"}, size=1)
        yield self.finished(run)

    def scenario_interrupt(self, run):
        yield self.start(run)
        if self.tool_results(run):
            yield from self.say(run, "Done.")
        elif run.resume:
            title = run.resume[0].payload["title"]
            yield from self.call(run, "call-2", run.tools[0].name, {"id": "card-7", "title": title})
        else:
            interrupt = Interrupt(
                id="ask-title",
                reason="input_required",
                message="What should the card be called?",
                response_schema=TITLE_SCHEMA,
            )
            yield self.finished(run, outcome=RunFinishedInterruptOutcome(interrupts=[interrupt]))
            return
        yield self.finished(run)

    def scenario_interrupts(self, run):
        # Several interrupts in one RUN_FINISHED; one has expired already.
        # AG-UI 1.0: the next run's resume must answer every one of them.
        asked = {"ask-title", "ask-colour", "stale"}
        yield self.start(run)
        if run.resume:
            covered = {entry.interrupt_id for entry in run.resume}
            if covered != asked:
                yield RunErrorEvent(message=f"resume covers {sorted(covered)}, not {sorted(asked)}", code="uncovered")
                return
            statuses = ", ".join(f"{e.interrupt_id}={e.status}" for e in sorted(run.resume, key=lambda e: e.interrupt_id))
            yield from self.say(run, "Resumed " + statuses)
            yield self.finished(run)
            return
        interrupts = [
            Interrupt(id="ask-title", reason="input_required", message="What should the card be called?",
                      response_schema=TITLE_SCHEMA, expires_at="2999-01-01T00:00:00Z"),
            Interrupt(id="ask-colour", reason="input_required", message="Which colour?"),
            Interrupt(id="stale", reason="input_required", message="Too late to ask",
                      expires_at="1970-01-01T00:00:00Z"),
        ]
        yield self.finished(run, outcome=RunFinishedInterruptOutcome(interrupts=interrupts))

    def scenario_state(self, run):
        yield self.start(run)
        yield StateSnapshotEvent(snapshot={"count": 1, "items": []})
        yield StateDeltaEvent(
            delta=[
                {"op": "replace", "path": "/count", "value": 2},
                {"op": "add", "path": "/items/-", "value": "a"},
            ]
        )
        yield self.finished(run)

    def scenario_error(self, run):
        yield self.start(run)
        yield RunErrorEvent(message="model overloaded", code="overloaded")

    def scenario_drop(self, run):
        yield self.start(run)
        yield TextMessageStartEvent(message_id="m1", role="assistant")
        yield TextMessageContentEvent(message_id="m1", delta="Halfway there")
        # The server goes away mid-stream: no end, no RUN_FINISHED.
        yield None

    def scenario_cut(self, run, at):
        # The tool scenario broken off after its first `at` events: the
        # transport dropped at that event boundary.
        yield from list(self.scenario_tool(run))[: int(at)]
        yield None

    def scenario_slowloris(self, run):
        # A valid stream, one byte a second, until the client gives up.
        encoder = EventEncoder()
        for event in self.scenario_text(run):
            for byte in encoder.encode(event):
                time.sleep(1)
                yield byte

    def scenario_duplicate(self, run):
        # The same tool call started twice: a retransmitted event.
        yield self.start(run)
        yield ToolCallStartEvent(tool_call_id="call-1", tool_call_name=run.tools[0].name)
        yield ToolCallStartEvent(tool_call_id="call-1", tool_call_name=run.tools[0].name)
        yield self.finished(run)

    def scenario_reorder(self, run):
        # A call's arguments before the call started.
        yield self.start(run)
        yield ToolCallArgsEvent(tool_call_id="call-1", delta="{}")
        yield ToolCallStartEvent(tool_call_id="call-1", tool_call_name=run.tools[0].name)
        yield ToolCallEndEvent(tool_call_id="call-1")
        yield self.finished(run)

    def scenario_fork(self, run):
        # A second run starting inside the first: the stream forked.
        yield self.start(run)
        yield from self.say(run, "One")
        yield RunStartedEvent(thread_id=run.thread_id, run_id=run.run_id + "-fork")
        yield self.finished(run)

    def scenario_foreign(self, run):
        # Another conversation's run, on this stream.
        yield RunStartedEvent(thread_id="someone-else", run_id="their-run")
        tool = run.tools[0].name
        yield from self.call(run, "call-1", tool, {"id": "card-7", "title": "Not yours"})
        yield RunFinishedEvent(thread_id="someone-else", run_id="their-run")

    def scenario_malformed(self, run):
        yield self.start(run)
        yield "data: {this is not json\n\n"
        yield self.finished(run)

    def scenario_oversized(self, run):
        yield self.start(run)
        if self.tool_results(run):
            yield from self.say(run, "Understood: " + (self.tool_results(run)[-1].error or ""))
        else:
            yield from self.call(run, "call-9", run.tools[0].name, {"id": "card-7", "title": "x" * 5000}, size=500)
        yield self.finished(run)


    def scenario_subagent(self, run):
        # The agent works through a subagent, which makes the page's call.
        yield self.start(run)
        if self.tool_results(run):
            yield from self.say(run, "The researcher renamed it.")
            yield self.finished(run)
            return
        yield SubagentStartedEvent(subagent_run_id="sa-1", name="researcher")
        tool = run.tools[0].name
        arguments = json.dumps({"id": "card-7", "title": "Researched title"})
        yield ToolCallStartEvent(tool_call_id="call-1", tool_call_name=tool, subagent_run_id="sa-1")
        yield ToolCallArgsEvent(tool_call_id="call-1", delta=arguments, subagent_run_id="sa-1")
        yield ToolCallEndEvent(tool_call_id="call-1", subagent_run_id="sa-1")
        yield SubagentFinishedEvent(subagent_run_id="sa-1")
        yield self.finished(run)

    def scenario_heard(self, run):
        # Proposes a rename; on a later delegation of the thread, says what
        # it heard became of an earlier call that was never carried out.
        yield self.start(run)
        errors = [m.error for m in run.messages if m.role == "tool" and m.error]
        if errors:
            yield from self.say(run, "Heard: " + errors[-1])
        else:
            yield from self.call(run, "call-1", run.tools[0].name, {"id": "card-7", "title": "Rejected title"})
        yield self.finished(run)

    def scenario_traced(self, run):
        # Says back the W3C trace context the request carried, if any.
        yield self.start(run)
        heard = [f"{name}={self.headers.get(name)}" for name in ("traceparent", "tracestate")]
        yield from self.say(run, " ".join(heard), size=64)
        yield self.finished(run)

    def scenario_thread(self, run):
        # Says which thread the run is on and how many delegations (user
        # messages) its transcript holds.
        yield self.start(run)
        intents = sum(1 for m in run.messages if m.role == "user")
        yield from self.say(run, f"Thread {run.thread_id}: {intents} delegations")
        yield self.finished(run)

    def scenario_chatty(self, run):
        # Thirty bytes of text, for a turn limited to fewer.
        yield self.start(run)
        yield from self.say(run, "Thirty bytes of text, exactly.", size=5)
        yield self.finished(run)

    def scenario_reasoning(self, run):
        # A lot of reasoning before a short answer.
        yield self.start(run)
        yield ReasoningStartEvent(message_id="think-1")
        yield ReasoningMessageStartEvent(message_id="think-1", role="reasoning")
        for piece in pieces("Weighing every card on the board. " * 40, 100):
            yield ReasoningMessageContentEvent(message_id="think-1", delta=piece)
        yield ReasoningMessageEndEvent(message_id="think-1")
        yield ReasoningEndEvent(message_id="think-1")
        yield from self.say(run, "Nothing to change.")
        yield self.finished(run)

    def scenario_own_tool(self, run):
        # A tool of the agent's own (never declared by the page), with its
        # result, then one of the page's; the follow-up checks both are in
        # the history it was sent.
        yield self.start(run)
        results = self.tool_results(run)
        if any(m.tool_call_id == "page-1" for m in results):
            mine = [m for m in results if m.tool_call_id == "search-1"]
            calls = [c.function.name for m in current(run.messages) if m.role == "assistant"
                     for c in (m.tool_calls or [])]
            if not mine or "web_search" not in calls:
                yield RunErrorEvent(message=f"my own call is missing from the history: {calls}", code="history")
                return
            yield from self.say(run, "Renamed, after searching: " + mine[0].content)
            yield self.finished(run)
            return
        yield from self.call(run, "search-1", "web_search", {"query": "release name"})
        yield ToolCallResultEvent(message_id="search-1-result", tool_call_id="search-1",
                                  content="Ship the release", role="tool")
        yield from self.call(run, "page-1", run.tools[0].name, {"id": "card-7", "title": "Ship the release"})
        yield self.finished(run)

    def scenario_demo(self, run):
        # A small agent for the demo app (`www/?agent=…/demo`): it renames
        # and moves cards on the task board, through the tools it was sent.
        yield self.start(run)
        results = self.tool_results(run)
        if results:
            # Approve with edits: the person's arguments come back as AG-UI's
            # `editedArgs` with the result.
            try:
                edited = json.loads(results[-1].content).get("editedArgs")
            except (ValueError, AttributeError):
                edited = None
            if isinstance(edited, dict) and "title" in edited:
                yield from self.say(run, "Done, through AG-UI, with your edit: " + edited["title"])
            else:
                yield from self.say(run, "Done, through AG-UI.")
            yield self.finished(run)
            return
        intent = next((m.content for m in reversed(run.messages) if m.role == "user"), "") or ""
        tools = {tool.name for tool in run.tools}
        rename = re.fullmatch(r"rename card (\d+) to (.+)", intent.strip(), re.IGNORECASE)
        move = re.fullmatch(r"move card (\d+) to (todo|doing|done)", intent.strip(), re.IGNORECASE)
        if rename and "tasks__rename" in tools:
            yield from self.say(run, "Renaming it.")
            yield from self.call(run, "call-1", "tasks__rename", {"id": "c" + rename[1], "title": rename[2].strip()}, size=8)
        elif move and "tasks__move" in tools:
            yield from self.say(run, "Moving it.")
            yield from self.call(run, "call-1", "tasks__move", {"id": "c" + move[1], "column": move[2].lower()}, size=8)
        else:
            yield from self.say(run, "Over AG-UI I can rename or move a card.")
        yield self.finished(run)


def current(messages):
    """The messages since the last user message: the current delegation."""
    last = max((i for i, m in enumerate(messages) if m.role == "user"), default=-1)
    return messages[last + 1 :]


def history_problem(messages):
    """What a model API refuses in a history, as agent frameworks check it:
    a tool result whose call no earlier assistant message made, or a call
    left unanswered when the conversation moves on to the person."""
    made, answered, pending = set(), set(), []
    for message in messages:
        if message.role == "assistant":
            for call in message.tool_calls or []:
                made.add(call.id)
                pending.append(call.id)
        elif message.role == "tool":
            if message.tool_call_id not in made:
                return f"Tool call with ID {message.tool_call_id} not found in the history"
            answered.add(message.tool_call_id)
        elif message.role == "user":
            unanswered = [call for call in pending if call not in answered]
            if unanswered:
                return f"Tool calls {unanswered} were never answered"
            made, answered, pending = set(), set(), []
    return None


def main():
    port = int(sys.argv[1]) if len(sys.argv) > 1 else 0
    server = ThreadingHTTPServer(("127.0.0.1", port), Peer)
    print("PORT", server.server_address[1], flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    sys.exit(main())
