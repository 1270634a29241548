// The OpenTelemetry web SDK for the demo's `?otel=URL` (and the package's
// tracing tests), bundled by esbuild into www/built/otel-sdk.js by
// `cargo xtask demo` and `tests/pkg/otel.test.mjs`: one copy of the API,
// shared by the SDK and `baton-engine/otel` (the pages' import maps point
// `@opentelemetry/api` here), as an app's bundler would make it. Loaded only
// when a page asks for tracing.
export * from "@opentelemetry/api";
export { WebTracerProvider } from "@opentelemetry/sdk-trace-web";
export { BatchSpanProcessor, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";
export { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-proto";
export { resourceFromAttributes } from "@opentelemetry/resources";
