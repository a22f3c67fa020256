#!/usr/bin/env node
// Measures node-llama-cpp's prefill and decode speed the way
// `offgrid bench --speed` measures offgrid's, and prints the result as
// JSON in the same shape, for `offgrid bench --speed --compare`:
//
//   node node-llama-cpp-speed.mjs --model FILE.gguf [--threads N]
//     [-p 512] [-n 128] [-r 5] [--grammar FILE.gbnf]
//
// Prefill: a prompt of -p tokens (the same repeated sentence) into an
// empty context, timed to its end. Decode: 16 prompt tokens, then -n
// tokens sampled at temperature 0.8, top-k 40, top-p 0.95 (seed = the
// repetition), timed from the first sampled token's evaluation to the
// last or an end-of-generation token. With --grammar (offgrid bench --speed --grammar-out writes the
// tool grammar it uses) the decode runs again under that grammar.
// One untimed prefill warms up first. Time to the first token of an agent turn has no counterpart here.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { getLlama, LlamaGrammar, LlamaGrammarEvaluationState } from "node-llama-cpp";

// The text offgrid's bench.Speed repeats (bench/speed.go, speedText).
const TEXT = "The quick brown fox jumps over the lazy dog while the river runs past the old mill. ";

function parseArgs(argv) {
  const opts = { model: "", threads: os.availableParallelism(), prompt: 512, gen: 128, reps: 5, grammar: "" };
  for (let i = 0; i < argv.length; i++) {
    const [flag, inline] = argv[i].split(/=(.*)/s, 2);
    const val = () => (inline !== undefined ? inline : argv[++i]);
    switch (flag) {
      case "--model": case "-m": opts.model = val(); break;
      case "--threads": case "-t": opts.threads = Number(val()); break;
      case "--prompt-tokens": case "-p": opts.prompt = Number(val()); break;
      case "--gen-tokens": case "-n": opts.gen = Number(val()); break;
      case "--reps": case "-r": opts.reps = Number(val()); break;
      case "--grammar": opts.grammar = val(); break;
      default: throw new Error(`unknown flag ${argv[i]}`);
    }
  }
  if (!opts.model) throw new Error("want --model FILE.gguf");
  for (const k of ["threads", "prompt", "gen", "reps"]) {
    if (!(Number.isInteger(opts[k]) && opts[k] >= 1)) throw new Error(`--${k} wants a whole number of at least 1`);
  }
  return opts;
}

function spread(xs) {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
  return { min: s[0], median: m, max: s[s.length - 1] };
}

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  const llama = await getLlama({ gpu: false, build: "never", maxThreads: opts.threads });
  const model = await llama.loadModel({ modelPath: opts.model });
  const context = await model.createContext({ contextSize: 8192, batchSize: 512, threads: { ideal: opts.threads, min: opts.threads } });
  const sequence = context.getSequence();
  const text = model.tokenize(TEXT);
  const tokens = (n) => {
    const out = [];
    while (out.length < n) out.push(...text.slice(0, n - out.length));
    return out;
  };
  const grammar = opts.grammar ? new LlamaGrammar(llama, { grammar: fs.readFileSync(opts.grammar, "utf8") }) : null;

  // decode returns tokens/s of up to n sampled tokens after a short prompt.
  async function decode(n, seed, withGrammar) {
    await sequence.clearHistory();
    const prompt = tokens(16);
    await sequence.evaluateWithoutGeneratingNewTokens(prompt.slice(0, -1));
    const options = { temperature: 0.8, topK: 40, topP: 0.95, seed };
    if (withGrammar) options.grammarEvaluationState = new LlamaGrammarEvaluationState({ model, grammar });
    const start = performance.now();
    let count = 0;
    for await (const tok of sequence.evaluate(prompt.slice(-1), options)) {
      count++;
      if (count >= n || model.isEogToken(tok)) break;
    }
    return count / ((performance.now() - start) / 1000);
  }

  // Warm-up, as offgrid's bench does.
  await sequence.clearHistory();
  await sequence.evaluateWithoutGeneratingNewTokens(tokens(opts.prompt));
  const prefill = [], dec = [], decG = [];
  for (let rep = 0; rep < opts.reps; rep++) {
    process.stderr.write(`\rnode-llama-cpp: rep ${rep + 1}/${opts.reps}`);
    await sequence.clearHistory();
    const p = tokens(opts.prompt);
    const start = performance.now();
    await sequence.evaluateWithoutGeneratingNewTokens(p);
    prefill.push(opts.prompt / ((performance.now() - start) / 1000));
    dec.push(await decode(opts.gen, rep + 1, false));
    if (grammar) decG.push(await decode(opts.gen, rep + 1, true));
  }
  process.stderr.write("\n");
  const result = {
    runner: "node-llama-cpp",
    model: path.basename(opts.model).replace(/\.gguf$/, ""),
    threads: opts.threads,
    prompt_tokens: opts.prompt,
    gen_tokens: opts.gen,
    reps: opts.reps,
    prefill_tok_s: spread(prefill),
    decode_tok_s: spread(dec),
    decode_grammar_tok_s: decG.length ? spread(decG) : { min: 0, median: 0, max: 0 },
    system_info: llama.systemInfo,
  };
  console.log(JSON.stringify(result, null, 2));
  await context.dispose();
  await model.dispose();
}

main().catch((err) => {
  console.error(`node-llama-cpp speed: ${err.message}`);
  process.exit(1);
});
