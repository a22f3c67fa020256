#!/usr/bin/env node
// Runs BFCL cases through node-llama-cpp (its `functions` option, which
// constrains call parameters with its own grammar) and writes results.json
// in offgrid bench's shape, for `offgrid bench --compare`. Scoring is left
// to offgrid's checker, so both sides are judged by the same rules.
//
//   node node-llama-cpp.mjs --model FILE.gguf --data DIR|FILE [--data …]
//     [--category simple,multiple,…] [--limit N] [--seed S]
//     [--temperature T] [--max-tokens N] [--threads N] [--out results.json]
//
// Threads default to the CPU count (offgrid uses the physical cores);
// node-llama-cpp's own default oversubscribes small machines.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { getLlama, LlamaChat, LlamaText } from "node-llama-cpp";

const CATEGORIES = ["simple", "multiple", "parallel", "parallel_multiple", "irrelevance",
  "live_simple", "live_multiple", "live_parallel", "live_parallel_multiple", "live_irrelevance", "live_relevance"];

function parseArgs(argv) {
  const opts = { data: [], category: null, limit: 0, seed: 0, temperature: 0, maxTokens: 256, out: "results.json", model: "",
    threads: os.availableParallelism() };
  for (let i = 0; i < argv.length; i++) {
    const [flag, inline] = argv[i].split(/=(.*)/s, 2);
    const val = () => (inline !== undefined ? inline : argv[++i]);
    switch (flag) {
      case "--model": case "-m": opts.model = val(); break;
      case "--data": opts.data.push(...val().split(",")); break;
      case "--category": opts.category = val().split(","); break;
      case "--limit": opts.limit = Number(val()); break;
      case "--seed": opts.seed = Number(val()); break;
      case "--temperature": opts.temperature = Number(val()); break;
      case "--max-tokens": opts.maxTokens = Number(val()); break;
      case "--out": opts.out = val(); break;
      case "--threads": opts.threads = Number(val()); break;
      default: throw new Error(`unknown flag ${argv[i]}`);
    }
  }
  if (!opts.model || opts.data.length === 0) throw new Error("want --model FILE.gguf and --data DIR|FILE");
  for (const c of opts.category ?? []) {
    if (!CATEGORIES.includes(c)) throw new Error(`unknown category ${c}`);
  }
  return opts;
}

// category maps a BFCL id to [bfclCategory, benchCategory or ""], as
// offgrid's bench.Category does.
function category(id) {
  const i = id.lastIndexOf("_");
  const bfcl = i > 0 ? id.slice(0, i) : id;
  if (bfcl === "simple_python" || bfcl === "simple") return [bfcl, "simple"];
  if (bfcl === "live_simple_python") return [bfcl, "live_simple"];
  return [bfcl, CATEGORIES.includes(bfcl) ? bfcl : ""];
}

function readLines(file) {
  return fs.readFileSync(file, "utf8").split("\n").map((l) => l.trim()).filter(Boolean).map((l) => JSON.parse(l));
}

function loadCases(paths, cats, limit) {
  const files = [];
  for (const p of paths) {
    if (fs.statSync(p).isDirectory()) {
      files.push(...fs.readdirSync(p).filter((f) => f.endsWith(".json") || f.endsWith(".jsonl")).sort().map((f) => path.join(p, f)));
    } else files.push(p);
  }
  const byCat = {};
  for (const f of files) {
    for (const q of readLines(f)) {
      const [bfcl, cat] = category(q.id);
      if (!cat || q.question.length !== 1) continue;
      if (cats && !cats.includes(cat)) continue;
      byCat[cat] ??= [];
      if (limit > 0 && byCat[cat].length >= limit) continue;
      byCat[cat].push({ id: q.id, category: cat, bfcl, messages: q.question[0], functions: q.function });
    }
  }
  return CATEGORIES.flatMap((c) => byCat[c] ?? []);
}

// BFCL type names as JSON Schema types, as offgrid's grammar.ParseTools
// (and BFCL's own conversion to OpenAI tools) maps them.
const TYPES = {
  integer: "integer", number: "number", string: "string", boolean: "boolean", array: "array", object: "object", null: "null",
  float: "number", double: "number", bool: "boolean", list: "array", tuple: "array", ArrayList: "array", Array: "array",
  Queue: "array", Stack: "array", dict: "object", HashMap: "object", Hashtable: "object", any: "string", Any: "string",
  char: "string", String: "string", byte: "integer", short: "integer", long: "integer", Bigint: "integer",
};

