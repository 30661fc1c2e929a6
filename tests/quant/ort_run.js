// ort_run.js — runs an ONNX model in ONNX Runtime (npm onnxruntime-node in
// tests/ort, CPU) and writes every output as OUT_DIR/<output name>.npy
// (float32 or int64), for the quantization tests to compare with nnfx.
// Usage: node ort_run.js MODEL.onnx OUT_DIR [--opt all|basic|disabled] --in NAME=X.npy ...
// Exit 0 written, 1 an ORT error, 2 usage, 77 onnxruntime-node not installed.
'use strict';
const fs = require('fs');
const path = require('path');

const DTYPES = { '<f4': ['float32', Float32Array], '<i8': ['int64', BigInt64Array] };

function loadNpy(file) {
  const buf = fs.readFileSync(file);
  if (buf.toString('latin1', 1, 6) !== 'NUMPY') throw new Error(file + ': not a .npy file');
  const major = buf[6];
  const hlen = major === 1 ? buf.readUInt16LE(8) : buf.readUInt32LE(8);
  const hoff = major === 1 ? 10 : 12;
  const header = buf.toString('latin1', hoff, hoff + hlen);
  const descr = header.match(/'descr': '([^']+)'/)[1];
  if (!DTYPES[descr]) throw new Error(file + ': dtype ' + descr + ' not handled here');
  const shape = header.match(/'shape': \(([^)]*)\)/)[1].split(',').map((s) => s.trim()).filter((s) => s).map(Number);
  const [type, Arr] = DTYPES[descr];
  const off = hoff + hlen;
  const bytes = buf.buffer.slice(buf.byteOffset + off, buf.byteOffset + buf.length);
  return { type, shape, data: new Arr(bytes) };
}

function saveNpy(file, t) {
  const descr = t.type === 'int64' ? '<i8' : '<f4';
  const data = t.type === 'int64' ? t.data : Float32Array.from(t.data, Number);
  const shape = t.dims.length === 1 ? `(${t.dims[0]},)` : `(${t.dims.join(', ')})`;
  let header = `{'descr': '${descr}', 'fortran_order': False, 'shape': ${shape}, }`;
  while ((10 + header.length + 1) % 64) header += ' ';
  header += '\n';
  const pre = Buffer.alloc(10);
  pre.write('\x93NUMPY', 0, 'latin1');
  pre[6] = 1;
  pre[7] = 0;
  pre.writeUInt16LE(header.length, 8);
  const body = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  fs.writeFileSync(file, Buffer.concat([pre, Buffer.from(header, 'latin1'), body]));
}

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
