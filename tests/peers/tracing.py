"""OpenTelemetry for the test servers, when a test asks for it.

With OTEL_EXPORTER_OTLP_TRACES_ENDPOINT set, the server exports its spans
there over OTLP/HTTP (the OpenTelemetry Python SDK, configured from the
standard OTEL_* variables), and every request is a SERVER span that
continues the caller's W3C trace context (`traceparent`), as a deployed
agent server instrumented with OpenTelemetry does. Without it, nothing
changes."""

import os


def enabled():
    return bool(os.environ.get("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"))


def traced(app):
    """`app`, its requests traced when tracing is asked for."""
    if not enabled():
        return app
    from opentelemetry import trace
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
    from opentelemetry.instrumentation.asgi import OpenTelemetryMiddleware
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor

    # OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES name the service.
    provider = TracerProvider(resource=Resource.create())
    # Each span is exported as it ends: a test reads them back at once.
    provider.add_span_processor(SimpleSpanProcessor(OTLPSpanExporter()))
    trace.set_tracer_provider(provider)
    return OpenTelemetryMiddleware(app)
