// Times one ONNX model on ONNX Runtime's CPU execution provider (onnxruntime-node).
//
//   node ort_bench.js SPEC.json
//
// SPEC.json: {"model": PATH, "threads": T, "warmup": W, "runs": N,
//             "inputs": [{"name", "type": "float32"|"int64"|..., "dims": [...], "file": RAW}],
//             "output_file": PATH (optional: the first output's raw bytes are written there),
//             "profile_prefix": PATH (optional: ORT's own per-node profile of the timed runs is written
//             to PATH_<date>.json; ort_profile.py sums it by operator)}
// Prints one JSON line: {"median_ms", "min_ms", "max_ms", "runs", "threads", "load_ms", "version"}.
'use strict';
const fs = require('fs');
const ort = require('onnxruntime-node');

const arrays = {
  float32: Float32Array, float64: Float64Array, int32: Int32Array, int64: BigInt64Array,
  uint8: Uint8Array, int8: Int8Array, bool: Uint8Array,
};

function loadInput(spec) {
  const Arr = arrays[spec.type];
  if (!Arr) throw new Error(`input ${spec.name}: unsupported type ${spec.type}`);
  const buf = fs.readFileSync(spec.file);
  // Copy into a fresh, aligned buffer: a Buffer's byteOffset need not suit the typed array.
  const data = new Arr(buf.byteLength / Arr.BYTES_PER_ELEMENT);
  new Uint8Array(data.buffer).set(buf);
  return new ort.Tensor(spec.type, data, spec.dims);
}

async function main() {
  const spec = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
  const t0 = process.hrtime.bigint();
  const session = await ort.InferenceSession.create(spec.model, {
    executionProviders: ['cpu'],
    intraOpNumThreads: spec.threads,
    interOpNumThreads: 1,
    executionMode: 'sequential',
    graphOptimizationLevel: 'all',
    ...(spec.profile_prefix ? { enableProfiling: true, profileFilePrefix: spec.profile_prefix } : {}),
  });
  const loadMs = Number(process.hrtime.bigint() - t0) / 1e6;
  const feeds = {};
  for (const input of spec.inputs) feeds[input.name] = loadInput(input);

  let out;
  for (let i = 0; i < spec.warmup; i++) out = await session.run(feeds);
  const times = [];
  for (let i = 0; i < spec.runs; i++) {
    const s = process.hrtime.bigint();
    out = await session.run(feeds);
    times.push(Number(process.hrtime.bigint() - s) / 1e6);
  }
  if (spec.profile_prefix) session.endProfiling();
  if (spec.output_file) {
    const first = out[session.outputNames[0]];
    fs.writeFileSync(spec.output_file, Buffer.from(first.data.buffer, first.data.byteOffset, first.data.byteLength));
  }
  times.sort((a, b) => a - b);
  const m = times.length >> 1;
  const median = times.length % 2 ? times[m] : (times[m - 1] + times[m]) / 2;
  let version = '';
  try { version = require('onnxruntime-node/package.json').version; } catch (e) { /* unknown */ }
  console.log(JSON.stringify({
    median_ms: median, min_ms: times[0], max_ms: times[times.length - 1], runs: times.length,
    threads: spec.threads, load_ms: loadMs, version,
  }));
}

main().catch((e) => { console.error(`ort_bench.js: ${e.stack || e}`); process.exit(1); });