// toGbnfSchema converts a BFCL parameter schema to the JSON Schema subset
// node-llama-cpp's grammar accepts.
function toGbnfSchema(s) {
  if (!s || typeof s !== "object") return { type: "string" };
  const out = {};
  if (typeof s.description === "string") out.description = s.description;
  if (Array.isArray(s.enum) && s.enum.every((e) => e === null || ["string", "number", "boolean"].includes(typeof e))) {
    return { ...out, enum: s.enum };
  }
  const type = TYPES[s.type] ?? "string";
  if (type === "object") {
    const props = s.properties ?? {};
    const keys = Object.keys(props);
    out.type = "object";
    if (keys.length === 0) return { ...out, additionalProperties: true };
    out.properties = Object.fromEntries(keys.map((k) => [k, toGbnfSchema(props[k])]));
    out.required = (s.required ?? []).filter((k) => keys.includes(k));
    return out;
  }
  if (type === "array") {
    out.type = "array";
    if (s.items) out.items = toGbnfSchema(s.items);
    return out;
  }
  return { ...out, type };
}

function functionsOf(c) {
  const fns = {};
  for (const f of c.functions) fns[f.name] = { description: f.description ?? "", params: toGbnfSchema({ ...f.parameters, type: "dict" }) };
  return fns;
}

// rawArguments recovers the parameters text as generated (JSON.parse
// would turn 5.0 into 5, hiding a float from the checker's type rules).
function rawArguments(rawCall, params) {
  const start = rawCall.indexOf("(");
  const end = rawCall.lastIndexOf(")");
  if (start >= 0 && end > start) {
    const inner = rawCall.slice(start + 1, end).trim();
    try {
      if (JSON.stringify(JSON.parse(inner)) === JSON.stringify(params)) return inner;
    } catch { /* fall through */ }
  }
  return JSON.stringify(params ?? {});
}

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  const cases = loadCases(opts.data, opts.category, opts.limit);
  if (cases.length === 0) throw new Error("no cases");
  const llama = await getLlama({ gpu: false, build: "never" });
  const model = await llama.loadModel({ modelPath: opts.model });
  const context = await model.createContext({ contextSize: 4096, threads: opts.threads });
  const sequence = context.getSequence();
  const chat = new LlamaChat({ contextSequence: sequence });
  const run = {
    runner: "node-llama-cpp", model: path.basename(opts.model).replace(/\.gguf$/, ""), grammar: "on",
    tool_format: `node-llama-cpp functions (${chat.chatWrapper.wrapperName})`, seed: opts.seed, temperature: opts.temperature, seconds: 0, cases: [],
  };
  const rawArgs = [];
  const t0 = performance.now();
  for (const [i, c] of cases.entries()) {
    const history = c.messages.map((m) => (m.role === "system" ? { type: "system", text: m.content }
      : m.role === "assistant" ? { type: "model", response: [m.content] } : { type: "user", text: m.content }));
    history.push({ type: "model", response: [] });
    const before = sequence.tokenMeter.getState();
    const start = performance.now();
    let first = 0;
    const res = await chat.generateResponse(history, {
      functions: functionsOf(c),
      documentFunctionParams: true,
      maxParallelFunctionCalls: c.bfcl.includes("parallel") ? undefined : 1,
      maxTokens: opts.maxTokens,
      temperature: opts.temperature,
      seed: opts.seed,
      onToken: () => { if (!first) first = performance.now(); },
    });
    const end = performance.now();
    const used = sequence.tokenMeter.getState();
    const rawCalls = (res.functionCalls ?? []).map((fc) => LlamaText.fromJSON(fc.raw).toString());
    const args = (res.functionCalls ?? []).map((fc, j) => rawArguments(rawCalls[j], fc.params));
    rawArgs.push(args);
    first ||= end;
    run.cases.push({
      id: c.id, category: c.category, raw: res.response + rawCalls.join(""),
      calls: (res.functionCalls ?? []).map((fc, j) => ({ name: fc.functionName, arguments: { __raw: `${i}:${j}` } })),
      latency_s: (end - start) / 1000,
      prompt_tokens: used.usedInputTokens - before.usedInputTokens,
      prompt_s: (first - start) / 1000,
      generated_tokens: used.usedOutputTokens - before.usedOutputTokens,
      generate_s: (end - first) / 1000,
    });
    process.stderr.write(`\rnode-llama-cpp ${i + 1}/${cases.length} cases`);
  }
  run.seconds = (performance.now() - t0) / 1000;
  process.stderr.write("\n");
  const results = { version: 1, created: new Date().toISOString(), runs: [run] };
  // Arguments keep the generated number text (5.0 stays a float for the
  // checker): placeholders are replaced by the raw JSON.
  const text = JSON.stringify(results).replace(/\{"__raw":"(\d+):(\d+)"\}/g, (_, i, j) => rawArgs[i][j]);
  fs.writeFileSync(opts.out + ".tmp", text + "\n");
  fs.renameSync(opts.out + ".tmp", opts.out);
  await context.dispose();
  await model.dispose();
}

main().catch((err) => {
  console.error(`node-llama-cpp peer: ${err.message}`);
  process.exit(1);
});
