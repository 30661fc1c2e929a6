// ort_check.js — runs an ONNX model in ONNX Runtime (npm onnxruntime-node,
// CPU) and compares its outputs with reference .npy files.
// Usage: node ort_check.js MODEL.onnx --in NAME=X.npy ... --ref R.npy ... [--tol T]
//        [--top1] [--opt all|extended|basic|disabled] [--save DIR]
// Inputs are bound by name (NAME=FILE) or, without a name, by position;
// references follow the model's output order. An
// output agrees when max|got - ref| <= T * max(|ref|, 1e-6) (default T 1e-4)
// and, with --top1, has the same arg-max along its last axis in every row.
// --opt sets ONNX Runtime's graph optimization level (default all).
// --save DIR also writes every output k as DIR/ort_out<k>.npy (float32 or int64).
// Exit 0 all agree, 1 a mismatch, 2 usage, 77 onnxruntime-node not installed.
'use strict';
const path = require('path');

const { loadNpy, saveNpy } = require('./npy.js');

async function main() {
  const argv = process.argv.slice(2);
  const model = argv.shift();
  const ins = [], refs = [];
  let tol = 1e-4, top1 = false, opt = 'all', save = null;
  while (argv.length) {
    const a = argv.shift();
    if (a === '--in') ins.push(argv.shift());
    else if (a === '--ref') refs.push(argv.shift());
    else if (a === '--tol') tol = Number(argv.shift());
    else if (a === '--top1') top1 = true;
    else if (a === '--opt') opt = argv.shift();
    else if (a === '--save') save = argv.shift();
    else { console.error('ort_check: unknown argument ' + a); process.exit(2); }
  }
  if (!model || !refs.length) { console.error('usage: node ort_check.js MODEL --in NAME=X.npy ... --ref R.npy ...'); process.exit(2); }
  let ort;
  try {
    ort = require(path.join(__dirname, 'node_modules', 'onnxruntime-node'));
  } catch (e) {
    console.log('skip: onnxruntime-node is not installed (tools/install-deps.sh installs it into tests/ort)');
    process.exit(77);
  }
  const session = await ort.InferenceSession.create(model, { graphOptimizationLevel: opt, executionProviders: ['cpu'] });
  const feeds = {};
  for (const [i, spec] of ins.entries()) {
    const eq = spec.indexOf('=');
    const name = eq < 0 ? session.inputNames[i] : spec.slice(0, eq), x = loadNpy(spec.slice(eq + 1));
    feeds[name] = new ort.Tensor(x.type, x.data, x.shape);
  }
  const out = await session.run(feeds);
  if (save) session.outputNames.forEach((name, k) => saveNpy(path.join(save, `ort_out${k}.npy`), out[name]));
  let ok = true;
  session.outputNames.slice(0, refs.length).forEach((name, i) => {
    const ref = loadNpy(refs[i]), got = out[name];
    if (got.dims.join(',') !== ref.shape.join(',')) {
      console.log(`${path.basename(model)}: output ${name} has shape [${got.dims}], reference [${ref.shape}]`);
      ok = false;
      return;
    }
    let maxDiff = 0, maxRef = 0;
    for (let k = 0; k < ref.data.length; k++) {
      maxDiff = Math.max(maxDiff, Math.abs(Number(got.data[k]) - Number(ref.data[k])));
      maxRef = Math.max(maxRef, Math.abs(Number(ref.data[k])));
    }
    const rel = maxDiff / Math.max(maxRef, 1e-6);
    let pass = rel <= tol, rows = 0, same = 0;
    if (top1) {
      const cols = ref.shape.length ? ref.shape[ref.shape.length - 1] : 1;
      for (let r = 0; r * cols < ref.data.length; r++, rows++) {
        let a = 0, b = 0;
        for (let j = 1; j < cols; j++) {
          if (Number(got.data[r * cols + j]) > Number(got.data[r * cols + a])) a = j;
          if (Number(ref.data[r * cols + j]) > Number(ref.data[r * cols + b])) b = j;
        }
        same += a === b;
      }
      pass = pass && same === rows;
    }
    ok = ok && pass;
    const t1 = top1 ? `, top-1 same in ${same} of ${rows} rows` : '';
    console.log(`${path.basename(model)}: output ${name}: max|diff|/max|ref| = ${rel.toExponential(2)}${t1} ${pass ? 'ok' : 'FAIL'} (tol ${tol})`);
  });
  process.exit(ok ? 0 : 1);
}

main().catch((e) => { console.error('ort_check: ' + e.message); process.exit(1); });
