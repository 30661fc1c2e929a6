// npy.js — NumPy .npy reading and writing (float32, int64) for the ONNX
// Runtime test scripts (ort_check.js, tests/quant/ort_run.js).
'use strict';
const fs = require('fs');

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
  if (/'fortran_order': True/.test(header)) throw new Error(file + ': Fortran order');
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

module.exports = { loadNpy, saveNpy };
