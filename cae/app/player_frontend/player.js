// The browser half of the Playground's player (cae/app/player.py is the server half).
//
// A Streamlit custom component (components.v1, plain JavaScript, no build step). It keeps a queue of frames the
// server computed and draws one after another on a canvas, as the page's stage lays the still view out
// (cae/streamlit_glue/stage.py): the picture a square as high as the frame, beside it the numbers, the key and the traces that
// decide the next step. Each frame is the page's own figure (cae/app/figures/network.py, as plain data); this file
// draws the part of Plotly's figure format those figures use — markers of a few symbols, lines with gaps and fills,
// the edges as SVG paths, notes — on a 2-D canvas: a frame costs a few milliseconds to draw where plotly.js's
// WebGL took 40 without a graphics processor, so Play keeps the display's rate. It asks for more frames before the
// queue runs dry; Pause stops on the frame shown and tells the server its step. Nothing is loaded from anywhere.
"use strict";
(function () {
  const $ = (id) => document.getElementById(id);
  const plot = $("plot");
  const FONT = '"Source Sans", "Source Sans Pro", sans-serif';

  // --------------------------------------------------------------- Streamlit's component protocol
  function post(type, extra) {
    window.parent.postMessage(Object.assign({ isStreamlitMessage: true, type: type }, extra || {}), "*");
  }
  function send(value) {
    post("streamlit:setComponentValue", { value: value, dataType: "json" });
  }
  let lastHeight = 0;
  function fitHeight() {
    const h = Math.ceil(document.body.scrollHeight);
    if (h !== lastHeight) {
      lastHeight = h;
      post("streamlit:setFrameHeight", { height: h });
    }
  }

  // ------------------------------------------------------------------------------------- state
  const st = {
    epoch: null,
    queue: [], // frames received, not drawn yet
    shown: null, // the frame on the canvas
    playing: false,
    final: false, // the server has sent the stream's last frame
    fps: 30, // the speed chosen
    drawAvg: 0, // ms a frame takes to draw here (a running average)
    reqSeq: 0, // the last request sent
    pending: false, // a request is on its way
    askedAt: 0,
    seen: new Set(), // chunks taken (a rerun may send one again)
    nSamples: 0,
    tStart: 0,
    cycle: 1000, // ms from asking for frames to having them (a running average)
    handedOver: false, // the page's still view has given way to this player
    serverMs: 0, // ms the server takes to compute a frame (a running average of the answers' own timing)
    nextDue: 0, // when the next frame is due (a grid of 1000/fps ms, so that the speed is kept on average)
    ended: false,
    side: 400, // the side panel's least width (px), as the page's stage
    series: null, // the traces beside the picture: {names, modes, t: [], v: [[]...]}
    saidAt: 0, // when the summary sentence was last written
    stats: { shown: 0, times: [], drawMs: [], waits: 0, asked: {}, answers: [], firstDrawnAt: null }, // for the tests
  };
  window.playerState = st; // read by the browser tests and the benchmark

  function status(text) {
    const el = $("status");
    if (el.textContent !== text) el.textContent = text;
  }

  // The page's own fonts (Streamlit's Source Sans), so that the frames read like the still view.
  function copyFonts() {
    try {
      const doc = window.parent.document;
      const rules = [];
      for (const sheet of doc.styleSheets) {
        let list;
        try { list = sheet.cssRules; } catch (e) { continue; }
        const base = sheet.href || doc.baseURI;
        for (const r of list) {
          if (r.type === 5) { // CSSRule.FONT_FACE_RULE (the rule belongs to the parent's realm)
            rules.push(r.cssText.replace(/url\((['"]?)([^'")]+)\1\)/g, function (m, q, u) {
              return 'url("' + new URL(u, base).href + '")';
            }));
          }
        }
      }
      if (rules.length) {
        const style = document.createElement("style");
        style.textContent = rules.join("\n");
        document.head.appendChild(style);
      }
    } catch (e) { /* the page is elsewhere: the fallback font */ }
  }

  // ------------------------------------------------------------------- typed arrays (plotly.js's specs)
  const TYPED = { f8: Float64Array, f4: Float32Array, i4: Int32Array, i2: Int16Array, i1: Int8Array,
    u4: Uint32Array, u2: Uint16Array, u1: Uint8Array };
  function isSpec(v) { return v !== null && typeof v === "object" && typeof v.bdata === "string" && typeof v.dtype === "string"; }
  function isPlain(v) { return v !== null && typeof v === "object" && !Array.isArray(v) && !ArrayBuffer.isView(v) && !isSpec(v); }
  const decodedSpecs = new WeakMap();
  function decoded(v) {
    if (!isSpec(v)) return v;
    let out = decodedSpecs.get(v);
    if (out === undefined) {
      const bin = atob(v.bdata);
      const bytes = new Uint8Array(bin.length);
      for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
      out = new TYPED[v.dtype](bytes.buffer);
      decodedSpecs.set(v, out);
    }
    return out;
  }
  function values(v) { // an array of numbers, whatever it came as (null for none)
    if (v === undefined || v === null) return null;
    v = decoded(v);
    return (Array.isArray(v) || ArrayBuffer.isView(v)) ? v : [v];
  }

  // ------------------------------------------------------------------------------ the canvas: size
  let S = 300; // the square's side (css px)
  let dpr = 1;
  function pageNet() { // the square the page's stage script chose (present mode: --net in px on the stage), or 0
    try {
      const v = parseFloat(getComputedStyle(window.frameElement).getPropertyValue("--net"));
      return v > 0 && String(getComputedStyle(window.frameElement).getPropertyValue("--net")).trim().endsWith("px") ? v : 0;
    } catch (e) { return 0; }
  }
  function sizeStage() {
    // the frame is as high as the page's stage square (the page's style sets it; a projector: as high as the side
    // panel); the square takes that height unless the frame is too narrow to leave the side panel its room, or the
    // page's stage script chose a smaller one (the present mode fits the side panel's content)
    const w = window.innerWidth || 800;
    const h = window.innerHeight || 600;
    const side = Math.max(st.side, 160);
    const net = document.body.classList.contains("present") ? pageNet() : 0;
    const s = Math.floor(Math.max(160, net || Math.min(h - 4, w - side - 16)));
    dpr = Math.min(2, Math.max(1, window.devicePixelRatio || 1));
    if (s !== S || plot.width !== Math.round(s * dpr)) {
      S = s;
      plot.style.width = S + "px";
      plot.style.height = S + "px";
      plot.width = Math.round(S * dpr);
      plot.height = Math.round(S * dpr);
      $("main").style.width = S + "px";
    }
    placeBar();
  }

  // A projector: the bar (Pause, speed, the slider) under the square where the square leaves room for it, as the still
  // view's scrubber; else at the top of the side panel.
  function placeBar() {
    const bar = $("bar");
    const under = document.body.classList.contains("present") && (window.innerHeight || 600) - S >= 74;
    const parent = under ? $("main") : $("side");
    if (bar.parentElement !== parent) {
      if (under) parent.appendChild(bar); else parent.insertBefore(bar, parent.firstChild);
    }
    bar.classList.toggle("under", under);
  }

  // ------------------------------------------------------------------------------ the canvas: drawing
  function niceTicks(lo, hi, n) {
    const span = hi - lo;
    if (!(span > 0)) return [lo];
    const raw = span / Math.max(n, 1);
    const p = Math.pow(10, Math.floor(Math.log10(raw)));
    const step = [1, 2, 5, 10].map((m) => m * p).find((s) => s >= raw) || 10 * p;
    const out = [];
    for (let k = Math.ceil(lo / step - 1e-9); k <= Math.floor(hi / step + 1e-9); k++) out.push(k * step + 0);
    return out;
  }
  function tickText(v) {
    const a = Math.abs(v);
    if (a !== 0 && (a < 1e-3 || a >= 1e6)) return v.toExponential(1);
    return String(Number(v.toPrecision(6)));
  }
  function plainText(html) { return String(html).replace(/<[^>]*>/g, ""); }

  // a marker's outline at (x, y) of radius r, as Plotly's symbols look (filled or open alike)
  function symbolPath(ctx, symbol, x, y, r) {
    const base = symbol.replace("-open", "");
    if (base === "diamond") {
      const d = r * 1.3;
      ctx.moveTo(x, y - d); ctx.lineTo(x + d, y); ctx.lineTo(x, y + d); ctx.lineTo(x - d, y); ctx.closePath();
    } else if (base === "square") {
      const d = r * 0.9;
      ctx.rect(x - d, y - d, 2 * d, 2 * d);
    } else if (base === "star") {
      for (let k = 0; k < 10; k++) {
        const rr = k % 2 ? r * 0.55 : r * 1.3;
        const a = -Math.PI / 2 + k * Math.PI / 5;
        if (k) ctx.lineTo(x + rr * Math.cos(a), y + rr * Math.sin(a)); else ctx.moveTo(x + rr * Math.cos(a), y + rr * Math.sin(a));
      }
      ctx.closePath();
    } else {
      ctx.moveTo(x + r, y);
      ctx.arc(x, y, r, 0, 2 * Math.PI);
    }
  }
  function strokeSymbol(ctx, symbol, x, y, r, colour, width) { // x and cross are drawn as strokes
    const base = symbol.replace("-open", "");
    ctx.beginPath();
    if (base === "x") {
      const d = r * 0.85;
      ctx.moveTo(x - d, y - d); ctx.lineTo(x + d, y + d); ctx.moveTo(x - d, y + d); ctx.lineTo(x + d, y - d);
    } else {
      ctx.moveTo(x - r, y); ctx.lineTo(x + r, y); ctx.moveTo(x, y - r); ctx.lineTo(x, y + r);
    }
    ctx.strokeStyle = colour;
    ctx.lineWidth = width;
    ctx.lineCap = "round";
    ctx.stroke();
  }

  function drawMarkers(ctx, t, X, Y, x, y) {
    const m = t.marker || {};
    const symbol = String(m.symbol || "circle");
    const sizes = values(m.size);
    const colours = Array.isArray(m.color) ? m.color : null;
    const one = colours ? null : (m.color || "#1f77b4");
    const line = m.line || {};
    const lw = Number(line.width || 0);
    const open = symbol.endsWith("-open");
    const n = x.length;
    if (!colours && !open && lw === 0 && symbol === "circle" && (!sizes || sizes.length === 1) && (sizes ? sizes[0] : 6) <= 9) {
      // the data: a few thousand dots of one colour and size, one path (squares up to 4.5 px, discs above)
      const r = (sizes ? sizes[0] : 6) / 2;
      ctx.fillStyle = one;
      ctx.beginPath();
      for (let i = 0; i < n; i++) {
        const px = X(x[i]), py = Y(y[i]);
        if (!(px === px && py === py)) continue;
        if (r <= 2.25) ctx.rect(px - r, py - r, 2 * r, 2 * r);
        else { ctx.moveTo(px + r, py); ctx.arc(px, py, r, 0, 2 * Math.PI); }
      }
      ctx.fill();
      return;
    }
    const base = symbol.replace("-open", "");
    for (let i = 0; i < n; i++) {
      const px = X(x[i]), py = Y(y[i]);
      if (!(px === px && py === py)) continue;
      const r = (sizes ? (sizes.length > 1 ? sizes[i] : sizes[0]) : 6) / 2;
      const c = colours ? colours[i] : one;
      if (base === "x" || base === "cross") {
        if (lw > 0) strokeSymbol(ctx, symbol, px, py, r, line.color || c, Math.max(r * 0.55, 1) + lw);
        strokeSymbol(ctx, symbol, px, py, r, c, Math.max(r * 0.55, 1));
        continue;
      }
      ctx.beginPath();
      symbolPath(ctx, symbol, px, py, r);
      if (open) {
        ctx.strokeStyle = c;
        ctx.lineWidth = Math.max(lw, 1);
        ctx.stroke();
      } else {
        ctx.fillStyle = c;
        ctx.fill();
        if (lw > 0) { ctx.strokeStyle = line.color || c; ctx.lineWidth = lw; ctx.stroke(); }
      }
    }
  }

  const DASHES = { dot: [2, 3], dash: [6, 4], dashdot: [6, 3, 2, 3] };
  function drawLines(ctx, t, X, Y, x, y) {
    const line = t.line || {};
    ctx.beginPath();
    let open = false;
    const n = x.length;
    for (let i = 0; i < n; i++) {
      const px = X(x[i]), py = Y(y[i]);
      if (!(px === px && py === py) || x[i] === null || y[i] === null) {
        if (open && t.fill === "toself") ctx.closePath();
        open = false;
        continue;
      }
      if (open) ctx.lineTo(px, py); else { ctx.moveTo(px, py); open = true; }
    }
    if (open && t.fill === "toself") ctx.closePath();
    if (t.fill === "toself" && t.fillcolor) { ctx.fillStyle = t.fillcolor; ctx.fill(); }
    ctx.setLineDash(DASHES[line.dash] || []);
    ctx.strokeStyle = line.color || "#444";
    ctx.lineWidth = line.width === undefined ? 2 : Number(line.width);
    ctx.lineJoin = "round";
    if (ctx.lineWidth > 0) ctx.stroke();
    ctx.setLineDash([]);
  }

  function drawPath(ctx, shape, X, Y) { // a layout shape of type path ("M x,y L x,y ..."): the edges
    const d = String(shape.path || "");
    const nums = d.match(/-?[\d.]+(?:e-?\d+)?/g) || [];
    const cmds = d.match(/[ML]/g) || [];
    ctx.beginPath();
    for (let k = 0, j = 0; k < cmds.length; k++, j += 2) {
      const px = X(parseFloat(nums[j])), py = Y(parseFloat(nums[j + 1]));
      if (cmds[k] === "M") ctx.moveTo(px, py); else ctx.lineTo(px, py);
    }
    const line = shape.line || {};
    ctx.strokeStyle = line.color || "#444";
    ctx.lineWidth = Number(line.width || 1);
    ctx.lineCap = "round";
    ctx.setLineDash(DASHES[line.dash] || []);
    ctx.stroke();
    ctx.setLineDash([]);
  }

  function drawNote(ctx, a, X, Y, box, fs) {
    const font = a.font || {};
    const size = Number(font.size || fs);
    const text = plainText(a.text || "");
    const bold = /<b>/.test(a.text || "");
    ctx.font = (bold ? "600 " : "") + size + "px " + FONT;
    let px, py;
    if (String(a.xref || "").includes("domain")) px = box.x + a.x * box.w; else px = X(a.x);
    if (String(a.yref || "").includes("domain")) py = box.y + (1 - a.y) * box.h; else py = Y(a.y);
    px += Number(a.xshift || 0);
    py -= Number(a.yshift || 0);
    const w = ctx.measureText(text).width, h = size * 1.2;
    const left = a.xanchor === "right" ? px - w : a.xanchor === "center" ? px - w / 2 : px;
    const top = a.yanchor === "top" ? py : a.yanchor === "middle" ? py - h / 2 : py - h;
    if (a.bgcolor || a.bordercolor) {
      const pad = 3;
      ctx.fillStyle = a.bgcolor || "rgba(255,255,255,0.85)";
      ctx.fillRect(left - pad, top - pad, w + 2 * pad, h + 2 * pad);
      if (a.bordercolor) {
        ctx.strokeStyle = a.bordercolor; ctx.lineWidth = Number(a.borderwidth || 1);
        ctx.strokeRect(left - pad, top - pad, w + 2 * pad, h + 2 * pad);
      }
    }
    ctx.fillStyle = font.color || "#222";
    ctx.textBaseline = "top";
    ctx.fillText(text, left, top + size * 0.1);
  }

  // The figure on the canvas: the axes' ranges with equal aspect, centred (Plotly's constrain="domain"), the grid
  // and the axis numbers, the edges (layout shapes), the traces in order (data, model, marks), the notes.
  function render(fig) {
    const ctx = plot.getContext("2d");
    const L = fig.layout || {};
    const fs = Number((L.font && L.font.size) || 14);
    const xa = L.xaxis || {}, ya = L.yaxis || {};
    const xr = xa.range || [0, 1], yr = ya.range || [0, 1];
    const xt = xa.tickvals ? values(xa.tickvals) : niceTicks(xr[0], xr[1], 6);
    const yt = ya.tickvals ? values(ya.tickvals) : niceTicks(yr[0], yr[1], 6);
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.fillStyle = L.plot_bgcolor || "white";
    ctx.fillRect(0, 0, S, S);
    ctx.font = fs + "px " + FONT;
    let yw = 0;
    for (const v of yt) yw = Math.max(yw, ctx.measureText(tickText(v)).width);
    const ml = Math.ceil(yw) + 10, mb = Math.ceil(fs * 1.2) + 10, mt = 6, mr = 8;
    const aw = S - ml - mr, ah = S - mt - mb;
    const k = Math.min(aw / ((xr[1] - xr[0]) || 1), ah / ((yr[1] - yr[0]) || 1));
    const pw = k * (xr[1] - xr[0]), ph = k * (yr[1] - yr[0]);
    const box = { x: ml + (aw - pw) / 2, y: mt + (ah - ph) / 2, w: pw, h: ph };
    const X = (v) => box.x + (v - xr[0]) * k;
    const Y = (v) => box.y + ph - (v - yr[0]) * k;
    // grid and numbers
    ctx.strokeStyle = xa.gridcolor || "#eee";
    ctx.lineWidth = 1;
    ctx.beginPath();
    for (const v of xt) { const p = Math.round(X(v)) + 0.5; if (p >= box.x - 1 && p <= box.x + pw + 1) { ctx.moveTo(p, box.y); ctx.lineTo(p, box.y + ph); } }
    for (const v of yt) { const p = Math.round(Y(v)) + 0.5; if (p >= box.y - 1 && p <= box.y + ph + 1) { ctx.moveTo(box.x, p); ctx.lineTo(box.x + pw, p); } }
    ctx.stroke();
    ctx.fillStyle = "#5f5e5d";
    ctx.textBaseline = "top";
    ctx.textAlign = "center";
    for (const v of xt) { const p = X(v); if (p >= box.x - 1 && p <= box.x + pw + 1) ctx.fillText(tickText(v), p, box.y + ph + 6); }
    ctx.textAlign = "right";
    ctx.textBaseline = "middle";
    for (const v of yt) { const p = Y(v); if (p >= box.y - 1 && p <= box.y + ph + 1) ctx.fillText(tickText(v), box.x - 6, p); }
    ctx.textAlign = "left";
    // the picture, clipped to the plot
    ctx.save();
    ctx.beginPath();
    ctx.rect(box.x, box.y, pw, ph);
    ctx.clip();
    for (const s of L.shapes || []) if (s.type === "path") drawPath(ctx, s, X, Y);
    for (const t of fig.data || []) {
      if (t.visible === false) continue;
      const x = values(t.x), y = values(t.y);
      if (!x || !y || !x.length) continue;
      ctx.globalAlpha = t.opacity === undefined ? 1 : Number(t.opacity);
      const mode = String(t.mode || "markers");
      if (mode.includes("lines") || t.fill === "toself") drawLines(ctx, t, X, Y, x, y);
      if (mode.includes("markers")) drawMarkers(ctx, t, X, Y, x, y);
      ctx.globalAlpha = 1;
    }
    ctx.restore();
    for (const a of L.annotations || []) drawNote(ctx, a, X, Y, box, fs);
    st.box = box; // for the tests: where the plot is on the canvas
  }

  // ------------------------------------------------------------------ the side: numbers, key, traces
  function esc(s) {
    return String(s).replace(/[&<>"']/g, function (c) {
      return { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }[c];
    });
  }
  function metric(label, value, sub) {
    return '<div class="m" data-label="' + esc(label) + '"><div class="l">' + esc(label) + '</div><div class="v">' + esc(value) +
      "</div>" + (sub ? '<div class="d">' + esc(sub) + "</div>" : "") + "</div>";
  }
  // the still view's layout (pages/playground.py _numbers): samples seen (of N) and the stream; the counts and the
  // scores; the algorithm's two numbers (cae/app/panel.py's rows, in its order)
  function showPanel(frame) {
    const p = frame.panel || {};
    const r = p.metrics || [];
    let html = "";
    if (r.length >= 8 && document.body.classList.contains("present")) {
      // a projector: one row that wraps, as the still view (samples seen, stream, λ, V, the counts, the scores)
      html += '<div class="row wrap">' + [0, 1, 6, 7, 2, 3, 4, 5].map((k) => metric(r[k][0], r[k][1], r[k][2])).join("") + "</div>";
    } else if (r.length >= 8) {
      html += '<div class="row">' + metric(r[0][0], r[0][1], r[0][2]) + metric(r[1][0], r[1][1]) + "</div>";
      html += '<div class="row">' + [2, 3, 4, 5].map((k) => metric(r[k][0], r[k][1], r[k][2])).join("") + "</div>";
      html += '<div class="row">' + metric(r[6][0], r[6][1], r[6][2]) + metric(r[7][0], r[7][1], r[7][2]) + "</div>";
    }
    if (p.last) html += '<p class="last"><b>Last step</b> · ' + esc(p.last) + "</p>";
    if (p.finished) html += '<div class="end">End of the stream.</div>';
    $("panel").innerHTML = html;
    const key = frame.figure && frame.figure.layout && frame.figure.layout.meta && frame.figure.layout.meta.key;
    if (key && key !== st.keyShown) { $("key").innerHTML = key; st.keyShown = key; } // HTML the server wrote
    const slider = $("slider");
    slider.max = String(Math.max(1, st.nSamples));
    slider.value = String(frame.t);
    $("step").textContent = "step " + frame.t.toLocaleString("en-US") + " of " + st.nSamples.toLocaleString("en-US");
    document.body.dataset.t = String(frame.t);
    document.body.dataset.shown = String(st.stats.shown);
    summary(frame, r);
  }

  // One sentence for a screen reader (and the canvas's name): what is shown, at most every 4 s while playing.
  function summary(frame, rows, force) {
    const now = performance.now();
    if (!force && now - st.saidAt < 4000) return;
    st.saidAt = now;
    const p = frame.panel || {};
    const get = (k) => (rows[k] ? rows[k][1] : "—");
    const text = (st.playing ? "Playing: " : "Paused: ") + "step " + frame.t.toLocaleString("en-US") + " of " +
      st.nSamples.toLocaleString("en-US") + ", " + get(2) + " nodes, " + get(3) + " clusters" +
      (p.last ? "; last step " + p.last : "") + ".";
    $("summary").textContent = text;
    plot.setAttribute("aria-label", text);
  }

  function takeSeries(s) {
    if (!s || !s.names) return;
    if (!st.series || st.series.names.join() !== s.names.join()) { // a play's first frame brings the history
      st.series = { names: s.names, modes: s.modes, t: [], v: s.names.map(() => []) };
    }
    for (let i = 0; i < s.t.length; i++) {
      st.series.t.push(s.t[i]);
      for (let k = 0; k < s.names.length; k++) st.series.v[k].push(s.v[k][i]);
    }
  }

  function drawSeries(tNow) {
    const c = $("traces");
    const s = st.series;
    if (!s) return;
    const fs = document.body.classList.contains("present") ? 20 : 14;
    const w = Math.max(120, $("side").clientWidth);
    let rowH = fs * 1.3 + (document.body.classList.contains("present") ? 56 : 40);
    if (document.body.classList.contains("present")) { // a projector: the rows share what the side panel leaves
      const room = (window.innerHeight || 600) - c.getBoundingClientRect().top - 6;
      rowH = Math.max(fs * 1.3 + 16, (room - fs * 1.4) / s.names.length);
    }
    const h = Math.round(rowH * s.names.length + fs * 1.4);
    if (c.width !== Math.round(w * dpr) || c.height !== Math.round(h * dpr)) {
      c.width = Math.round(w * dpr); c.height = Math.round(h * dpr);
      c.style.width = w + "px"; c.style.height = h + "px";
    }
    const ctx = c.getContext("2d");
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.clearRect(0, 0, w, h);
    const x0 = fs * 2.6, x1 = w - 8;
    const tMax = Math.max(1, tNow * 1.02);
    const X = (t) => x0 + (t / tMax) * (x1 - x0);
    ctx.font = fs + "px " + FONT;
    for (let k = 0; k < s.names.length; k++) {
      const top = k * rowH, plotTop = top + fs * 1.3, plotH = rowH - fs * 1.3 - 8;
      ctx.fillStyle = "#5f5e5d";
      ctx.textBaseline = "top";
      ctx.textAlign = "left";
      ctx.fillText(s.names[k], x0, top);
      const vs = s.v[k].filter((v) => v !== null && v === v);
      if (!vs.length) continue;
      let lo = Math.min.apply(null, vs), hi = Math.max.apply(null, vs);
      if (hi - lo < 1e-9) { lo -= 1; hi += 1; }
      const Y = (v) => plotTop + plotH - ((v - lo) / (hi - lo)) * plotH;
      ctx.textAlign = "right";
      ctx.textBaseline = "middle";
      ctx.fillText(tickText(Number(hi.toPrecision(2))), x0 - 4, plotTop + 4);
      ctx.fillText(tickText(Number(lo.toPrecision(2))), x0 - 4, plotTop + plotH - 2);
      ctx.strokeStyle = "#1f4e79";
      ctx.fillStyle = "#1f4e79";
      ctx.lineWidth = 2;
      ctx.beginPath();
      let on = false, last = null;
      for (let i = 0; i < s.t.length; i++) {
        const v = s.v[k][i];
        if (v === null || v !== v) { on = false; continue; }
        const px = X(s.t[i]), py = Y(v);
        last = [px, py];
        if (s.modes[k] === "markers") { ctx.rect(px - 1.2, py - 1.2, 2.4, 2.4); continue; }
        if (on) ctx.lineTo(px, py); else { ctx.moveTo(px, py); on = true; }
      }
      if (s.modes[k] === "markers") ctx.fill(); else ctx.stroke();
      if (last) { ctx.fillStyle = "black"; ctx.beginPath(); ctx.arc(X(tNow), last[1], 4.5, 0, 2 * Math.PI); ctx.fill(); }
    }
    ctx.strokeStyle = "black";
    ctx.lineWidth = 1;
    ctx.beginPath();
    ctx.moveTo(Math.round(X(tNow)) + 0.5, 0);
    ctx.lineTo(Math.round(X(tNow)) + 0.5, h - fs * 1.4);
    ctx.stroke();
    ctx.fillStyle = "#5f5e5d";
    ctx.textAlign = "right";
    ctx.textBaseline = "top";
    ctx.fillText("samples seen: " + tNow.toLocaleString("en-US"), x1, h - fs * 1.3);
  }

  // ------------------------------------------------------------------------------------ drawing
  function draw(frame) {
    const t0 = performance.now();
    sizeStage();
    render(frame.figure);
    st.shown = frame;
    st.stats.shown += 1;
    takeSeries((frame.panel || {}).series);
    showPanel(frame);
    drawSeries(frame.t);
    const t1 = performance.now();
    if (!st.handedOver) { st.handedOver = true; handOver(); }
    if (st.stats.firstDrawnAt === null) st.stats.firstDrawnAt = performance.timeOrigin + t1;
    if (st.stats.shown > 1) st.drawAvg = st.drawAvg ? 0.8 * st.drawAvg + 0.2 * (t1 - t0) : t1 - t0;
    st.stats.times.push(t1);
    st.stats.drawMs.push(t1 - t0);
    if (st.stats.times.length > 2000) { st.stats.times.shift(); st.stats.drawMs.shift(); }
    if (st.stats.shown < 3 || (frame.panel || {}).finished) fitHeight();
  }

  // The page shows its still view until the first frame is drawn here (this frame is laid, invisible, over it
  // until then): a mark on this frame's element in the page, which the page's style reads.
  function handOver() {
    try { if (window.frameElement) window.frameElement.setAttribute("data-drawn", "1"); } catch (e) { /* elsewhere */ }
  }

  // The frames per second drawn: the speed chosen, or fewer where a frame takes longer to draw, or where the
  // server computes fewer frames a second than that (a busy machine): a rate it holds, rather than bursts.
  function serverRate() {
    return st.serverMs > 0 ? 1000 / (1.15 * st.serverMs) : Infinity;
  }
  function rate() {
    return Math.max(1, Math.min(st.fps, 1000 / (1.5 * st.drawAvg || 1), serverRate()));
  }

  function shownT() { return st.shown ? st.shown.t : st.tStart; }

  function ask() {
    if (st.pending && performance.now() - st.askedAt > 6000) st.pending = false; // lost on the way: ask again
    if (st.pending || st.final || !st.playing || st.epoch === null) return;
    // ask while the frames left still cover the time the last answer took (and a margin)
    if (st.queue.length > Math.max(2, rate() * Math.max(1.0, 1.3 * st.cycle / 1000))) return;
    st.pending = true;
    st.askedAt = performance.now();
    st.reqSeq += 1;
    st.stats.asked[st.reqSeq] = performance.now();
    send({ epoch: st.epoch, seq: st.reqSeq, shown: shownT(), fps: rate() });
  }

  function stop(reason) {
    if (st.ended) return;
    st.ended = true;
    st.playing = false;
    st.queue = [];
    $("pause").disabled = true;
    const t = shownT();
    status(reason === "end" ? "end of the stream" : "paused at step " + t.toLocaleString("en-US") + "…");
    if (st.shown) summary(st.shown, (st.shown.panel || {}).metrics || [], true);
    st.reqSeq += 1;
    send({ epoch: st.epoch, seq: st.reqSeq, shown: t, fps: st.fps, pause: true });
    switchPlayOff();
  }

  // The page's Play switch goes off in the browser, with the Pause. Left on until the server's answer came back,
  // it went with every request the page sent meanwhile (a fragment's timer, a click elsewhere): the server took
  // that "on" for the user's and played again from the start of the run (a class on a busy machine was played
  // to the end after its teacher's Pause: 2 of 6 runs of the classroom's browser test with two busy loops beside).
  // The switch is flipped by a listener of the page's own, on a message posted after the Pause's: messages from
  // this frame reach the page in order, so the Pause's request leaves first (flipped here, in this frame's task,
  // the switch's request went first, and the server stopped on the last step it had been told of).
  function switchPlayOff() {
    if (!st.toggleKey) return;
    try {
      const page = window.parent;
      if (!page.__caeSwitchOff) {
        const script = page.document.createElement("script"); // in the page's realm: it outlives this frame
        script.textContent =
          "window.__caeSwitchOff = true; window.addEventListener('message', function (ev) {" +
          " if (!ev.data || ev.data.type !== 'cae:switchPlayOff' || !/^[A-Za-z0-9_-]+$/.test(ev.data.key)) return;" +
          " var box = document.querySelector('.st-key-' + ev.data.key + ' input[type=checkbox]');" +
          " if (box && box.checked) box.click(); });";
        page.document.head.appendChild(script);
      }
      page.postMessage({ type: "cae:switchPlayOff", key: st.toggleKey }, "*");
    } catch (e) { /* not the page's origin: the server's Pause alone switches it off */ }
  }

  function loop(now) {
    window.requestAnimationFrame(loop);
    if (!st.playing) return;
    // Frames are due on a grid of 1000/fps ms and drawn at the first screen refresh from then: a frame that
    // lands one refresh late does not delay the ones after it
    const interval = 1000 / rate();
    if (now < st.nextDue - 8) return; // half a refresh early is on time
    const frame = st.queue.shift();
    if (frame === undefined) {
      if (st.final) { stop("end"); return; }
      if (st.shown) { st.stats.waits += 1; status("computing the next frames…"); }
      st.nextDue = now; // the next frame as soon as it is here, and the grid from it
      ask();
      return;
    }
    st.nextDue = Math.max(st.nextDue + interval, now - interval); // late by more: one frame to catch up, no burst
    const r = rate();
    status(r >= st.fps - 0.5 ? "" : (serverRate() <= r + 0.5 ? "the server computes " : "this computer draws ")
      + Math.round(r) + " frames/s");
    draw(frame);
    ask();
  }

  // ------------------------------------------------------------------- frames sent as patches
  // A chunk's first frame is the whole figure; each later one is a patch on the frame before it
  // (cae/app/player.py, figure_patch: the keys that changed; "$del" lists keys gone; an array is
  // {"$set": [indices, values]} or {"$splice": [a, p, s, middle]}: old[a:] keeps its first p and last
  // s elements with middle between); a long SVG path (the edges) is {"$text": ["M", [[i1, i2, pieces]]]},
  // its pieces between "M"s with old i1:i2 replaced; {"$items": [...]} patches a list of objects (the
  // layout's shapes) one by one. Typed arrays ({dtype, bdata}) are decoded to be patched. When
  // traces came or went, data is {"$from": [[index of the old trace or -1, its patch or the trace]]}.
  function applyPatch(old, p) {
    if (!isPlain(p)) return p;
    if (p.$set) {
      const idx = decoded(p.$set[0]), vals = decoded(p.$set[1]);
      const out = decoded(old).slice();
      for (let i = 0; i < idx.length; i++) out[idx[i]] = vals[i];
      return out;
    }
    if (p.$splice) {
      const a = p.$splice[0], pre = p.$splice[1], suf = p.$splice[2], mid = decoded(p.$splice[3]);
      const base = decoded(old);
      const end = base.length - suf;
      if (ArrayBuffer.isView(base)) {
        const out = new base.constructor(pre + mid.length + suf);
        out.set(base.subarray(a, a + pre), 0);
        out.set(mid, pre);
        out.set(base.subarray(end), pre + mid.length);
        return out;
      }
      return base.slice(a, a + pre).concat(Array.from(mid), base.slice(end));
    }
    if (p.$items) return old.map(function (o, i) { return Object.keys(p.$items[i]).length ? applyPatch(o, p.$items[i]) : o; });
    if (p.$text) {
      const sep = p.$text[0], pieces = old.split(sep).slice(1), out = [];
      let at = 0;
      for (const op of p.$text[1]) {
        for (let i = at; i < op[0]; i++) out.push(pieces[i]);
        for (const x of op[2]) out.push(x);
        at = op[1];
      }
      for (let i = at; i < pieces.length; i++) out.push(pieces[i]);
      return out.length ? sep + out.join(sep) : "";
    }
    if (!isPlain(old)) return p;
    const out = Object.assign({}, old);
    for (const k of Object.keys(p)) {
      if (k === "$del") { for (const gone of p.$del) delete out[gone]; }
      else out[k] = k in old ? applyPatch(old[k], p[k]) : p[k];
    }
    return out;
  }
  function patchedFigure(prev, patch) {
    let data = prev.data;
    if (Array.isArray(patch.data)) data = prev.data.map(function (d, i) { return applyPatch(d, patch.data[i]); });
    else if (patch.data && patch.data.$from) {
      data = patch.data.$from.map(function (e) { return e[0] < 0 ? e[1] : applyPatch(prev.data[e[0]], e[1]); });
    }
    return { data: data, layout: "layout" in patch ? applyPatch(prev.layout, patch.layout) : prev.layout };
  }

  // What the frame shown draws, as the tests read a still view's Plotly figure: the nodes, the marks, the layers.
  st.drawn = function () {
    const f = st.shown && st.shown.figure;
    if (!f) return null;
    const arr = (v) => { v = values(v); return v ? Array.from(v) : null; };
    const nodes = f.data.find((t) => t.name === "nodes" && t.x);
    return {
      nodes: nodes ? [arr(nodes.x), arr(nodes.y)] : null,
      marks: f.data.filter((t) => t.visible !== false && t.x && values(t.x).length).map((t) => JSON.stringify([t.name,
        t.type, t.mode || "", typeof (t.marker || {}).color === "string" ? t.marker.color : null,
        (t.line || {}).color || null, (t.marker || {}).symbol || null])),
      layers: [f.data.filter((t) => t.visible !== false && t.x && values(t.x).length).map((t) => JSON.stringify([t.name,
        arr(t.x), arr(t.y), t.text ? Array.from(t.text) : null,
        t.marker && t.marker.size !== undefined && typeof t.marker.size !== "number" ? arr(t.marker.size) : null,
        t.marker && Array.isArray(t.marker.color) ? t.marker.color : null])).sort(),
      (f.layout.shapes || []).map((s) => JSON.stringify([s.name, s.path, s.line.color]))],
    };
  };

  // ----------------------------------------------------------------------------- render messages
  let started = false;
  function take(chunkBytes) {
    if (!chunkBytes || !chunkBytes.byteLength) return;
    const c = JSON.parse(new TextDecoder("utf-8").decode(chunkBytes));
    if (c.epoch !== st.epoch || st.seen.has(c.seq)) return;
    st.seen.add(c.seq);
    const asked = st.stats.asked[c.seq];
    if (asked !== undefined) st.cycle = 0.5 * st.cycle + 0.5 * (performance.now() - asked);
    const now = performance.timeOrigin + performance.now();
    const t = c.timing || [];
    // [seq, ms from asking to having the frames, frames, frames still queued, ms asking -> server starts,
    //  ms computing, ms server done -> frames here]
    st.stats.answers.push([c.seq, asked === undefined ? null : performance.now() - asked, c.frames.length, st.queue.length,
      asked === undefined || !t.length ? null : t[0] - (performance.timeOrigin + asked), t.length ? t[1] - t[0] : null, t.length ? now - t[1] : null]);
    if (st.stats.answers.length > 500) st.stats.answers.shift();
    if (t.length && c.frames.length) { // the server's own time per frame (a busy machine: hundreds of ms)
      const ms = (t[1] - t[0]) / c.frames.length;
      st.serverMs = st.serverMs ? 0.6 * st.serverMs + 0.4 * ms : ms;
    }
    st.nSamples = c.n_samples;
    st.tStart = c.t_start;
    let prev = null;
    for (const f of c.frames) {
      if (f.patch) { f.figure = patchedFigure(prev, f.patch); delete f.patch; }
      prev = f.figure;
      st.queue.push(f);
    }
    if (c.final) st.final = true;
    if (c.seq >= st.reqSeq) st.pending = false;
  }

  function onRender(msg) {
    const a = msg.args || {};
    if (!started) {
      started = true;
      copyFonts();
      st.fps = Number(a.fps) || 30;
      st.side = Number(a.side) || 400;
      st.toggleKey = a.toggle_key ? String(a.toggle_key) : "";
      if (a.present) document.body.classList.add("present");
      const sel = $("fps");
      if (!sel.querySelector('option[value="' + st.fps + '"]')) {
        const o = document.createElement("option"); o.value = String(st.fps); o.textContent = String(st.fps); sel.appendChild(o);
      }
      sel.value = String(st.fps);
      sizeStage();
      window.requestAnimationFrame(loop);
    }
    if (a.epoch !== st.epoch) { // a new play: forget the old one's frames
      st.epoch = a.epoch;
      st.queue = [];
      st.seen = new Set();
      st.final = false;
      st.pending = false;
      st.reqSeq = 0;
      st.ended = false;
      st.series = null;
      $("pause").disabled = false;
    }
    st.playing = Boolean(a.playing) && !st.ended;
    if (!(a.epoch === st.epoch && st.seen.has(a.chunk_seq))) take(a.chunk); // a rerun sends the last chunk again
    fitHeight();
  }

  window.addEventListener("message", function (ev) {
    if (ev.data && ev.data.type === "streamlit:render") onRender(ev.data);
  });
  $("pause").addEventListener("click", function () { stop("pause"); });
  $("fps").addEventListener("change", function () { st.fps = Number($("fps").value) || 30; });
  window.addEventListener("resize", function () { sizeStage(); if (st.shown) { render(st.shown.figure); drawSeries(st.shown.t); } fitHeight(); });
  post("streamlit:componentReady", { apiVersion: 1 });
})();
