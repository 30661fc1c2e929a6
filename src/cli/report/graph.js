/* graph.js: the graph drawing of nnfx's HTML reports (embedded in the page
 * by src/cli/report_graph.c, which also writes the data it reads).
 * Data: #nnfx-graph-data, {compare, ops[], groups[], shapes[], attrs[],
 * nodes: [[name, source name, group, op, inputs[], macs, params, shape,
 * attrs, parameters, findings, change, why, old inputs[], int8, ms]]},
 * timed (shade by ms, the measured time per run, instead of MACs): inputs as
 * distances back (node i's input i - d); fields after the inputs may be
 * left out (0 or "").
 * Layout: the nodes are grouped by module path ("layer1/layer1.0"); each open
 * group is laid out in layers (longest path over its items: nodes and
 * child groups, closed ones as one box), rows ordered by the mean position
 * of their inputs. A group too large to read (over 300 items) is cut into
 * boxes of 100 consecutive items. The page opens with as many levels open
 * as keep the drawing under about 250 items. */
(function () {
  "use strict";
  var dataEl = document.getElementById("nnfx-graph-data");
  var root = document.getElementById("nnfx-graph");
  if (!dataEl || !root) return;
  var t0 = performance.now();
  var D = JSON.parse(dataEl.textContent);
  var NS = "http://www.w3.org/2000/svg";
  var svg = root.querySelector("svg.gsvg"), det = root.querySelector(".gdetails");
  var note = root.querySelector(".gnote"), legend = root.querySelector(".glegend");
  var LIMIT = 250, CHUNK = 100, MAXITEMS = 300;
  var FAM = [
    ["conv", /^(Conv|ConvTranspose|ConvInteger|QLinearConv)$/, "#3b73c8"],
    ["matmul", /^(Gemm|MatMul|Einsum|MatMulInteger|QLinearMatMul|Attention)$/, "#7a4fc4"],
    ["norm", /Norm|^LRN$/, "#c9821c"],
    ["activation", /^(Relu|LeakyRelu|PRelu|Sigmoid|Tanh|Gelu|Erf|Softmax|LogSoftmax|HardSigmoid|HardSwish|Clip|Elu|Selu|Softplus|Mish|Swish|SiLU|Celu)$/, "#2b9552"],
    ["pool", /Pool$/, "#1797ad"],
    ["quant", /Quantize|Dequantize/, "#c23c86"],
    ["elementwise", /^(Add|Sub|Mul|Div|Pow|Sqrt|Exp|Log|Abs|Neg|Min|Max|Sum|Mean|Where|Equal|Less|Greater|Not|And|Or|Reciprocal|Floor|Ceil|Round|Cast|Sign)$/, "#8a962a"],
    ["shape", /^(Reshape|Flatten|Transpose|Concat|Split|Squeeze|Unsqueeze|Gather|Slice|Shape|Expand|Tile|Pad|Resize|Identity|ConstantOfShape|Constant|Range|DepthToSpace|SpaceToDepth)$/, "#7d7d7d"],
    ["io", /^(input|output)$/, "#303030"],
    ["other", /./, "#a0522d"]
  ];
  function family(op) {
    for (var i = 0; i < FAM.length; i++) if (FAM[i][1].test(op)) return FAM[i];
    return FAM[FAM.length - 1];
  }
  function el(tag, attrs, parent) {
    var e = document.createElementNS(NS, tag);
    for (var k in attrs) e.setAttribute(k, attrs[k]);
    if (parent) parent.appendChild(e);
    return e;
  }
  function human(v) {
    if (v >= 1e9) return (v / 1e9).toPrecision(3) + " G";
    if (v >= 1e6) return (v / 1e6).toPrecision(3) + " M";
    if (v >= 1e3) return (v / 1e3).toPrecision(3) + " K";
    return String(v);
  }
  function cut(s, n) { return s.length > n ? s.slice(0, n - 1) + "\u2026" : s; }
  /* mixes hex colour c with white: t=0 white, t=1 c */
  function tint(c, t) {
    var r = parseInt(c.substr(1, 2), 16), g = parseInt(c.substr(3, 2), 16), b = parseInt(c.substr(5, 2), 16);
    function m(x) { return Math.round(255 + (x - 255) * t); }
    return "rgb(" + m(r) + "," + m(g) + "," + m(b) + ")";
  }

  /* ---- nodes and groups ---- */
  function back(list, i) { return (list || []).map(function (d) { return i - d; }); }
  var N = D.nodes.map(function (a, i) {
    return { i: i, name: a[0], src: a[1], gkey: D.groups[a[2]], op: D.ops[a[3]], ins: back(a[4], i),
             macs: a[5] || 0, params: a[6] || 0, shape: D.shapes[a[7] || 0], attrs: D.attrs[a[8] || 0],
             pdesc: a[9] || "", find: a[10] || "", change: a[11] || "", why: a[12] || "",
             oldins: back(a[13], i), int8: a[14] || 0, ms: a[15] || 0, first: i, isNode: true };
  });
  /* an added node without a module (a Q/DQ pair a rewrite inserted) goes
   * in its input's */
  N.forEach(function (n) {
    if (!n.gkey && n.change === "added" && n.ins.length && n.ins[0] < n.i) n.gkey = N[n.ins[0]].gkey;
  });
  /* a removed node's edges are the before graph's: drawn as such */
  N.forEach(function (n) { if (n.change === "removed") { n.oldins = n.oldins.concat(n.ins); n.ins = []; } });
  /* the cost that shades a box: MACs, or the measured time (--profile) */
  N.forEach(function (n) { n.cost = D.timed ? n.ms * 1000 : n.macs; });
  var maxMacs = 0;
  N.forEach(function (n) { if (n.cost > maxMacs) maxMacs = n.cost; });
  function Grp(key, label, parent) {
    return { key: key, label: label, parent: parent, kids: [], kmap: {}, nodes: [], first: 1e18, count: 0,
             macs: 0, all: [], open: false, changes: {} };
  }
  var R = Grp("", "", null);
  R.open = true;
  N.forEach(function (n) {
    var g = R;
    if (n.gkey) {
      var parts = n.gkey.split("/"), key = "";
      for (var j = 0; j < parts.length; j++) {
        key += (j ? "/" : "") + parts[j];
        var c = g.kmap[parts[j]];
        if (!c) { c = Grp(key, parts[j], g); g.kmap[parts[j]] = c; g.kids.push(c); }
        g = c;
      }
    }
    g.nodes.push(n);
    n.g = g;
  });
  /* cuts groups with too many items into boxes of CHUNK consecutive items */
  function firstOf(g) {
    var f = 1e18;
    g.nodes.forEach(function (n) { if (n.i < f) f = n.i; });
    g.kids.forEach(function (k) { var x = firstOf(k); if (x < f) f = x; });
    g.first = f;
    return f;
  }
  firstOf(R);
  function chunk(g) {
    var items = g.kids.concat(g.nodes);
    var round = 0;
    while (items.length > MAXITEMS) {
      items.sort(function (a, b) { return a.first - b.first; });
      var chunks = [];
      for (var s = 0; s < items.length; s += CHUNK) {
        var part = items.slice(s, s + CHUNK);
        var c = Grp(g.key + "#" + round + "." + chunks.length, "", g);
        c.synthetic = true;
        part.forEach(function (it) {
          if (it.isNode) { c.nodes.push(it); it.g = c; } else { c.kids.push(it); it.parent = c; }
        });
        c.first = part[0].first;
        chunks.push(c);
      }
      items = chunks;
      round++;
    }
    if (round) { g.kids = items; g.nodes = []; }
    g.kids.forEach(chunk);
  }
  chunk(R);
  /* counts, MACs, changes and the node list of every group */
  N.forEach(function (n) {
    for (var g = n.g; g; g = g.parent) {
      g.count++; g.macs += n.macs; g.cost = (g.cost || 0) + n.cost; g.all.push(n);
      if (n.change) g.changes[n.change] = (g.changes[n.change] || 0) + 1;
    }
  });
  /* labels of synthetic boxes: the ops they hold, by position */
  function label(g) {
    if (g.synthetic) g.label = "ops " + (g.all[0].i + 1) + "\u2013" + (g.all[g.all.length - 1].i + 1);
    g.kids.forEach(label);
  }
  label(R);
  /* the items of a group: child groups of more than one op, and nodes
   * (a one-op group is drawn as its node) */
  function build(g, depth) {
    g.depth = depth;
    g.items = [];
    g.kids.forEach(function (k) {
      if (k.count > 1) { g.items.push(k); build(k, depth + 1); }
      else if (k.count === 1) g.items.push(k.all[0]);
    });
    g.nodes.forEach(function (n) { g.items.push(n); });
    g.items.sort(function (a, b) { return a.first - b.first; });
  }
  build(R, 0);
  N.forEach(function (n) {
    var chain = [];
    for (var g = n.g; g; g = g.parent) if (g === R || g.count > 1) chain.push(g);
    n.anc = chain.reverse();
  });
  function itemIn(n, g) { return n.anc.length > g.depth + 1 ? n.anc[g.depth + 1] : n; }
  function visibleOf(n) {
    for (var d = 1; d < n.anc.length; d++) if (!n.anc[d].open) return n.anc[d];
    return n;
  }
  /* opens level after level while the drawing stays under LIMIT items */
  function openInitial() {
    var level = [R], visible = R.items.length;
    while (level.length) {
      var next = [], add = 0;
      level.forEach(function (g) { g.items.forEach(function (it) { if (!it.isNode) next.push(it); }); });
      next.forEach(function (g) { add += g.items.length - 1; });
      if (!next.length || visible + add > LIMIT) {
        /* still open single-item chains */
        next.forEach(function (g) { if (g.items.length === 1) g.open = true; });
        break;
      }
      next.forEach(function (g) { g.open = true; });
      visible += add;
      level = next;
    }
  }
  openInitial();

  /* ---- layout ---- */
  var GAPX = 18, GAPY = 30, PAD = 12, HEAD = 22;
  function sizeNode(n) {
    n.w = Math.max(70, Math.min(230, 12 + 6.4 * Math.max(n.op.length + (n.int8 ? 5 : 0), Math.min(30, shortName(n).length))));
    n.h = 36;
  }
  /* the name in a node's box: its one-op module's name ("conv1"), else the
   * last part of its source name */
  function shortName(n) {
    if (n.g && n.g !== R && n.g.count === 1 && !n.g.synthetic) return n.g.label;
    var s = n.src || n.name, k = s.lastIndexOf("/");
    if (k >= 0 && k < s.length - 1) s = s.slice(k + 1);
    return s;
  }
  function itemLabel(g) { return g.label; }
  function layout(g) {
    var items = g.items;
    items.forEach(function (it, k) {
      it._k = k; it._layer = 0; it._preds = [];
      if (it.isNode) sizeNode(it);
      else if (it.open) layout(it);
      else { it.w = Math.max(120, Math.min(260, 30 + 6.8 * itemLabel(it).length)); it.h = 44; }
    });
    var seen = {};
    g.all.forEach(function (n) {
      var b = itemIn(n, g);
      n.ins.concat(n.oldins).forEach(function (j) {
        var m = N[j];
        if (m.anc[g.depth] !== g) return;
        var a = itemIn(m, g);
        if (a === b || a._k >= b._k) return;
        var key = a._k + ">" + b._k;
        if (seen[key]) return;
        seen[key] = 1;
        b._preds.push(a);
      });
    });
    var rows = [];
    items.forEach(function (it) {
      var l = 0;
      it._preds.forEach(function (p) { if (p._layer + 1 > l) l = p._layer + 1; });
      it._layer = l;
      (rows[l] = rows[l] || []).push(it);
    });
    var y = g === R ? PAD : HEAD + PAD, maxR = 0, minL = 1e18;
    rows.forEach(function (row) {
      if (!row) return;
      row.forEach(function (it, k) {
        if (it._preds.length) {
          var s = 0;
          it._preds.forEach(function (p) { s += p.x + p.w / 2; });
          it._want = s / it._preds.length;
        } else it._want = NaN;
        it._ord = k;
      });
      row.sort(function (a, b) {
        var x = isNaN(a._want) ? -1e9 + a._ord : a._want, z = isNaN(b._want) ? -1e9 + b._ord : b._want;
        return x - z;
      });
      var right = -1e18, h = 0;
      row.forEach(function (it) {
        var want = isNaN(it._want) ? (right > -1e18 ? right + GAPX : 0) : it._want - it.w / 2;
        it.x = Math.max(want, right + GAPX);
        it.y = y;
        right = it.x + it.w;
        if (it.h > h) h = it.h;
        if (it.x < minL) minL = it.x;
        if (right > maxR) maxR = right;
      });
      y += h + GAPY;
    });
    items.forEach(function (it) { it.x += PAD - minL; });
    g.w = Math.max(maxR - minL + 2 * PAD, 40 + 7 * itemLabel(g).length);
    g.h = y - GAPY + PAD;
  }

  /* ---- drawing ---- */
  var vp, lBox, lEdge, lNode, view = { x: 0, y: 0, k: 1 }, selected = null, drawnCount = 0;
  var defs = el("defs", {}, svg);
  ["e", "old"].forEach(function (k) {
    var m = el("marker", { id: "nnfx-arrow-" + k, viewBox: "0 0 10 10", refX: 9, refY: 5, markerWidth: 7,
                           markerHeight: 7, orient: "auto-start-reverse" }, defs);
    el("path", { d: "M0,0L10,5L0,10z", fill: k === "old" ? "#c0392b" : "#777" }, m);
  });
  function changeText(ch) {
    var s = [];
    ["removed", "added", "changed"].forEach(function (k) { if (ch[k]) s.push(ch[k] + " " + k); });
    return s.join(", ");
  }
  function drawGroup(g, ox, oy) {
    g.items.forEach(function (it) {
      var ax = ox + it.x, ay = oy + it.y;
      it.ax = ax; it.ay = ay;
      if (it.isNode) {
        drawnCount++;
        var f = family(it.op), t = maxMacs > 0 && it.cost > 0 ? Math.log(1 + it.cost) / Math.log(1 + maxMacs) : 0;
        var attrs = { class: "gnode", "data-node": it.name, "data-op": it.op, transform: "translate(" + ax + "," + ay + ")" };
        if (it.change) attrs["data-change"] = it.change;
        if (it.find) attrs["data-finding"] = it.find;
        var e = el("g", attrs, lNode);
        el("rect", { width: it.w, height: it.h, rx: 5, fill: tint(f[2], 0.13 + 0.62 * t), stroke: f[2] }, e);
        var l1 = el("text", { x: it.w / 2, y: 15, class: "op" + (t > 0.55 ? " dark" : "") }, e);
        l1.textContent = it.op + (it.int8 ? " int8" : "");
        var l2 = el("text", { x: it.w / 2, y: 29, class: "nm" + (t > 0.55 ? " dark" : "") }, e);
        l2.textContent = cut(shortName(it), 30);
        var tt = el("title", {}, e);
        tt.textContent = (it.src || it.name) + (it.find ? " \u2014 finding: " + it.find : "") +
                         (it.change ? " \u2014 " + it.change : "");
        if (it === selected) e.classList.add("sel");
      } else if (it.open) {
        var gb = el("g", { class: "ggroup open", "data-group": it.key }, lBox);
        el("rect", { x: ax, y: ay, width: it.w, height: it.h, rx: 7 }, gb);
        var hd = el("text", { x: ax + 8, y: ay + 15, class: "ghead" }, gb);
        hd.textContent = "\u25BE " + itemLabel(it) + "  (" + it.count + " ops" +
                         (changeText(it.changes) ? "; " + changeText(it.changes) : "") + ")";
        drawGroup(it, ax, ay);
      } else {
        drawnCount++;
        var ga = { class: "ggroup closed", "data-group": it.key, transform: "translate(" + ax + "," + ay + ")" };
        var ct = changeText(it.changes);
        if (ct) ga["data-changes"] = ct;
        var gc = el("g", ga, lNode);
        var tg = maxMacs > 0 && it.cost > 0 ? Math.log(1 + it.cost) / Math.log(1 + maxMacs) : 0;
        el("rect", { width: it.w, height: it.h, rx: 7, fill: tint("#5b6f8a", 0.1 + 0.5 * tg) }, gc);
        var a = el("text", { x: it.w / 2, y: 17, class: "op" + (tg > 0.7 ? " dark" : "") }, gc);
        a.textContent = "\u25B8 " + cut(itemLabel(it), 34);
        var b = el("text", { x: it.w / 2, y: 33, class: "nm" + (tg > 0.7 ? " dark" : "") }, gc);
        b.textContent = it.count + " ops, " + (D.timed ? (it.cost / 1000).toPrecision(3) + " ms" : human(it.macs) + " MACs") +
                        (ct ? " \u2022 " + ct : "");
        if (ct) gc.classList.add("haschange");
      }
    });
  }
  function edgePath(a, b) {
    var x1 = a.ax + a.w / 2, y1 = a.ay + a.h, x2 = b.ax + b.w / 2, y2 = b.ay;
    if (y2 > y1 + 4) {
      var dy = Math.max(12, (y2 - y1) / 2);
      return "M" + x1 + "," + y1 + "C" + x1 + "," + (y1 + dy) + " " + x2 + "," + (y2 - dy) + " " + x2 + "," + y2;
    }
    var side = Math.max(a.ax + a.w, b.ax + b.w) + 30;
    return "M" + (a.ax + a.w) + "," + (a.ay + a.h / 2) + "C" + side + "," + (a.ay + a.h / 2) + " " + side + "," +
           (b.ay + b.h / 2) + " " + (b.ax + b.w) + "," + (b.ay + b.h / 2);
  }
  function drawEdges() {
    var seen = {};
    N.forEach(function (n) {
      var b = visibleOf(n);
      function add(j, old) {
        var a = visibleOf(N[j]);
        if (a === b || a.ax === undefined || b.ax === undefined) return;
        var key = (a.isNode ? "n" + a.i : "g" + a.key) + ">" + (b.isNode ? "n" + b.i : "g" + b.key) + (old ? "o" : "");
        if (seen[key]) return;
        seen[key] = 1;
        el("path", { d: edgePath(a, b), class: old ? "gedge old" : "gedge",
                     "marker-end": "url(#nnfx-arrow-" + (old ? "old" : "e") + ")" }, lEdge);
      }
      n.ins.forEach(function (j) { add(j, false); });
      n.oldins.forEach(function (j) { add(j, true); });
    });
  }
  function render() {
    var ts = performance.now();
    N.forEach(function (n) { n.ax = undefined; });
    (function clear(g) { g.items.forEach(function (it) { if (!it.isNode) { it.ax = undefined; clear(it); } }); })(R);
    if (vp) svg.removeChild(vp);
    vp = el("g", { class: "gvp" }, svg);
    lBox = el("g", {}, vp); lEdge = el("g", {}, vp); lNode = el("g", {}, vp);
    drawnCount = 0;
    layout(R);
    drawGroup(R, 0, 0);
    drawEdges();
    apply();
    root.dataset.drawn = drawnCount;
    root.dataset.renderMs = Math.round(performance.now() - ts);
    note.textContent = N.length + " nodes (inputs, ops, output); " + drawnCount + " boxes drawn" +
      (drawnCount < N.length ? " \u2014 click a grey box to open it, its header to close it" : "") +
      ". Drag to pan, wheel to zoom, click a node for its details.";
  }
  function apply() {
    vp.setAttribute("transform", "translate(" + view.x + "," + view.y + ") scale(" + view.k + ")");
  }
  function fit() {
    var W = svg.clientWidth || 1000, H = svg.clientHeight || 600;
    view.k = Math.min(1.2, W / (R.w + 20), H / (R.h + 20));
    if (view.k < 0.05) view.k = 0.05;
    if (R.w * view.k < W * 0.35 && R.h * view.k >= H * 0.98) view.k = Math.min(1, W * 0.35 / R.w);
    view.x = Math.max(10, (W - R.w * view.k) / 2);
    view.y = 10;
    apply();
  }
  function centerOn(it) {
    var W = svg.clientWidth || 1000, H = svg.clientHeight || 600;
    if (view.k < 0.6) view.k = 0.8;
    view.x = W / 2 - (it.ax + it.w / 2) * view.k;
    view.y = H / 2 - (it.ay + it.h / 2) * view.k;
    apply();
  }

  /* ---- details ---- */
  function row(tb, k, v) {
    if (v === undefined || v === null || v === "") return;
    var tr = document.createElement("tr"), th = document.createElement("th"), td = document.createElement("td");
    th.textContent = k; td.textContent = v; tr.appendChild(th); tr.appendChild(td); tb.appendChild(tr);
  }
  function names(list) {
    return list.map(function (j) { return N[j].src || N[j].name; }).join(", ");
  }
  function details(n) {
    selected = n;
    det.hidden = false;
    det.innerHTML = "";
    var h = document.createElement("div");
    h.className = "gdhead";
    h.textContent = n.op + (n.int8 ? " (int8)" : "") + ": " + (n.src || n.name);
    var x = document.createElement("button");
    x.textContent = "\u00D7"; x.className = "gclose"; x.title = "close";
    x.addEventListener("click", function () { det.hidden = true; selected = null; mark(); });
    h.appendChild(x);
    det.appendChild(h);
    var tb = document.createElement("table");
    row(tb, "name", n.name);
    if (n.src) row(tb, "ONNX name", n.src);
    if (n.gkey) row(tb, "module", n.gkey.split("/").join(" > "));
    row(tb, "output", n.shape);
    row(tb, "attributes", n.attrs);
    row(tb, "parameters", n.pdesc ? n.pdesc.split("; ").join("\n") : "");
    row(tb, "MACs", n.macs ? human(n.macs) + " (" + n.macs + ")" : "");
    if (D.timed) row(tb, "time per run", n.ms ? n.ms + " ms (its step of the compiled plan)" : "in a step named after another node");
    row(tb, "parameter elements", n.params ? human(n.params) : "");
    row(tb, "inputs", names(n.ins));
    if (n.oldins.length) row(tb, "inputs before", names(n.oldins));
    row(tb, "findings", n.find);
    if (n.change) row(tb, "change", n.change + (n.why ? ":\n" + n.why : ""));
    det.appendChild(tb);
    det.dataset.node = n.name;
    mark();
  }
  function mark() {
    svg.querySelectorAll(".gnode.sel").forEach(function (e) { e.classList.remove("sel"); });
    if (!selected) return;
    var e = svg.querySelector('[data-node="' + CSS.escape(selected.name) + '"]');
    if (e) e.classList.add("sel");
  }
  function reveal(n) {
    for (var d = 1; d < n.anc.length; d++) n.anc[d].open = true;
  }

  /* ---- interaction ---- */
  var drag = null, moved = false;
  svg.addEventListener("mousedown", function (ev) {
    drag = { x: ev.clientX, y: ev.clientY, vx: view.x, vy: view.y };
    moved = false;
  });
  window.addEventListener("mousemove", function (ev) {
    if (!drag) return;
    var dx = ev.clientX - drag.x, dy = ev.clientY - drag.y;
    if (Math.abs(dx) + Math.abs(dy) > 3) moved = true;
    view.x = drag.vx + dx; view.y = drag.vy + dy;
    apply();
  });
  window.addEventListener("mouseup", function () { drag = null; });
  svg.addEventListener("wheel", function (ev) {
    ev.preventDefault();
    var r = svg.getBoundingClientRect(), mx = ev.clientX - r.left, my = ev.clientY - r.top;
    var k = Math.max(0.03, Math.min(4, view.k * Math.exp(-ev.deltaY * 0.0015)));
    view.x = mx - (mx - view.x) * k / view.k;
    view.y = my - (my - view.y) * k / view.k;
    view.k = k;
    apply();
  }, { passive: false });
  svg.addEventListener("click", function (ev) {
    if (moved) { moved = false; return; }
    var t = ev.target.closest("[data-node],[data-group]");
    if (!t) return;
    if (t.dataset.node !== undefined) {
      for (var i = 0; i < N.length; i++) if (N[i].name === t.dataset.node) { details(N[i]); return; }
      return;
    }
    var g = findGroup(t.dataset.group);
    if (!g) return;
    if (t.classList.contains("open") && !ev.target.classList.contains("ghead")) return;
    g.open = !g.open;
    render();
  });
  function findGroup(key) {
    var hit = null;
    (function walk(g) {
      if (g.key === key) hit = g;
      if (!hit) g.items.forEach(function (it) { if (!it.isNode && !hit) walk(it); });
    })(R);
    return hit;
  }
  root.querySelector(".gbar").addEventListener("click", function (ev) {
    var act = ev.target.dataset && ev.target.dataset.act;
    if (act === "expand" || act === "collapse") {
      if (act === "expand" && N.length > 5000 &&
          !window.confirm(N.length + " nodes: drawing them all may take a while. Go on?")) return;
      (function walk(g) {
        g.items.forEach(function (it) { if (!it.isNode) { it.open = act === "expand"; walk(it); } });
      })(R);
      render();
      fit();
    } else if (act === "fit") fit();
  });
  root.querySelector("input[data-act=find]").addEventListener("keydown", function (ev) {
    if (ev.key !== "Enter") return;
    var q = ev.target.value.toLowerCase();
    if (!q) return;
    for (var i = 0; i < N.length; i++) {
      var n = N[i];
      if (n.name.toLowerCase().indexOf(q) >= 0 || (n.src && n.src.toLowerCase().indexOf(q) >= 0)) {
        reveal(n); render(); details(n); centerOn(n);
        return;
      }
    }
  });
  /* the legend: op families present, cost shading, change marks */
  (function () {
    var present = {};
    N.forEach(function (n) { present[family(n.op)[0]] = family(n.op)[2]; });
    var html = "";
    FAM.forEach(function (f) {
      if (present[f[0]]) html += '<span class="sw" style="background:' + f[2] + '"></span>' + f[0] + " ";
    });
    html += '<span class="sw" style="background:linear-gradient(90deg,#eee,#3b73c8)"></span>darker: ' +
            (D.timed ? "more time (measured)" : "more MACs") + " ";
    if (D.compare)
      html += '<span class="sw removed"></span>removed <span class="sw added"></span>added ' +
              '<span class="sw changed"></span>changed';
    legend.innerHTML = html;
  })();
  render();
  fit();
  /* a node named in the URL's fragment (#node=NAME) is shown */
  var m = /[#&]node=([^&]+)/.exec(location.hash);
  if (m) {
    var want = decodeURIComponent(m[1]);
    N.forEach(function (n) { if (n.name === want) { reveal(n); render(); details(n); centerOn(n); } });
  }
  root.dataset.ready = "1";
  root.dataset.loadMs = Math.round(performance.now() - t0);
  window.nnfxGraph = { nodes: N, root: R, render: render, details: details, reveal: reveal };
})();
