// npm run bench:agent [-- --smoke]: an LLM agent's latency at a real browser. A stand-in
// OpenAI-compatible model streams its answer at 40 tokens a second into @mouthpiece/backend's
// streamText (as examples/llm-agent does); measured: the model's first token → first audio heard
// in Chromium, beside the moment the model had completed its first sentence (+ 150 ms, the
// figure to beat).
import { runVitestBench } from '../lib/run-vitest-bench.mjs';

runVitestBench('agent');
