// Verdicts of the reference AG-UI client on a corpus of streams.
// Usage: node verify.mjs corpus.json  → prints [{name, valid, error}] as JSON.
import { readFileSync } from "node:fs";
import { transformChunks, verifyEvents } from "@ag-ui/client";
import { from, lastValueFrom, toArray } from "rxjs";

process.env.SUPPRESS_TRANSFORMATION_WARNINGS = "true";
const corpus = JSON.parse(readFileSync(process.argv[2], "utf8"));
const verdicts = [];
for (const stream of corpus) {
  try {
    // The client's own order: chunks are expanded, then the stream verified.
    await lastValueFrom(from(stream.events).pipe(transformChunks(), verifyEvents(), toArray()));
    verdicts.push({ name: stream.name, valid: true, error: null });
  } catch (error) {
    verdicts.push({ name: stream.name, valid: false, error: String(error && error.message || error) });
  }
}
process.stdout.write(JSON.stringify(verdicts));
