// Type declarations of `baton-engine/otel`: every delegation as an OpenTelemetry trace
// (`@opentelemetry/api`, an optional peer dependency).

import type { TracerProvider } from "@opentelemetry/api";
import type { Engine } from "./baton.js";

/** Options of `instrument`; unknown fields throw a `TypeError`. */
export interface InstrumentOptions {
  /** Where spans go; the global tracer provider (`trace.getTracerProvider()`) by default. */
  tracerProvider?: TracerProvider;
  /**
   * Puts what the person typed and what components returned on spans: the intent
   * (`baton.intent`), each call's arguments and result (`gen_ai.tool.call.arguments`,
   * `gen_ai.tool.call.result`), the acting party's words (`baton.said` events). `false` by default:
   * no span carries content.
   */
  captureContent?: boolean;
}

/** What `instrument` returns. */
export interface Instrumentation {
  /** Stops tracing this engine; the spans still open end now (`baton.detached`). */
  detach(): void;
}

/**
 * Traces every run of `engine` from now on, in the GenAI semantic conventions: an `invoke_agent`
 * span per run, a `turn` span per turn of the acting party (its context sent to the agent as W3C
 * `traceparent` / `tracestate`), an `execute_tool` span per capability call, and the person's
 * decisions as `baton.*` events. Actor references never go on a span (AG-33).
 */
export function instrument(engine: Engine, options?: InstrumentOptions): Instrumentation;
