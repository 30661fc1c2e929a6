// ort_bench.js — times ONNX Runtime (npm onnxruntime-node, CPU) on one
// model and input, printing the same JSON line as `nnfx run --bench`.
// Usage: node ort_bench.js MODEL.onnx INPUT.npy RUNS THREADS
'use strict';
const fs = require('fs');
const path = require('path');

function loadNpy(file) {
  const buf = fs.readFileSync(file);
  const hlen = buf.readUInt16LE(8);
  const header = buf.toString('latin1', 10, 10 + hlen);
  if (!/'descr': '<f4'/.test(header)) throw new Error(file + ': float32 .npy expected');
  const shape = header.match(/'shape': \(([^)]*)\)/)[1].split(',').map((s) => s.trim()).filter((s) => s).map(Number);
  const off = 10 + hlen;
  const data = new Float32Array(buf.buffer.slice(buf.byteOffset + off, buf.byteOffset + buf.length));
  return { shape, data };
}

function rssBytes() {
  const m = fs.readFileSync('/proc/self/status', 'utf8').match(/VmRSS:\s+(\d+) kB/);
  return m ? Number(m[1]) * 1024 : null;
}

async function main() {
  const [model, input, runsArg, threadsArg] = process.argv.slice(2);
  const runs = Number(runsArg || 20), threads = Number(threadsArg || 1);
  let ort;
  try {
    ort = require(path.join(__dirname, 'node_modules', 'onnxruntime-node'));
  } catch (e) {
    console.log(JSON.stringify({ skipped: 'onnxruntime-node not installed (npm install --ignore-scripts onnxruntime-node in bench/)' }));
    return;
  }
  const x = loadNpy(input);
  const session = await ort.InferenceSession.create(model, {
    graphOptimizationLevel: 'all', intraOpNumThreads: threads, interOpNumThreads: 1,
    executionMode: 'sequential', executionProviders: ['cpu'],
  });
  const feeds = {};
  feeds[session.inputNames[0]] = new ort.Tensor('float32', x.data, x.shape);
  const rss0 = rssBytes();
  await session.run(feeds); // warm-up
  const ms = [];
  for (let r = 0; r < runs; r++) {
    const t0 = process.hrtime.bigint();
    await session.run(feeds);
    ms.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  const rss1 = rssBytes();
  ms.sort((a, b) => a - b);
  const med = runs % 2 ? ms[(runs - 1) / 2] : (ms[runs / 2 - 1] + ms[runs / 2]) / 2;
  // ORT has no public activation-memory counter: the resident-set growth
  // over the timed runs (arena and plan buffers) stands in for it.
  console.log(JSON.stringify({ model, runs, threads, median_ms: med, min_ms: ms[0],
    peak_activation_bytes: rss0 !== null && rss1 !== null ? Math.max(0, rss1 - rss0) : null }));
}

main().catch((e) => { console.error('ort_bench: ' + e.message); process.exit(1); });
