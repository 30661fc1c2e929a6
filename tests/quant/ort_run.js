// ort_run.js — runs an ONNX model in ONNX Runtime (npm onnxruntime-node in
// tests/ort, CPU) and writes every output as OUT_DIR/<output name>.npy
// (float32 or int64), for the quantization tests to compare with nnfx.
// Usage: node ort_run.js MODEL.onnx OUT_DIR [--opt all|basic|disabled] --in NAME=X.npy ...
// Exit 0 written, 1 an ORT error, 2 usage, 77 onnxruntime-node not installed.
'use strict';
const fs = require('fs');
const path = require('path');

const { loadNpy, saveNpy } = require(path.join(__dirname, '..', 'ort', 'npy.js'));

async function main() {
  const argv = process.argv.slice(2);
  const model = argv.shift(), outDir = argv.shift();
  const ins = [];
  let opt = 'all';
  while (argv.length) {
    const a = argv.shift();
    if (a === '--in') ins.push(argv.shift());
    else if (a === '--opt') opt = argv.shift();
    else { console.error('ort_run: unknown argument ' + a); process.exit(2); }
  }
  if (!model || !outDir) { console.error('usage: node ort_run.js MODEL OUT_DIR [--opt LEVEL] --in NAME=X.npy ...'); process.exit(2); }
  let ort;
  try {
    ort = require(path.join(__dirname, '..', 'ort', 'node_modules', 'onnxruntime-node'));
  } catch (e) {
    console.log('skip: onnxruntime-node is not installed (tools/install-deps.sh installs it into tests/ort)');
    process.exit(77);
  }
  const session = await ort.InferenceSession.create(model, { graphOptimizationLevel: opt, executionProviders: ['cpu'], intraOpNumThreads: 1 });
  const feeds = {};
  for (const [i, spec] of ins.entries()) {
    const eq = spec.indexOf('=');
    const name = eq < 0 ? session.inputNames[i] : spec.slice(0, eq), x = loadNpy(spec.slice(eq + 1));
    feeds[name] = new ort.Tensor(x.type, x.data, x.shape);
  }
  const out = await session.run(feeds);
  fs.mkdirSync(outDir, { recursive: true });
  for (const name of session.outputNames) saveNpy(path.join(outDir, name.replace(/[^A-Za-z0-9_.-]/g, '_') + '.npy'), out[name]);
}

main().catch((e) => { console.error('ort_run: ' + e.message); process.exit(1); });
