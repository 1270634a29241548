// The OpenTelemetry web SDK as the tracing test page loads it, bundled by
// `otel.test.mjs` with esbuild into built/otel-sdk.js: one copy of the API,
// shared by the SDK and `baton-engine/otel` (the page's import map points
// `@opentelemetry/api` here), as an app's bundler would make it.
export * from "@opentelemetry/api";
export { WebTracerProvider } from "@opentelemetry/sdk-trace-web";
export { SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";
export { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-proto";
export { resourceFromAttributes } from "@opentelemetry/resources";
