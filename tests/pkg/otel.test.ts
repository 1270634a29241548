// Type checks of `baton-engine/otel` and the engine's tracing hook, against
// `@opentelemetry/api`'s own types: `tsc --noEmit` fails if they disagree.

import type { Engine, TraceContext } from "baton-engine";
import { instrument, type Instrumentation, type InstrumentOptions } from "baton-engine/otel";
import { trace } from "@opentelemetry/api";

declare const engine: Engine;

const options: InstrumentOptions = { tracerProvider: trace.getTracerProvider(), captureContent: false };
const tracing: Instrumentation = instrument(engine, options);
tracing.detach();
instrument(engine);
// @ts-expect-error an option instrument does not know
instrument(engine, { capture: true });
// @ts-expect-error a tracer is not a tracer provider
instrument(engine, { tracerProvider: trace.getTracer("x") });

engine.traceTurns((run, turn): TraceContext => ({ traceparent: `00-${run}-${turn}`, tracestate: "a=b" }));
engine.traceTurns(() => null);
engine.traceTurns(null);
// @ts-expect-error a trace context names its traceparent
engine.traceTurns(() => ({ tracestate: "a=b" }));
const actor: string = engine.actorName;
void actor;
