// The browser half of the Playground's player (cae/app/player.py is the server half).
//
// A Streamlit custom component (components.v1, plain JavaScript, no build step). It keeps a queue
// of frames the server computed, draws one after another on a single plotly.js plot with
// Plotly.react (the plot stays on the page, so no frame is ever an empty plot), shows the numbers
// of the frame drawn beside it, and asks the server for more frames before the queue runs dry.
// Pause stops on the frame shown and tells the server its step. plotly.js comes from the plotly
// Python package, served by the Streamlit server itself: no network beyond it.
"use strict";
(function () {
  const $ = (id) => document.getElementById(id);
  const plot = $("plot");

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
    shown: null, // the frame on the plot
    playing: false,
    final: false, // the server has sent the stream's last frame
    fps: 20, // the speed chosen
    drawAvg: 0, // ms a frame takes to draw here (a running average)
    reqSeq: 0, // the last request sent
    pending: false, // a request is on its way
    askedAt: 0,
    seen: new Set(), // chunks taken (a rerun may send one again)
    nSamples: 0,
    tStart: 0,
    drawing: false,
    cycle: 1000, // ms from asking for frames to having them (a running average)
    handedOver: false, // the page's still view has given way to this player
    serverMs: 0, // ms the server takes to compute a frame (a running average of the answers' own timing)
    lastDraw: 0,
    fitAt: 0, // when the frame's height was last measured
    nextDue: 0, // when the next frame is due (a grid of 1000/fps ms, so that the speed is kept on average)
    ready: false, // plotly.js loaded
    ended: false,
    config: { displaylogo: false },
    stats: { shown: 0, times: [], drawMs: [], waits: 0, asked: {}, answers: [] }, // for the browser test
  };
  window.playerState = st; // read by the browser test

  function status(text) {
    const el = $("status");
    if (el.textContent !== text) el.textContent = text;
  }

  // ------------------------------------------------------------------------- plotly.js and fonts
  function loadPlotly(componentName) {
    return new Promise(function (resolve, reject) {
      if (window.Plotly) return resolve();
      const s = document.createElement("script");
      s.src = new URL("../" + componentName + "/plotly.min.js", window.location.href).href;
      s.onload = function () { resolve(); };
      s.onerror = function () { reject(new Error("plotly.js did not load")); };
      document.head.appendChild(s);
    });
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

  // ------------------------------------------------------------------- the chart theme (as Streamlit)
  // Streamlit's Python side puts a template with placeholder colours into every figure; its chart
  // element swaps them for the theme's colours and adds its fonts as template defaults. The same here.
  const CATEGORICAL = ["#0068c9", "#83c9ff", "#ff2b2b", "#ffabab", "#29b09d", "#7defa1", "#ff8700", "#ffd16a", "#6d3fc0", "#d5dae5"];
  const SEQUENTIAL = ["#e4f5ff", "#c7ebff", "#a6dcff", "#83c9ff", "#60b4ff", "#3d9df3", "#1c83e1", "#0068c9", "#0054a3", "#004280"];
  const DIVERGING = ["#7d353b", "#bd4043", "#ff4b4b", "#ff8c8c", "#ffc7c7", "#a6dcff", "#60b4ff", "#1c83e1", "#0054a3", "#004280"];
  function placeholderColours(text) {
    // only Streamlit's placeholders #000001 ... #000040 (black, #000000, stays black)
    return text.replace(/#0000([0-4][0-9])(?![0-9a-fA-F])/g, function (m, d) {
      const k = parseInt(d, 10);
      if (k < 1 || k > 40) return m;
      if (k >= 1 && k <= 10) return CATEGORICAL[k - 1];
      if (k >= 11 && k <= 20) return SEQUENTIAL[k - 11];
      if (k >= 21 && k <= 30) return DIVERGING[k - 21];
      if (k === 32) return "#29b09d";
      if (k === 33) return "#ff2b2b";
      if (k === 34) return "#0068c9";
      if (k === 38) return "#ffffff";
      if (k === 40) return "#f0f2f6";
      return "#808495";
    });
  }
  let themeLayout = null;
  function makeTheme(theme) {
    const family = (theme && theme.font) || '"Source Sans", sans-serif';
    const text = "#808495";
    const grid = "#e6eaf1";
    const bg = (theme && theme.backgroundColor) || "#ffffff";
    document.body.style.fontFamily = family;
    if (theme && theme.textColor) document.body.style.color = theme.textColor;
    themeLayout = {
      font: { color: text, family: family, size: 12 },
      title: { font: { family: family, size: 16, color: (theme && theme.textColor) || "#31333F" }, xanchor: "left", x: 0 },
      legend: { title: { font: { size: 12, color: text }, side: "top" }, valign: "top", borderwidth: 0, font: { size: 12, color: "#31333F" } },
      paper_bgcolor: bg,
      plot_bgcolor: bg,
      yaxis: { ticklabelposition: "outside", zerolinecolor: grid, tickcolor: grid, gridcolor: grid, tickfont: { color: text, size: 12 }, automargin: true },
      xaxis: { zerolinecolor: grid, gridcolor: grid, showgrid: false, tickcolor: grid, tickfont: { color: text, size: 12 }, zeroline: false, automargin: true },
      margin: { pad: 8, r: 0, l: 0 },
      hoverlabel: { bgcolor: bg, bordercolor: grid, font: { color: text, family: family, size: 12 } },
      coloraxis: { colorbar: { thickness: 16, xpad: 24, ticklabelposition: "outside", outlinewidth: 8, len: 0.75, y: 0.5745 } },
    };
  }
  function isObj(v) { return v !== null && typeof v === "object" && !Array.isArray(v); }
  function mergeDefaults(target, defaults) { // fill what target leaves unset
    for (const k of Object.keys(defaults)) {
      if (isObj(defaults[k])) {
        if (!isObj(target[k])) target[k] = {};
        mergeDefaults(target[k], defaults[k]);
      } else if (!(k in target)) {
        target[k] = defaults[k];
      }
    }
    return target;
  }
  // Plotly.react redraws only what changed, unless the number of traces changes (s1, s2, the nodes
  // removed in a frame come and go): then it tears the WebGL canvases down and builds them again,
  // which is most of a frame's time. So every frame gets the same traces in the same order: each
  // trace has a slot (its type and name), a trace missing from a frame is drawn empty and left out
  // of the legend, and a trace seen for the first time takes its place after the trace before it.
  const slots = []; // keys in drawing order
  const uids = {}; // key -> a stable id plotly.js can use in CSS selectors
  function keyOf(d, seen) {
    const base = (d.type || "scatter") + "|" + (d.name || "");
    const k = (seen[base] = (seen[base] || 0) + 1);
    return base + "|" + k;
  }
  function slotted(data) {
    const seen = {};
    const byKey = {};
    let prev = -1;
    for (const d of data) {
      const k = keyOf(d, seen);
      byKey[k] = d;
      let at = slots.indexOf(k);
      if (at < 0) { at = prev + 1; slots.splice(at, 0, k); }
      prev = Math.max(prev, at);
    }
    return slots.map(function (k) {
      const uid = uids[k] || (uids[k] = "slot" + Object.keys(uids).length);
      const d = byKey[k];
      if (d) return Object.assign({}, d, { uid: uid });
      return { type: k.split("|")[0], x: [], y: [], showlegend: false, hoverinfo: "skip", uid: uid };
    });
  }
  function themed(figure) {
    // a copy of the layout and of each trace's top level: plotly.js writes into what it is given (the
    // axes' ranges, uids), and the next frame's patch applies to the frame as the server sent it
    const layout = JSON.parse(JSON.stringify(figure.layout || {}));
    const tpl = isObj(layout.template) ? layout.template : {};
    tpl.layout = mergeDefaults(isObj(tpl.layout) ? tpl.layout : {}, themeLayout || {});
    layout.template = tpl;
    layout.autosize = true;
    return { data: slotted(figure.data || []), layout: layout };
  }

  // --------------------------------------------------------------------------------- the panel
  function esc(s) {
    return String(s).replace(/[&<>"']/g, function (c) {
      return { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }[c];
    });
  }
  function metric(row) {
    const sub = row.length > 2 ? '<div class="d">' + esc(row[2]) + "</div>" : "";
    return '<div class="m" data-label="' + esc(row[0]) + '"><div class="l">' + esc(row[0]) + '</div><div class="v">' + esc(row[1]) + "</div>" + sub + "</div>";
  }
  // the layout of cae/app/panel.py: the first two rows alone, then its PAIRS side by side
  function showPanel(frame) {
    const p = frame.panel || {};
    const rows = p.metrics || [];
    let html = "";
    for (let k = 0; k < rows.length; k++) {
      if (k < 2) html += metric(rows[k]);
      else if (k % 2 === 0) html += '<div class="pair">' + metric(rows[k]) + (rows[k + 1] ? metric(rows[k + 1]) : "") + "</div>";
    }
    if (p.note) html += '<p class="cap">' + esc(p.note) + "</p>";
    if (p.network) html += '<p class="cap">' + esc(p.network) + "</p>";
    if (p.last) html += '<p class="last"><b>Last step</b> · ' + esc(p.last) + "</p>";
    if (p.finished) html += '<div class="end">End of the stream.</div>';
    $("panel").innerHTML = html;
    const slider = $("slider");
    slider.max = String(Math.max(1, st.nSamples));
    slider.value = String(frame.t);
    $("step").textContent = "step " + frame.t.toLocaleString("en-US") + " of " + st.nSamples.toLocaleString("en-US");
    document.body.dataset.t = String(frame.t);
    document.body.dataset.shown = String(st.stats.shown);
  }

  // ------------------------------------------------------------------------------------ drawing
  function draw(frame, now) {
    st.drawing = true;
    st.lastDraw = now;
    const t0 = performance.now();
    const fig = themed(frame.figure);
    // plotly.js draws synchronously: the frame, its numbers and the slider reach the screen together
    const done = Plotly.react(plot, fig.data, fig.layout, st.config);
    st.shown = frame;
    st.stats.shown += 1;
    showPanel(frame);
    Promise.resolve(done).then(function () {
      st.drawing = false;
      if (!st.handedOver) { st.handedOver = true; handOver(); }
      const t1 = performance.now();
      // (the first frame also builds the plot and its WebGL canvases: seconds, once; not a frame's cost)
      if (st.stats.shown > 1) st.drawAvg = st.drawAvg ? 0.8 * st.drawAvg + 0.2 * (t1 - t0) : t1 - t0;
      st.stats.times.push(t1);
      st.stats.drawMs.push(t1 - t0);
      if (st.stats.times.length > 2000) { st.stats.times.shift(); st.stats.drawMs.shift(); }
      // the frame's height (the panel's lines can wrap): measuring it makes the browser lay the page out
      // at once, so twice a second is enough
      if (t1 - st.fitAt > 500 || frame.panel.finished) { st.fitAt = t1; fitHeight(); }
    }, function (err) {
      st.drawing = false;
      status("a frame could not be drawn: " + err);
    });
  }

  // The page shows its still view until the first frame is drawn here (this frame is laid, invisible, over
  // it until then): a mark on this frame's element in the page, which the page's style reads.
  function handOver() {
    try { if (window.frameElement) window.frameElement.setAttribute("data-drawn", "1"); } catch (e) { /* elsewhere */ }
  }

  // The frames per second drawn: the speed chosen, or fewer where a frame takes longer to draw (the
  // page around the player shares the browser's time with it and must still take the next frames in), or
  // where the server computes fewer frames a second than that (a busy machine): a rate it holds, from the
  // first answer on, rather than bursts of frames between waits.
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
    st.reqSeq += 1;
    send({ epoch: st.epoch, seq: st.reqSeq, shown: t, fps: st.fps, pause: true });
  }

  function loop(now) {
    window.requestAnimationFrame(loop);
    if (!st.ready || !st.playing || st.drawing) return;
    // Frames are due on a grid of 1000/fps ms and drawn at the first screen refresh from then: a frame that
    // lands one refresh late does not delay the ones after it (drawing every fourth refresh of 60 Hz would
    // be 15 frames per second only if no refresh were ever missed)
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
    draw(frame, now);
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
  const TYPED = { f8: Float64Array, f4: Float32Array, i4: Int32Array, i2: Int16Array, i1: Int8Array,
    u4: Uint32Array, u2: Uint16Array, u1: Uint8Array };
  function isSpec(v) { return v !== null && typeof v === "object" && typeof v.bdata === "string" && typeof v.dtype === "string"; }
  function isPlain(v) { return v !== null && typeof v === "object" && !Array.isArray(v) && !ArrayBuffer.isView(v) && !isSpec(v); }
  function decoded(v) {
    if (!isSpec(v)) return v;
    const bin = atob(v.bdata);
    const bytes = new Uint8Array(bin.length);
    for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
    return new TYPED[v.dtype](bytes.buffer);
  }
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

  // ----------------------------------------------------------------------------- render messages
  let started = false;
  function take(chunkBytes) {
    if (!chunkBytes || !chunkBytes.byteLength) return;
    const c = JSON.parse(placeholderColours(new TextDecoder("utf-8").decode(chunkBytes)));
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
      makeTheme(msg.theme);
      copyFonts();
      // WebGL drawn at the screen's own resolution (plotly.js draws at twice it by default: four times
      // the pixels, a third of a frame's time where the browser has no graphics processor)
      st.config = Object.assign({}, a.config || {}, { responsive: true, plotGlPixelRatio: Math.min(2, Math.max(1, window.devicePixelRatio || 1)) });
      st.fps = Number(a.fps) || 20;
      $("fps").value = String(st.fps);
      loadPlotly(a.plotly).then(function () {
        st.ready = true;
        fitHeight();
      }, function (e) { status(String(e)); });
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
      $("pause").disabled = false;
    }
    st.playing = Boolean(a.playing) && !st.ended;
    if (a.height && !plot.style.minHeight) plot.style.minHeight = a.height + "px";
    if (!(a.epoch === st.epoch && st.seen.has(a.chunk_seq))) take(a.chunk); // a rerun sends the last chunk again
    fitHeight();
  }

  window.addEventListener("message", function (ev) {
    if (ev.data && ev.data.type === "streamlit:render") onRender(ev.data);
  });
  $("pause").addEventListener("click", function () { stop("pause"); });
  $("fps").addEventListener("change", function () { st.fps = Number($("fps").value) || 20; });
  window.addEventListener("resize", fitHeight);
  post("streamlit:componentReady", { apiVersion: 1 });
})();
