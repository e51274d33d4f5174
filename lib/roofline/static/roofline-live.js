/* The published page's live figures: controls and a small SVG plotter, with no kernel.
 *
 * Every number plotted comes from window.RooflineGenerated (roofline-generated.js, written by
 * roofline.web from the library's sympy expressions and registry): this file only picks values by
 * the controls, calls the generated equations and draws. It types no formula of the lecture's, and
 * holds no chapter's code: each figure is its declaration (roofline.figures.declare.Plot, in the
 * chapter's figure module), drawn by one renderer (computePlot, drawPlot, plotKey); the algorithms a
 * declaration may name (a timeline: a pipeline schedule, a training step's memory; solveFor, a root
 * finder) are generic primitives here.
 * A placeholder <div class="roofline-live" data-figure="KEY"> in a chapter becomes figure KEY.
 *
 * For tests and the curious, window.rooflineLive[KEY] holds the figure's state (the controls'
 * values), plotted (every plotted array, in the units on the axes) and redraws (milliseconds each
 * redraw took, from a control's event to the new SVG in the page); compute(state) gives what a state
 * would plot, set(values) moves the controls, link() and csv() what the figure's two buttons share.
 *
 * Once a live figure is drawn, the static PNG of it just above (the chapter's frame at the defaults,
 * in the same section with only text between) is hidden: readers without JavaScript still see it.
 *
 * On any screen: where the column is narrower than NARROW_PX (a phone), the panels stack, one SVG unit
 * to a CSS pixel, so the text keeps its size; the title goes to a caption under the plot. Colours are
 * the palette below, overridden by the theme's CSS variables (custom.css: the dark theme's), read again
 * when the reader switches theme. A control that cannot change the figure at the current settings
 * (its `inert` rules, declared with the control in the chapter's figure module, roofline.figures.declare) is disabled, and a note under the
 * plot says why. The settings go into the page's address (?KEY.NAME=VALUE, a link under the figure),
 * and loading that address restores them; the plotted arrays download as CSV.
 */
(function () {
  "use strict";
  const GEN = window.RooflineGenerated;
  const LIVE = (window.rooflineLive = window.rooflineLive || {});
  const SVGNS = "http://www.w3.org/2000/svg";
  const NARROW_PX = 560;  // below this column width the panels stack
  /* The palettes, light theme (matplotlib's colours; "currentColor" is the page's text colour). A theme's CSS may
   * override any of them: --roofline-live-NAME, --roofline-live-serving-NAME, --roofline-live-revnet-NAME. */
  const LIGHT = {
    "": {compute: "#d62728", weights: "#1f77b4", kv: "#2ca02c", memory: "#9467bd", total: "currentColor",
         comm: "#ff7f0e", wall: "#e0e0e0", grey: "#737373", fwd: "#1f77b4", bwd: "#d62728", idle: "#e6e6e6",
         pre: "#1f77b4", usage: "#ff7f0e", opt: "#2ca02c", equal: "#9467bd", ink: "currentColor", paper: "#ffffff"},
    serving: {compute: "#1f77b4", memory: "#ff7f0e", cost: "currentColor", price: "#d62728", wall: "#d9d9d9",
              grey: "#808080"},
    revnet: {stored: "#d62728", checkpointed: "#ff7f0e", reversible: "#1f77b4", hbm: "#808080", marks: "#d9d9d9"},
  };
  const C = Object.assign({}, LIGHT[""]), SERVING = Object.assign({}, LIGHT.serving);
  const REVNET = Object.assign({}, LIGHT.revnet);

  /* The palettes as the page's theme has them now. */
  function readPalettes() {
    const css = getComputedStyle(document.documentElement);
    [[C, ""], [SERVING, "serving"], [REVNET, "revnet"]].forEach(([palette, name]) => {
      for (const k in LIGHT[name]) {
        const v = css.getPropertyValue(`--roofline-live-${name ? name + "-" : ""}${k}`).trim();
        palette[k] = v || LIGHT[name][k];
      }
    });
  }

  // -- evaluating the generated equations ------------------------------------------------------
  function equation(id) {
    const eq = GEN.equations[id];
    if (!eq) throw new Error("roofline-live: no generated equation " + id);
    return eq;
  }

  const deployment = GEN.deployment;  // a factored table's values (roofline.web.DEPLOYMENT_JS)

  /* Sliding-window models: KV bytes and attention FLOPs per token at the context's slider position. */
  function atContext(values, windows, model, position) {
    const w = windows[model];
    if (!w) return values;
    for (const k in w) values[k] = w[k][position];
    return values;
  }


  // -- formatting ----------------------------------------------------------------------------
  const whole = (x) => Math.round(x).toLocaleString("en-US");
  /* Python's format(x, ".{d}f") (with comma: ",.{d}f"): the exact binary value rounded, a tie to the even digit */
  function pyFixed(x, d, comma) {
    let s = Math.abs(x).toFixed(d);  // rounds the exact value; a tie goes up
    const exact = Math.abs(x).toFixed(100), dot = exact.indexOf(".");
    if (/^50*$/.test(exact.slice(dot + 1 + d)) && +s.slice(-1) % 2 === 1) {
      s = exact.slice(0, d ? dot + 1 + d : dot);  // the tie's other side, toward zero, has the even digit
    }
    if (comma) {
      const [int, frac] = s.split(".");
      s = int.replace(/\B(?=(\d{3})+(?!\d))/g, ",") + (frac !== undefined ? "." + frac : "");
    }
    return (x < 0 || Object.is(x, -0) ? "-" : "") + s;  // Python keeps the sign of a negative that rounds to 0
  }
  /* Python's format(x, ".{p}g"): p significant figures, trailing zeros dropped, an exponent below 1e-4 or from 10^p */
  function pyG(x, p) {
    if (x === 0) return "0";
    const e = +Math.abs(x).toExponential(p - 1).split("e")[1];
    if (e < -4 || e >= p) {
      const [m, ex] = x.toExponential(p - 1).split("e");
      const mant = m.indexOf(".") < 0 ? m : m.replace(/0+$/, "").replace(/\.$/, "");
      return `${mant}e${ex[0] === "-" ? "-" : "+"}${ex.replace(/^[-+]/, "").padStart(2, "0")}`;
    }
    const s = pyFixed(x, p - 1 - e);
    return s.indexOf(".") < 0 ? s : s.replace(/0+$/, "").replace(/\.$/, "");
  }

  /* roofline.figures.live.count: a count (tokens, parameters, sequences) in three significant figures with K, M,
   * B or T (160, 4.1K, 32.8K, 1.2M, 100B). Its rule is the library's data (roofline.figures.live.COUNT_RULE,
   * generated): the units, the decimals by the value over its unit, those below 1, the text that carries to the
   * next unit; this reads it as the library's count does, with pyFixed for Python's rounding. Every readout and
   * title of a count on the page is written by it; tests/test_web.py runs it in Node against the library's. */
  const RULE = GEN.formats.count;
  function count(x) {
    const trim = (t) => (t.indexOf(".") < 0 ? t : t.replace(/0+$/, "").replace(/\.$/, ""));
    if (!(x >= 1)) return trim(pyFixed(x, RULE.below_one, true));
    const units = RULE.units;
    for (let i = 0; i < units.length; i++) {
      const [scale, unit] = units[i];
      if (x >= scale) {
        const y = x / scale, digits = RULE.decimals.find(([bound]) => y >= bound)[1];
        const text = trim(pyFixed(y, digits, true));
        return text === RULE.carry && i > 0 ? "1" + units[i - 1][1] : text + unit;
      }
    }
  }
  /* A tick's value: a count (count) from 1 up, and below 1 three significant figures as Python's format "g"
   * writes them (0.05, 0.0001, 1e-05), the static figures' labels: never "0" for a positive tick of a log axis. */
  function tickValue(x) {
    if (x >= 1 || x <= 0) return count(x);
    const e = Math.floor(Math.log10(x) + 1e-12);
    if (e >= -4) return String(+x.toPrecision(3));
    const m = String(+(x / Math.pow(10, e)).toPrecision(3));
    return `${m}e-${String(-e).padStart(2, "0")}`;
  }
  const pow10 = (t) => `10<tspan dy="-6" font-size="10">${Math.round(Math.log10(t))}</tspan>`;  // tick label
  const esc = (s) => String(s).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");

  // -- a small SVG plotter ---------------------------------------------------------------------
  function decadeLimits(lo, hi) {
    return [Math.pow(10, Math.floor(Math.log10(lo))), Math.pow(10, Math.ceil(Math.log10(hi)))];
  }

  function niceTicks(lo, hi, n) {
    const raw = (hi - lo) / n;
    const mag = Math.pow(10, Math.floor(Math.log10(raw)));
    const step = [1, 2, 5, 10].map((s) => s * mag).find((s) => s >= raw);
    const out = [];
    for (let t = Math.ceil(lo / step) * step; t <= hi + step * 1e-9; t += step) out.push(+t.toPrecision(12));
    return out;
  }

  /* One panel as SVG markup. o: {box: [x, y, w, h], xlog, ylog, xlim, ylim, xlabel, ylabel, spans,
   * lines: [{x, y, color, width, dash, opacity}], vlines, hline, points, rects, yticks, xticks, note} */
  function panel(o) {
    const [X, Y, W, H] = o.box;
    const tx = o.xlog ? (x) => X + W * (Math.log10(x) - Math.log10(o.xlim[0])) / (Math.log10(o.xlim[1]) - Math.log10(o.xlim[0]))
                      : (x) => X + W * (x - o.xlim[0]) / (o.xlim[1] - o.xlim[0]);
    const ty = o.ylog ? (y) => Y + H - H * (Math.log10(y) - Math.log10(o.ylim[0])) / (Math.log10(o.ylim[1]) - Math.log10(o.ylim[0]))
                      : (y) => Y + H - H * (y - o.ylim[0]) / (o.ylim[1] - o.ylim[0]);
    const parts = [`<clipPath id="${o.id}"><rect x="${X}" y="${Y}" width="${W}" height="${H}"/></clipPath>`];
    const body = [];
    (o.spans || []).forEach((s) => {
      if (s.x1 > s.x0) body.push(`<rect x="${tx(s.x0)}" y="${Y}" width="${tx(s.x1) - tx(s.x0)}" height="${H}" fill="${s.color}"/>`);
    });
    (o.rects || []).forEach((r) => {
      body.push(`<rect x="${tx(r.x0).toFixed(2)}" y="${ty(r.y1).toFixed(2)}" width="${(tx(r.x1) - tx(r.x0)).toFixed(2)}" ` +
                `height="${(ty(r.y0) - ty(r.y1)).toFixed(2)}" fill="${r.color}"${r.edge ? ` stroke="${r.edge}" stroke-width="0.8"` : ""}/>`);
    });
    (o.lines || []).forEach((l) => {
      let d = "", pen = false;
      if (l.step) l = Object.assign({}, l, stairs(l.x, l.y, l.step));
      for (let i = 0; i < l.x.length; i++) {
        const zero = o.ylog && l.floor && l.y[i] <= 0;  // drawn just below the axis, as matplotlib clips it
        const ok = isFinite(l.y[i]) && (!o.ylog || l.y[i] > 0 || zero);
        if (!ok) { pen = false; continue; }
        const px = tx(l.x[i]), py = zero ? Y + H + 2 : Math.max(-1e4, Math.min(1e4, ty(l.y[i])));
        d += (pen ? "L" : "M") + px.toFixed(2) + " " + py.toFixed(2);
        pen = true;
      }
      body.push(`<path d="${d}" fill="none" stroke="${l.color}" stroke-width="${l.width || 1}"` +
                (l.dash ? ` stroke-dasharray="${l.dash}"` : "") + (l.opacity ? ` stroke-opacity="${l.opacity}"` : "") + "/>");
    });
    (o.hlines || []).forEach((h) => {
      const dash = h.dash === undefined ? "5 3" : h.dash;
      body.push(`<line x1="${X}" x2="${X + W}" y1="${ty(h.y)}" y2="${ty(h.y)}" stroke="${h.color}"` +
                (h.width ? ` stroke-width="${h.width}"` : "") + (dash ? ` stroke-dasharray="${dash}"` : "") + "/>");
    });
    (o.vlines || []).forEach((v) => {
      const dash = v.dash === undefined ? "2 2" : v.dash;
      body.push(`<line x1="${tx(v.x)}" x2="${tx(v.x)}" y1="${Y}" y2="${Y + H}" stroke="${v.color}"` +
                (v.width ? ` stroke-width="${v.width}"` : "") + (dash ? ` stroke-dasharray="${dash}"` : "") + "/>");
    });
    (o.points || []).forEach((p) => {
      if (isFinite(p.y) && isFinite(p.x)) body.push(marker(tx(p.x), ty(p.y), p));
    });
    (o.texts || []).forEach((t) => {
      body.push(`<text x="${tx(t.x)}" y="${ty(t.y) - (t.above || 0)}" fill="${t.color || C.ink}" font-size="${t.size || 12}">${esc(t.text)}</text>`);
    });
    parts.push(`<g clip-path="url(#${o.id})">${body.join("")}</g>`);
    parts.push(`<rect x="${X}" y="${Y}" width="${W}" height="${H}" fill="none" stroke="${C.ink}" stroke-width="0.8"/>`);
    const ticks = (lim, log) => {
      if (!log) return niceTicks(lim[0], lim[1], 5);
      const out = [];
      const a = Math.round(Math.log10(lim[0])), b = Math.round(Math.log10(lim[1]));
      const every = Math.max(1, Math.ceil((b - a) / 7));
      for (let e = a; e <= b; e += every) out.push(Math.pow(10, e));
      return out;
    };
    // tick labels carry their axis and scale (class rl-tick, data-axis, data-log) for the tests
    const log = (on) => (on ? ' data-log="1"' : "");
    (o.xticks || ticks(o.xlim, o.xlog)).forEach((t) => {
      const px = tx(t.v !== undefined ? t.v : t);
      parts.push(`<line x1="${px}" x2="${px}" y1="${Y + H}" y2="${Y + H + 4}" stroke="${C.ink}"/>` +
                 `<text class="rl-tick" data-axis="x"${log(o.xlog)} x="${px}" y="${Y + H + 16}" text-anchor="middle">` +
                 `${tickText(t, o.xfmt)}</text>`);
    });
    let widest = 0;  // the y tick labels' longest, in characters: the y label goes clear of it
    (o.yticks || ticks(o.ylim, o.ylog)).forEach((t) => {
      const py = ty(t.v !== undefined ? t.v : t), text = tickText(t, o.yfmt);
      widest = Math.max(widest, text.replace(/<[^>]*>/g, "").length);
      parts.push(`<line x1="${X - 4}" x2="${X}" y1="${py}" y2="${py}" stroke="${C.ink}"/>` +
                 `<text class="rl-tick" data-axis="y"${log(o.ylog)} x="${X - 6}" y="${py + 4}" text-anchor="end">${text}</text>`);
    });
    parts.push(`<text x="${X + W / 2}" y="${Y + H + 34}" text-anchor="middle">${esc(o.xlabel)}</text>`);
    const ylabelAt = Math.max(10, X - Math.max(44, 18 + 7.5 * widest));  // 7.5 px: a digit at 13 px, and a margin
    parts.push(`<text transform="translate(${ylabelAt} ${Y + H / 2}) rotate(-90)" text-anchor="middle">${esc(o.ylabel)}</text>`);
    if (o.note) {
      const lines = o.note.split("\n");
      parts.push(`<rect x="${X + 6}" y="${Y + 5}" width="${o.noteWidth || 230}" height="${lines.length * 15 + 6}" fill="${C.paper}" fill-opacity="0.85"/>`);
      lines.forEach((s, i) => parts.push(`<text x="${X + 10}" y="${Y + 19 + 15 * i}">${esc(s)}</text>`));
    }
    return parts.join("");
  }

  /* matplotlib's step(x, y, where=...) as a polyline: "pre", each y holds over the interval that ends at its x;
   * "post" (drawstyle steps-post), over the interval that starts there. */
  function stairs(xs, ys, where) {
    const x = [xs[0]], y = [ys[0]];
    for (let i = 1; i < xs.length; i++) {
      if (where === "post") x.push(xs[i], xs[i]), y.push(ys[i - 1], ys[i]);  // along at the old value, then up
      else x.push(xs[i - 1], xs[i]), y.push(ys[i], ys[i]);                   // up to the new value, then along
    }
    return {x: x, y: y};
  }

  /* A tick's label: its own label, or the value by `fmt` (a function giving SVG markup), or short(value). */
  function tickText(t, fmt) {
    if (t.label) return esc(t.label);
    const v = t.v !== undefined ? t.v : t;
    return fmt ? fmt(v) : esc(tickValue(v));
  }

  /* A point: a circle, or p.shape "square" or "triangle" (pointing down), p.r across, p.edge its outline. */
  function marker(x, y, p) {
    const r = p.r || 3.5, fill = p.color || C.ink, edge = p.edge ? ` stroke="${p.edge}" stroke-width="0.8"` : "";
    if (p.shape === "square") {
      return `<rect x="${(x - r).toFixed(2)}" y="${(y - r).toFixed(2)}" width="${2 * r}" height="${2 * r}" fill="${fill}"${edge}/>`;
    }
    if (p.shape === "triangle") {
      const h = 1.2 * r;
      return `<path d="M${(x - h).toFixed(2)} ${(y - h * 0.6).toFixed(2)}L${(x + h).toFixed(2)} ${(y - h * 0.6).toFixed(2)}` +
             `L${x.toFixed(2)} ${(y + h).toFixed(2)}Z" fill="${fill}"${edge}/>`;
    }
    return `<circle cx="${x}" cy="${y}" r="${r}" fill="${fill}"${edge}/>`;
  }

  /* The key: [label, colour, style] with style {width, dash, opacity, marker: {shape, color, edge}, line: false}. */
  function legend(items) {
    return items.map(([label, color, style]) => {
      const st = style || {};
      const line = st.line === false ? "" : `<line x1="1" x2="25" y1="5" y2="5" stroke="${color}" stroke-width="${st.width || 2}"` +
        `${st.dash ? ` stroke-dasharray="${st.dash}"` : ""}${st.opacity ? ` stroke-opacity="${st.opacity}"` : ""}/>`;
      const dot = st.marker ? marker(13, 5, Object.assign({r: 4}, st.marker)) : "";
      return `<span class="roofline-live-key"><svg width="26" height="10" aria-hidden="true">${line}${dot}</svg>${esc(label)}</span>`;
    }).join("");
  }

  // -- controls --------------------------------------------------------------------------------
  /* A slider's readout: a log slider's value as count() writes it (50M tokens/s, 100B parameters, 16.4K), a whole
   * number with thousands separated (8,192), any other to three figures (1/3 as 0.333). */
  /* A control's value as its readout shows it: a slider's stop as the library wrote it (Control.readouts). */
  function formatControl(c, v) {
    return c.kind === "range" ? c.readouts[c.grid.indexOf(v)] : String(v);
  }

  /* Why control `c` cannot change the figure at state `s`, or null: the note of its first `inert` rule that
   * holds. A rule holds where any of its `when` alternatives does, an alternative being [control, values] pairs
   * that all hold ({name} in the note is that control's value). */
  function inertNote(c, s) {
    for (const rule of c.inert || []) {
      if (rule.when.some((alt) => alt.every(([name, values]) => values.indexOf(s[name]) >= 0))) {
        return fill(rule.note, s);
      }
    }
    return null;
  }

  /* The controls of spec `spec`, as labelled native inputs; `changed(name)` after each move. Returns
   * {form, show(): every input and readout to the state, inert(): disables the controls that cannot change the
   * figure now and returns their notes}. */
  function buildControls(key, spec, state, changed) {
    const form = document.createElement("form");
    form.className = "roofline-live-controls";
    form.addEventListener("submit", (e) => e.preventDefault());
    const shows = [], inputs = {};
    spec.controls.forEach((c) => {
      const id = `roofline-${key}-${c.name}`;
      const label = document.createElement("label");
      label.htmlFor = id;
      label.className = `roofline-live-${c.kind}`;
      const text = document.createElement("span");
      text.textContent = c.label;
      label.appendChild(text);
      let input;
      if (c.kind === "select") {
        input = document.createElement("select");
        c.options.forEach((o, i) => {  // (label, value) options show the label and set the value
          const opt = document.createElement("option");
          opt.value = String(o);
          opt.textContent = c.labels ? c.labels[i] : String(o);
          input.appendChild(opt);
        });
        shows.push(() => { input.value = String(state[c.name]); });
        input.addEventListener("change", () => { state[c.name] = c.options[input.selectedIndex]; changed(c.name); });
        label.appendChild(input);
      } else if (c.kind === "check") {
        input = document.createElement("input");
        input.type = "checkbox";
        shows.push(() => { input.checked = state[c.name]; });
        input.addEventListener("change", () => { state[c.name] = input.checked; changed(c.name); });
        label.insertBefore(input, text);
      } else {
        input = document.createElement("input");
        input.type = "range";
        input.min = 0;
        input.max = c.grid.length - 1;
        input.step = 1;
        const out = document.createElement("output");
        out.htmlFor = id;
        // as wide as its widest readout, so that moving the slider never reflows the controls (nor moves the plot)
        out.style.minWidth = `${Math.max(...c.grid.map((v) => formatControl(c, v).length))}ch`;
        const show = () => {
          out.textContent = formatControl(c, state[c.name]);
          input.setAttribute("aria-valuetext", out.textContent);
        };
        shows.push(() => { input.value = c.grid.indexOf(state[c.name]); show(); });
        input.addEventListener("input", () => { state[c.name] = c.grid[+input.value]; show(); changed(c.name); });
        label.appendChild(input);
        label.appendChild(out);
      }
      input.id = id;
      input.name = c.name;
      inputs[c.name] = input;
      form.appendChild(label);
    });
    const show = () => shows.forEach((f) => f());
    show();
    const inert = () => {
      const notes = [];
      spec.controls.forEach((c) => {
        if (!c.inert) return;
        const note = inertNote(c, state), input = inputs[c.name];
        input.disabled = note !== null;
        input.closest("label").classList.toggle("roofline-live-inert", note !== null);
        input.title = note || "";
        if (note !== null) notes.push([c.label, note]);
      });
      return notes;
    };
    return {form: form, show: show, inert: inert, inputs: inputs};
  }

  /* A control's value from the text of a shared link (null if it is not one of the control's values). */
  function parseValue(c, text) {
    if (c.kind === "check") return text === "1" || text === "true" ? true : text === "0" || text === "false" ? false : null;
    const values = c.kind === "select" ? c.options : c.grid;
    const at = values.map(String).indexOf(text);
    return at >= 0 ? values[at] : null;
  }

  const valueText = (c, v) => (c.kind === "check" ? (v ? "1" : "0") : String(v));

  /* The plotted values as CSV: a column for each setting (setting.NAME) and for each array or number plotted, named
   * by its path (latency.compute, panels.0.series.kv; an array of records, such as a timeline's operations, a
   * column per field: ops.start), a row for each index; numbers as JavaScript writes them, exactly (Infinity, NaN),
   * a missing value (null) and the cells past a column's end empty. */
  function csvOf(state, plotted) {
    const columns = [];
    for (const k in state) columns.push(["setting." + k, [state[k]]]);
    const scalar = (v) => v === null || typeof v !== "object";
    const walk = (path, v) => {
      if (scalar(v)) columns.push([path, [v]]);
      else if (Array.isArray(v) && v.every(scalar)) columns.push([path, v]);
      else if (Array.isArray(v) && v.length && v.every((r) => r && !Array.isArray(r) && typeof r === "object" &&
                                                          Object.values(r).every(scalar))) {
        Object.keys(v[0]).forEach((f) => columns.push([`${path}.${f}`, v.map((r) => r[f])]));
      } else if (Array.isArray(v)) v.forEach((x, i) => walk(`${path}.${i}`, x));
      else for (const k in v) walk(path ? `${path}.${k}` : k, v[k]);
    };
    walk("", plotted);
    const cell = (v) => {
      if (v === null || v === undefined) return "";
      const t = String(v);
      return /[",\n\r]/.test(t) ? `"${t.replace(/"/g, '""')}"` : t;
    };
    const rows = Math.max(...columns.map(([, v]) => v.length));
    const lines = [columns.map(([name]) => cell(name)).join(",")];
    for (let i = 0; i < rows; i++) lines.push(columns.map(([, v]) => cell(i < v.length ? v[i] : null)).join(","));
    return lines.join("\r\n") + "\r\n";
  }

  // -- where the panels go -------------------------------------------------------------------
  /* The figure's geometry for the column's width `g` ({narrow, width}): wide, its own layout (`boxes`, one
   * [x, y, w, h] a panel, in a 760 x `height` view box, its title on top); narrow, the panels stacked at the
   * column's width, one unit a CSS pixel, the title in the caption under the plot. */
  function layout(g, boxes, height) {
    if (!g.narrow) return {narrow: false, width: 760, height: height, boxes: boxes};
    const left = 80, right = 22, h = 250, gap = 56, top = 10;
    const stacked = boxes.map((_, i) => [left, top + i * (h + gap), Math.max(120, g.width - left - right), h]);
    return {narrow: true, width: g.width, height: top + boxes.length * (h + gap) - 10, boxes: stacked};
  }

  /* What a draw function returns: the SVG markup in the layout `lay`, with the title (lines) on top where the
   * layout is wide, under the plot where it is narrow (with any note of a panel). */
  function drawn(lay, title, markup, notes) {
    const lines = title ? title.split("\n") : [];
    const top = lay.narrow ? "" : lines.map((line, i) =>
      `<text x="380" y="${14 + 16 * i}" text-anchor="middle">${esc(line)}</text>`).join("");
    const caption = lay.narrow ? lines.concat(notes || []).join("\n") : "";
    return {svg: top + markup, width: lay.width, height: lay.height, caption: caption};
  }

  /* numpy.geomspace(lo, hi, n): 10 to the evenly spaced exponents, the ends exact */
  function geomspace(lo, hi, n) {
    const a = Math.log10(lo), step = (Math.log10(hi) - a) / (n - 1), out = [];
    for (let i = 0; i < n; i++) out.push(Math.pow(10, i * step + a));
    out[0] = lo;
    out[n - 1] = hi;
    return out;
  }

  /* roofline.training.optimal_for_loss's bisection, for any declared expression that rises with `key`: the value
   * of `key` where equation `id` at the values `v` is zero, by 64 halvings of the bracket from `low` up `factor`,
   * in log; elementwise where a value (or `low`) is an array. A root finder, not a formula. */
  function solveFor(id, key, v, low, factor) {
    const eq = equation(id), at = eq.args.indexOf(key);
    let n = isArr(low) ? low.length : -1;
    const cols = eq.args.map((a) => {
      if (a === key) return 0;
      if (v[a] === undefined || v[a] === null) throw new Missing(`${id} needs ${a}`);
      if (isArr(v[a])) n = v[a].length;
      return v[a];
    });
    const one = (i) => {
      const args = cols.map((c) => (isArr(c) ? c[i] : c));
      let lo = Math.log(isArr(low) ? low[i] : low);
      let hi = lo + Math.log(factor);
      for (let j = 0; j < 64; j++) {
        const mid = 0.5 * (lo + hi);
        args[at] = Math.exp(mid);
        if (eq.f.apply(null, args) < 0) lo = mid;
        else hi = mid;
      }
      return Math.exp(0.5 * (lo + hi));
    };
    if (n < 0) return one(0);
    const out = new Array(n);
    for (let i = 0; i < n; i++) out[i] = one(i);
    return out;
  }

  /* roofline.figures.serving._nice: the next 1, 2 or 5 times a power of ten at or above x */
  function niceAbove(x) {
    const e = Math.pow(10, Math.floor(Math.log10(x)));
    return [1, 2, 5, 10].map((m) => m * e).find((y) => y >= x);
  }

  /* The timeline "schedule" (roofline.figures.declare.TIMELINES): a schedule's, as roofline.pipeline.schedule builds it: each stage runs its
   * operations in the schedule's order, each as soon as the stage is free and its inputs are done.
   * (An algorithm, not a formula; the browser test checks it against the library's, block by block.) */
  function schedule(P, M, kind, f, b) {
    const orders = [];
    for (let s = 0; s < P; s++) {
      const order = [];
      if (kind === "inference" || kind === "naive") for (let i = 0; i < M; i++) order.push(["F", i]);
      else if (kind === "gpipe") {
        for (let i = 0; i < M; i++) order.push(["F", i]);
        for (let i = M - 1; i >= 0; i--) order.push(["B", i]);
      } else {
        const warm = Math.min(P - s - 1, M);
        for (let i = 0; i < warm; i++) order.push(["F", i]);
        let nf = warm, nb = 0;
        while (nb < M) {
          if (nf < M) order.push(["F", nf++]);
          order.push(["B", nb++]);
        }
      }
      orders.push(order);
    }
    const done = new Map(), free = new Array(P).fill(0), pos = new Array(P).fill(0), ops = [];
    const left = () => orders.some((o, s) => pos[s] < o.length);
    while (left()) {
      let progressed = false;
      for (let s = 0; s < P; s++) {
        if (pos[s] === orders[s].length) continue;
        const [op, i] = orders[s][pos[s]];
        let deps = op === "F" && s > 0 ? [["F", s - 1, i]] : [];
        if (kind === "naive" && s === 0 && i > 0) deps = [["F", P - 1, i - 1]];
        if (op === "B") deps = [["F", s, i]].concat(s < P - 1 ? [["B", s + 1, i]] : []);
        if (deps.every((d) => done.has(d.join()))) {
          const start = Math.max(free[s], ...deps.map((d) => done.get(d.join())));
          const end = start + (op === "F" ? f : b);
          done.set([op, s, i].join(), end);
          free[s] = end;
          ops.push({stage: s, micro: i, kind: op, start: start, end: end});
          pos[s]++;
          progressed = true;
        }
      }
      if (!progressed) throw new Error("schedule deadlocked");
    }
    return ops;
  }

  /* A schedule's operations (ops), the share of its stages' time they idle (idle, roofline.pipeline.idle_fraction) and
   * its end */
  function scheduleTimeline(P, M, kind, f, b) {
    const ops = schedule(P, M, kind, f, b);
    const end = Math.max(...ops.map((o) => o.end));
    const span = end - Math.min(...ops.map((o) => o.start));
    const busy = ops.reduce((a, o) => a + (o.end - o.start), 0);
    return {ops: ops, end: end, idle: 1 - busy / (new Set(ops.map((o) => o.stage)).size * span)};
  }

  /* The timelines of roofline.figures.declare.TIMELINES: algorithms, not formulas, that a declaration names.
   * "activations" (roofline.figures.revnet.memory_timeline): the bytes held over one training step of the layers
   * of cx.v, as step points (t, bytes), time in forward passes of one layer, a layer's backward `backward` of them;
   * each held value the equation `held` at the layers held so far; in the forward pass of the recomputing kinds,
   * less the one layer they rebuild in the backward (the equation `layer`). Returns {t: times, held: bytes}. */
  function activationTimeline(cx, kind, held, layerEq, bwd) {
    const L = cx.v.n_layers, t = [0], bytes = [0];
    const step = (duration, value) => { t.push(t[t.length - 1] + duration); bytes.push(value); };
    const kept = (n) => equationAt(held, Object.assign({}, cx.v, {n_layers: n}));
    const layer = equationAt(layerEq, cx.v);
    if (kind === "stored") {
      for (let i = 0; i < L; i++) step(1, kept(i + 1));       // layer i writes its activations
      for (let j = L - 1; j >= 0; j--) step(bwd, kept(j + 1)); // layer j's backward; freed as it ends
      step(0, 0);
    } else if (kind === "checkpointed") {
      for (let i = 0; i < L; i++) step(1, kept(i + 1) - layer);  // layer inputs
      for (let j = L - 1; j >= 0; j--) {
        step(1, kept(j + 1));                                  // layer j rebuilt from its input
        step(bwd, kept(j + 1));                                // backpropagated; then freed with its input
      }
      step(0, 0);
    } else {
      const streams = kept(L) - layer;                         // the two streams
      for (let i = 0; i < L; i++) step(1, streams);
      for (let j = L - 1; j >= 0; j--) {
        step(1, kept(L));                                      // block j inverted, its activations rebuilt
        step(bwd, kept(L));
      }
      step(0, streams);
    }
    return {t: t, held: bytes};
  }

  /* The ladder's step (ladder: multipliers of a power of ten) at or below x; at or above it (10 among them) */
  function ladderBelow(x, ladder) {
    const k = Math.pow(10, Math.floor(Math.log10(x)));
    return Math.max(...ladder.map((m) => m * k).filter((y) => y <= x * (1 + 1e-12)));
  }
  function ladderAbove(x, ladder) {
    const k = Math.pow(10, Math.floor(Math.log10(x)));
    return Math.min(...ladder.concat([10]).map((m) => m * k).filter((y) => y >= x * (1 - 1e-12)));
  }

  /* Log-axis ticks inside [lo, hi]: the powers of ten, or where fewer than two, 1, 2 and 5 times them */
  function logTicks(lo, hi) {
    const inside = (ms) => {
      const out = [];
      for (let e = Math.floor(Math.log10(lo)); e <= Math.ceil(Math.log10(hi)); e++) {
        ms.forEach((m) => { const t = m * Math.pow(10, e); if (t >= lo * (1 - 1e-9) && t <= hi * (1 + 1e-9)) out.push(t); });
      }
      return out;
    };
    const decades = inside([1]);
    return decades.length >= 2 ? decades : inside([1, 2, 5]);
  }

  // -- a figure drawn from its declaration (roofline.figures.declare.Plot): every chapter's ---------------
  const isArr = Array.isArray;
  const PALETTES = {serving: SERVING, revnet: REVNET};
  const color = (spec, name) => ((PALETTES[spec.plot.palette] || {})[name] || C[name] || name);

  /* A value in a label template, by Python's format spec: "" (as is), "," (whole, thousands separated), ".1f",
   * ",.1f", ".0%", ".3g", "count" (count). */
  function formatValue(v, f) {
    if (typeof v !== "number" || !f) return String(v);
    if (f === ",") return whole(v);
    if (f === "count") return count(v);
    let m = /^(,?)\.(\d+)f$/.exec(f);
    if (m) return pyFixed(v, +m[2], !!m[1]);
    if ((m = /^\.(\d+)%$/.exec(f))) return pyFixed(100 * v, +m[1]) + "%";
    if ((m = /^\.(\d+)g$/.exec(f))) return pyG(v, +m[1]);
    throw new Error("roofline-live: no format " + f);
  }

  /* A label template filled: {name} or {name:format} by `values`; a value that is text is filled in turn. */
  function fill(template, values, nested) {
    return template.replace(/\{(\w+)(?::([^}]*))?\}/g, (m, name, f) => {
      const v = values[name];
      if (v === undefined) return m;
      return typeof v === "string" && !nested ? fill(v, values, true) : formatValue(v, f);
    });
  }

  /* A value an equation needs and the figure lacks here (a chip without a rate): an optional series is not drawn */
  class Missing extends Error {}

  /* Equation `id` at the values `v` (keyword -> number, or an array: a panel's axis, a table along it): a number,
   * or elementwise an array. */
  function equationAt(id, v) {
    const eq = equation(id);
    let n = -1;
    const args = eq.args.map((a) => {
      const x = v[a];
      if (x === undefined || x === null) throw new Missing(`${id} needs ${a}`);
      if (isArr(x)) n = x.length;
      return x;
    });
    if (n < 0) return eq.f.apply(null, args);
    const out = new Array(n), now = args.slice();
    for (let i = 0; i < n; i++) {
      for (let j = 0; j < args.length; j++) if (isArr(args[j])) now[j] = args[j][i];
      out[i] = eq.f.apply(null, now);
    }
    return out;
  }

  const lift = (f) => (a, b) => (isArr(a) || isArr(b)
    ? (isArr(a) ? a : b).map((_, i) => f(isArr(a) ? a[i] : a, isArr(b) ? b[i] : b)) : f(a, b));
  const BINARY = {"+": lift((a, b) => a + b), "-": lift((a, b) => a - b), "*": lift((a, b) => a * b),
                  "/": lift((a, b) => a / b), ">=": lift((a, b) => a >= b), "<=": lift((a, b) => a <= b),
                  ">": lift((a, b) => a > b), "<": lift((a, b) => a < b), "==": lift((a, b) => a === b),
                  min: lift(Math.min), max: lift(Math.max)};

  /* The positive finite values' least, and the finite values' greatest, of arrays */
  function extent(arrays) {
    let lo = Infinity, hi = -Infinity;
    arrays.forEach((a) => (isArr(a) ? a : [a]).forEach((y) => {
      if (isFinite(y) && y !== null) {
        if (y > 0) lo = Math.min(lo, y);
        hi = Math.max(hi, y);
      }
    }));
    return [lo, hi];
  }

  /* A declared Term ([op, args...], roofline.figures.declare.Term) in the context cx: {spec, s (the controls'
   * values), v (keyword -> value), values (the plot's values so far), series and drawn (the panel's)}. */
  function term(t, cx) {
    if (!isArr(t)) return t;  // a number, a bool, a text
    const op = t[0];
    switch (op) {
      case "eq": {
        let v = cx.v;
        const at = t[2];
        for (const k in at) {
          if (v === cx.v) v = Object.assign({}, cx.v);
          v[k] = term(at[k], cx);
        }
        return equationAt(t[1], v);
      }
      case "value": {
        const x = cx.v[t[1]];
        if (x === undefined || x === null) throw new Missing(`no value of ${t[1]}`);
        return x;
      }
      case "setting": return cx.s[t[1]];
      case "position": return position(cx.spec, t[1], cx.s[t[1]]);
      case "data": {
        let d = cx.spec.data;
        for (let i = 1; i < t.length; i++) {
          const k = term(t[i], cx);
          if (d === null || d === undefined || d[k] === undefined) throw new Missing(`no data ${k}`);
          d = d[k];
        }
        return d;
      }
      case "ref": return cx.values[t[1]];
      case "series": return cx.series[t[1]];
      case "if": {
        const c = term(t[1], cx);
        if (!isArr(c)) return c ? term(t[2], cx) : term(t[3], cx);
        const a = term(t[2], cx), b = term(t[3], cx);  // elementwise
        return c.map((ci, i) => (ci ? (isArr(a) ? a[i] : a) : (isArr(b) ? b[i] : b)));
      }
      case "argmax": {
        let best = null, top = -Infinity;
        for (let i = 1; i < t.length; i += 2) {
          const x = term(t[i + 1], cx);
          if (best === null || x > top) { best = t[i]; top = x; }
        }
        return best;
      }
      case "finite": return isFinite(term(t[1], cx));
      case "in": {
        const x = term(t[1], cx);
        return t.slice(2).some((v) => term(v, cx) === x);
      }
      case "low": case "high": {
        const [lo, hi] = extent(t.length > 1 ? t.slice(1).map((n) => (typeof n === "string" ? cx.series[n] : term(n, cx)))
                                              : cx.drawn);
        return op === "low" ? lo : hi;
      }
      case "decade_below": return Math.pow(10, Math.floor(Math.log10(term(t[1], cx))));
      case "decade_above": return Math.pow(10, Math.ceil(Math.log10(term(t[1], cx))));
      case "nice_above": return niceAbove(term(t[1], cx));
      case "item": {
        const a = term(t[1], cx), i = term(t[2], cx);
        return isArr(a) ? a[i < 0 ? a.length + i : i] : a;
      }
      case "inf": return Infinity;
      case "geomspace": return geomspace(term(t[1], cx), term(t[2], cx), t[3]);
      case "solve": {
        const v = Object.assign({}, cx.v);
        for (const k in t[5]) v[k] = term(t[5][k], cx);
        return solveFor(t[1], t[2], v, term(t[3], cx), term(t[4], cx));
      }
      case "ladder_below": return ladderBelow(term(t[1], cx), term(t[2], cx));
      case "ladder_above": return ladderAbove(term(t[1], cx), term(t[2], cx));
      case "timeline": {  // built once a redraw for its arguments (and the values of the equations it names)
        const args = t.slice(2).map((x) => term(x, cx)), part = args.pop();
        const used = args.filter((a) => typeof a === "string" && GEN.equations[a])
          .map((id) => equation(id).args.map((a) => cx.v[a]));
        const key = JSON.stringify([t[1], args, used]);
        if (!cx.memo.has(key)) {
          if (t[1] === "activations") cx.memo.set(key, activationTimeline(cx, ...args));
          else if (t[1] === "schedule") cx.memo.set(key, scheduleTimeline(...args));
          else throw new Error("roofline-live: no timeline " + t[1]);
        }
        return cx.memo.get(key)[part];
      }
      case "min": case "max": return t.slice(1).map((x) => term(x, cx)).reduce(BINARY[op]);
      default:
        if (!BINARY[op]) throw new Error("roofline-live: no operation " + op);
        return BINARY[op](term(t[1], cx), term(t[2], cx));
    }
  }

  /* A control's position among its options or stops */
  function position(spec, name, value) {
    const c = spec.controls.find((x) => x.name === name);
    return (c.kind === "select" ? c.options : c.grid).indexOf(value);
  }

  /* numpy's interp(log x, log xs, ys): a drawn line's value at x */
  function interpLog(xs, ys, x) {
    const le = Math.log(x), lb = xs.map(Math.log);
    let j = 0;
    while (j < lb.length - 2 && lb[j + 1] < le) j++;
    if (le >= lb[lb.length - 1]) return ys[lb.length - 1];
    return lb[j + 1] === lb[j] ? ys[j] : ys[j] + (le - lb[j]) * (ys[j + 1] - ys[j]) / (lb[j + 1] - lb[j]);
  }

  /* What a declared plot shows at the controls' values s: the keywords' values, the plot's values, each panel's
   * series (arrays over its x), lines, spans ([from, to]), marks, points ([x, y] or null) and limits, the title
   * and the panels' notes. */
  function computePlot(spec, s) {
    const P = spec.plot, D = spec.data, at = (name) => position(spec, name, s[name]);
    let v = {};
    const [mc, hc, pc] = P.deployment, index = (c) => (c ? at(c) : 0);
    if (mc || hc || pc) v = deployment(D.deployments, index(mc), index(hc), index(pc));
    (P.tables || []).forEach((t) => Object.assign(v, term(t, {spec: spec, s: s, v: v})));
    const cx = {spec: spec, s: s, v: v, values: {}, series: {}, drawn: [], memo: new Map()};
    for (const kw in P.keywords) v[kw] = typeof P.keywords[kw] === "string" ? s[P.keywords[kw]] : term(P.keywords[kw], cx);
    const ctx = P.keywords.len_ctx;
    if (mc && typeof ctx === "string" && D.windows) atContext(v, D.windows, s[mc], at(ctx));
    if ((P.needs || []).some((k) => v[k] === undefined || v[k] === null)) {  // no figure here: a note says why
      const note = fill(P.missing, Object.assign({}, s, v));
      return {drawn: false, note: note, label: note};
    }
    for (const name in P.values) cx.values[name] = term(P.values[name], cx);
    const panels = P.panels.map((panel) => {
      const grid = !panel.grid ? [] : typeof panel.grid[0] === "string" ? term(panel.grid, cx) : panel.grid;
      const x = panel.xscale === 1 ? grid : grid.map((g) => g * panel.xscale);
      const x0 = x[0], x1 = x[x.length - 1];
      const pv = Object.assign({}, v);
      for (const kw in panel.keywords || {}) pv[kw] = term(panel.keywords[kw], cx);
      if (panel.x) pv[panel.x] = grid;  // (a panel of timelines has no axis of a keyword)
      const px = Object.assign({}, cx, {v: pv, series: {}, drawn: [], values: Object.assign({}, cx.values)});
      for (const name in panel.values || {}) px.values[name] = term(panel.values[name], px);
      const out = {x: x, series: px.series, xs: {}, lines: {}, spans: {}, marks: {}, points: {}, blocks: {}, lanes: {}};
      const lacking = new Set();  // the optional groups with a series that lacks a value here
      panel.series.forEach((sr) => {
        let y = null;
        if (!sr.when || term(sr.when, cx)) {
          try {
            y = term(sr.y, px);
          } catch (e) {
            if (!(sr.optional && e instanceof Missing)) throw e;
            lacking.add(sr.optional);
          }
          if (y !== null && !isArr(y)) y = grid.map(() => y);
        }
        px.series[sr.name] = y;
        if (sr.x) out.xs[sr.name] = y === null ? null : term(sr.x, px);  // its own x: a timeline's times
      });
      panel.series.forEach((sr) => {
        if (lacking.has(sr.optional)) px.series[sr.name] = null;
        if (px.series[sr.name]) px.drawn.push(px.series[sr.name]);
      });
      (panel.lines || []).forEach((l) => { out.lines[l.name] = term(l.y, cx); px.drawn.push([out.lines[l.name]]); });
      (panel.spans || []).forEach((sp) => {
        const end = sp.end ? term(sp.end, cx) : x1, start = term(sp.start, cx);
        const lo = Math.min(sp.clamp ? Math.max(start, x0) : start, end);
        out.spans[sp.name] = [lo, lo + (end - lo)];
      });
      (panel.marks || []).forEach((m) => { out.marks[m.name] = term(m.x, cx); });
      (panel.points || []).forEach((pt) => {
        const px0 = term(pt.x, cx);
        let y = null;
        if (pt.within && !(isFinite(px0) && x0 <= px0 && px0 <= x1)) y = null;
        else if (pt.y) y = term(pt.y, px);
        else if (pt.interp) y = interpLog(x, px.series[pt.on], px0);
        else {
          const on = panel.series.find((sr) => sr.name === pt.on), atX = Object.assign({}, pv, {[panel.x]: px0 / panel.xscale});
          y = term(on.y, Object.assign({}, px, {v: atX}));
        }
        out.points[pt.name] = y === null ? null : [px0, y];
      });
      (panel.blocks || []).forEach((bl) => { out.blocks[bl.name] = term(bl.ops, px); out.lanes[bl.name] = term(bl.lanes, px); });
      out.xlim = panel.xlim ? panel.xlim.map((t) => term(t, px)) : [x0, x1];
      const [lo, hi] = extent(px.drawn);
      out.ylim = panel.ylim ? panel.ylim.map((t) => term(t, px))
        : panel.ylog ? decadeLimits(lo, hi) : [0, hi * 1.1];
      return out;
    });
    const names = Object.assign({}, s, v, cx.values);
    const title = P.title ? fill(P.title, names) : null;
    const notes = P.panels.map((panel) => (panel.note ? fill(panel.note, names) : null));
    const values = {};  // those exposed: an empty text (a label's piece left out) is a missing value in a CSV
    for (const name in cx.values) {
      const x = cx.values[name];
      if (x !== "") values[name] = typeof x === "string" ? fill(x, names) : x;
    }
    return {drawn: true, panels: panels, values: values, title: title, notes: notes,
            label: title || notes.filter((n) => n).join("\n")};
  }

  /* An axis' ticks as declared (roofline.figures.declare.Ticks): [ticks or undefined (the plotter's), format] */
  function declaredTicks(t, lim, data, narrow) {
    if (!t) return [undefined, undefined];
    if (t.fmt === "pow10") return [undefined, pow10];
    if (t.fmt === "125") return [logTicks(lim[0], lim[1]).map((v) => ({v: v, label: tickValue(v)})), undefined];
    if (t.fmt === "plain") {
      const [a, b] = t.inside ? [data[0], data[data.length - 1]] : lim;
      return [niceTicks(a, b, narrow && t.narrow ? t.narrow : t.n).filter((v) => v >= a && (!t.whole || Number.isInteger(v)))
        .map((v) => ({v: v, label: String(+v.toPrecision(6))})), undefined];
    }
    return [undefined, undefined];
  }

  function drawPlot(key, spec, s, p, g) {
    const P = spec.plot, lay = layout(g, P.boxes, P.height), col = (name) => color(spec, name);
    if (!p.drawn) {  // no figure at this setting: the note where it would be, wrapped at 60 characters
      const [X, Y] = lay.boxes[0], lines = [""];
      p.note.split(" ").forEach((w) => {
        if (lines[lines.length - 1].length + w.length > 60) lines.push("");
        lines[lines.length - 1] += (lines[lines.length - 1] ? " " : "") + w;
      });
      return drawn(lay, "", lines.map((line, i) => `<text x="${X}" y="${Y + 20 + 16 * i}">${esc(line)}</text>`).join(""),
                   [p.note]);
    }
    const style = (o) => ({color: col(o.style.color), width: o.style.width, dash: o.style.dash || null,
                           opacity: o.style.opacity || null});
    const markup = P.panels.map((pn, i) => {
      const got = p.panels[i], x = got.x, lines = [], points = [];
      pn.series.forEach((sr) => {
        const y = got.series[sr.name];
        if (!y) return;
        const sx = sr.x ? got.xs[sr.name] : x;
        lines.push(Object.assign({x: sx, y: y, step: sr.step || null, floor: sr.floor}, style(sr)));
        if (sr.markers) sx.forEach((xx, j) => points.push({x: xx, y: y[j], r: 2, color: col(sr.style.color)}));
      });
      (pn.points || []).forEach((pt) => {
        const at = got.points[pt.name];
        if (at) points.push({x: at[0], y: at[1], r: pt.r, color: col(pt.color), shape: pt.shape, edge: pt.edge ? col(pt.edge) : null});
      });
      const [xticks, xfmt] = declaredTicks(pn.xticks, got.xlim, x, lay.narrow);
      let [yticks, yfmt] = declaredTicks(pn.yticks, got.ylim, got.ylim, lay.narrow);
      const rects = [];
      (pn.blocks || []).forEach((bl) => {  // each lane's background over the axis, then the bars, and the lanes as ticks
        const n = got.lanes[bl.name], every = Math.max(1, Math.ceil(n / 12));
        if (bl.background) for (let st = 0; st < n; st++) rects.push({x0: got.xlim[0], x1: got.xlim[1], y0: st - 0.4, y1: st + 0.4, color: col(bl.background[0])});
        got.blocks[bl.name].forEach((o) => rects.push({x0: o.start, x1: o.end, y0: o.stage - 0.4, y1: o.stage + 0.4,
                                                       color: col(bl.colors[o.kind][0]), edge: C.paper}));
        yticks = [];
        for (let st = 0; st < n; st += every) yticks.push({v: st, label: bl.lane_label.replace("{}", st)});
      });
      return panel({id: `rl-${key}-${i}`, box: lay.boxes[i], xlog: pn.xlog, ylog: pn.ylog, xlim: got.xlim,
                     ylim: got.ylim, xlabel: pn.xlabel, ylabel: pn.ylabel, lines: lines, points: points, rects: rects,
                     spans: (pn.spans || []).map((sp) => ({x0: got.spans[sp.name][0], x1: got.spans[sp.name][1], color: col(sp.style.color)})),
                     hlines: (pn.lines || []).map((l) => Object.assign({y: got.lines[l.name]}, style(l))),
                     vlines: (pn.marks || []).map((m) => Object.assign({x: got.marks[m.name]}, style(m))),
                     xticks: xticks, xfmt: xfmt, yticks: yticks, yfmt: yfmt,
                     texts: (pn.texts || []).map((t) => Object.assign({}, t, {color: col(t.color)})),
                     note: lay.narrow ? null : p.notes[i], noteWidth: pn.note_width});
    });
    return drawn(lay, p.title, markup.join(""), p.notes.filter((n) => n));
  }

  /* The key, from the declaration: its `legend` names in order (or every labelled element) */
  function plotKey(spec) {
    const P = spec.plot, items = {}, order = [], col = (name) => color(spec, name);
    // a key's line at least 2 px wide, opaque where the plot's is nearly so
    const line = (st) => ({width: Math.max(2, st.width), dash: st.dash || null, opacity: st.opacity < 0.8 ? st.opacity || null : null});
    const add = (o, item) => {
      if (!o.label || o.name in items) return;
      items[o.name] = [o.label].concat(item);
      order.push(o.name);
    };
    P.panels.forEach((panel) => {
      panel.series.forEach((sr) => add(sr, [col(sr.style.color), line(sr.style)]));
      (panel.lines || []).forEach((l) => add(l, [col(l.style.color), line(l.style)]));
      (panel.spans || []).forEach((sp) => add(sp, [col(sp.style.color), {width: sp.style.width}]));
      (panel.marks || []).forEach((m) => add(m, [col(m.style.color), line(m.style)]));
      (panel.blocks || []).forEach((bl) => {
        Object.keys(bl.colors).forEach((k) => add({name: `${bl.name}.${k}`, label: bl.colors[k][1]}, [col(bl.colors[k][0]), {width: 8}]));
        if (bl.background) add({name: `${bl.name}.background`, label: bl.background[1]}, [col(bl.background[0]), {width: 8}]);
      });
      (panel.points || []).forEach((pt) => add(pt, [col(pt.color), {line: false, marker: {shape: pt.shape, color: col(pt.color),
                                                                                          edge: pt.edge ? col(pt.edge) : null}}]));
    });
    return legend((P.legend && P.legend.length ? P.legend : order).map((n) => items[n]));
  }

  // -- the page ---------------------------------------------------------------------------------
  /* The static PNG this live figure redraws: the image in the output of the nearest code cell above the
   * placeholder, in the same section with only text between, if it shows one image (a cell of several frames is
   * a comparison and stays; text it prints stays). Hidden (a class) once the live figure is drawn; without
   * JavaScript it shows. */
  function hideStatic(root) {
    for (let el = root.previousElementSibling; el; el = el.previousElementSibling) {
      if (el.matches("div.cell")) {
        const out = el.querySelector(":scope > div.cell_output");
        if (!out || out.querySelectorAll("img").length !== 1) return null;
        let img = out.querySelector("img");
        while (img.parentElement !== out) img = img.parentElement;  // its output block
        const hidden = out.children.length === 1 ? out : img;
        hidden.classList.add("roofline-static-replaced");
        return hidden;
      }
      if (!el.matches("p, ul, ol, blockquote")) return null;  // a heading, an equation, a table: another topic
    }
    return null;
  }

  /* The column's width as a figure's layout needs it: narrow below NARROW_PX (the SVG's own width, in CSS px). */
  function geometry(svg) {
    const width = svg.getBoundingClientRect().width;
    return {narrow: width > 0 && width < NARROW_PX, width: width};
  }

  /* The settings a shared link gives figure `key` (?KEY.NAME=VALUE), those that are values of its controls. */
  function linkedSettings(key, spec) {
    const params = new URLSearchParams(window.location.search), out = {};
    spec.controls.forEach((c) => {
      const text = params.get(`${key}.${c.name}`);
      const v = text === null ? null : parseValue(c, text);
      if (v !== null) out[c.name] = v;
    });
    return out;
  }

  /* The page's address with figure `key`'s settings in its query (other parameters kept). */
  function addressWith(key, spec, state) {
    const params = new URLSearchParams(window.location.search);
    spec.controls.forEach((c) => params.set(`${key}.${c.name}`, valueText(c, state[c.name])));
    return window.location.pathname + "?" + params.toString();
  }

  const mounted = [];  // {redraw, legend} of every figure drawn, for a change of theme

  /* Figure root.dataset.figure drawn into root. options.embedded: a notebook's widget (roofline.widget), whose
   * ipywidgets controls set the state (options.state, then entry.set): no form of its own, no page address. */
  function mount(root, options) {
    const embedded = !!(options && options.embedded);
    const key = root.dataset.figure, spec = GEN.figures[key];
    const fig = spec && spec.plot ? {compute: computePlot, key: () => plotKey(spec),
                                      draw: (sp, st, p, geo) => drawPlot(key, sp, st, p, geo)} : null;
    if (!spec || !fig) {
      root.textContent = `(no live figure named ${key})`;
      return;
    }
    const state = {};
    spec.controls.forEach((c) => { state[c.name] = c.value; });
    Object.assign(state, embedded ? options.state || {} : linkedSettings(key, spec));
    root.innerHTML = "";
    root.classList.add("roofline-live-ready");
    if (!root.id) root.id = `roofline-live-${key}`;
    const section = root.closest("section[id]");  // a shared link opens at the figure's section
    const heading = document.createElement("p");
    heading.className = "roofline-live-heading";
    heading.textContent = (embedded ? "Live, redrawn in your browser: " : "Live on this page (no kernel needed): ") +
      spec.caption;
    root.appendChild(heading);
    const svg = document.createElementNS(SVGNS, "svg");
    svg.setAttribute("class", "roofline-live-plot");
    svg.setAttribute("role", "img");
    const caption = document.createElement("p");
    caption.className = "roofline-live-caption";
    const notes = document.createElement("p");
    notes.className = "roofline-live-notes";
    notes.id = `${root.id}-notes`;
    notes.setAttribute("aria-live", "polite");
    const keyBox = document.createElement("div");
    keyBox.className = "roofline-live-legend";
    const tools = document.createElement("p");
    tools.className = "roofline-live-tools";
    const link = document.createElement("a");
    link.className = "roofline-live-link";
    link.textContent = "link to these settings";
    const download = document.createElement("button");
    download.type = "button";
    download.className = "roofline-live-csv";
    download.textContent = "download the data (CSV)";
    if (embedded) tools.append(download);
    else tools.append(link, " · ", download);

    let g = null, timer = null;
    const entry = (LIVE[key] = {
      state: state, plotted: null, redraws: [], spec: spec, replaced: null,
      compute: (s) => fig.compute(spec, Object.assign({}, state, s)),
      link: () => addressWith(key, spec, state) + (section ? "#" + section.id : ""),
      csv: () => csvOf(state, entry.plotted),
      set: (values) => { Object.assign(state, values); controls.show(); redraw(); },
    });
    const redraw = () => {
      const t0 = performance.now();
      const plotted = fig.compute(spec, state);
      const out = fig.draw(spec, state, plotted, g);
      svg.setAttribute("viewBox", `0 0 ${out.width} ${out.height}`);
      svg.innerHTML = out.svg;
      svg.setAttribute("aria-label", plotted.label);
      caption.textContent = out.caption;
      const dead = controls.inert();
      notes.textContent = dead.map(([label, note]) => `${label}: ${note}`).join("\n");
      link.href = entry.link();
      entry.plotted = plotted;
      entry.redraws.push(performance.now() - t0);
    };
    const changed = () => {
      redraw();
      if (embedded) return;
      clearTimeout(timer);  // the address bar follows the settings once the reader has moved a control
      timer = setTimeout(() => {
        window.history.replaceState(window.history.state, "", addressWith(key, spec, state) + window.location.hash);
      }, 300);
    };
    const controls = buildControls(key, spec, state, changed);
    Object.values(controls.inputs).forEach((input) => input.setAttribute("aria-describedby", notes.id));
    download.addEventListener("click", () => {
      const url = URL.createObjectURL(new Blob([entry.csv()], {type: "text/csv"}));
      const a = document.createElement("a");
      a.href = url;
      a.download = `roofline-${key}.csv`;
      document.body.appendChild(a);
      a.click();
      a.remove();
      setTimeout(() => URL.revokeObjectURL(url), 1000);
    });
    if (embedded) root.append(svg, caption, notes, keyBox, tools);
    else root.append(controls.form, svg, caption, notes, keyBox, tools);
    const measure = () => {  // the layout for the column's width (measured here, not at each redraw: a forced layout)
      g = geometry(svg);
      root.classList.toggle("roofline-live-narrow", g.narrow);
    };
    measure();
    const legend = () => { keyBox.innerHTML = fig.key(spec); };
    legend();
    redraw();
    mounted.push({redraw: redraw, legend: legend});
    if (embedded) {
      if (window.ResizeObserver) new ResizeObserver(() => { measure(); redraw(); }).observe(root);
      return entry;
    }
    const replaced = hideStatic(root);
    entry.replaced = replaced ? (replaced.matches("img") ? replaced : replaced.querySelector("img")).getAttribute("src") : null;
    if (window.ResizeObserver) {  // a new width: a new layout where the panels stack or the column's width changed
      new ResizeObserver(() => {
        const now = geometry(svg);
        if (now.width > 0 && (now.narrow !== g.narrow || (now.narrow && now.width !== g.width))) {
          measure();
          redraw();
        }
      }).observe(root);
    }
    const hash = window.location.hash;
    if (Object.keys(linkedSettings(key, spec)).length && (!hash || (section && hash === "#" + section.id))) {
      // a shared link: the figure itself in view, now and once the page has loaded (the browser scrolls to the
      // section's start meanwhile)
      root.scrollIntoView();
      if (document.readyState !== "complete") window.addEventListener("load", () => root.scrollIntoView());
    }
  }

  let themed = false;
  function followTheme() {
    readPalettes();
    if (themed) return;
    themed = true;
    // the reader switches theme (pydata-sphinx-theme sets data-theme on <html>, JupyterLab data-jp-theme-light on
    // <body>): the theme's colours, redrawn
    const again = () => {
      readPalettes();
      mounted.forEach((m) => { m.legend(); m.redraw(); });
    };
    new MutationObserver(again).observe(document.documentElement, {attributes: true, attributeFilter: ["data-theme"]});
    if (document.body) {
      new MutationObserver(again).observe(document.body, {attributes: true, attributeFilter: ["data-jp-theme-light"]});
    }
  }

  function start() {
    followTheme();
    document.querySelectorAll("div.roofline-live[data-figure]").forEach((root) => {
      try {
        mount(root);
      } catch (e) {
        root.textContent = "";
        throw e;
      }
    });
  }

  LIVE._internals = {equationAt: equationAt, schedule: schedule, deployment: deployment, count: count,
                     computePlot: computePlot, drawPlot: drawPlot, plotKey: plotKey,
                     tickValue: tickValue, csvOf: csvOf};
  /* A figure mounted by a caller, not found on the page: roofline.widget's view in a notebook. */
  LIVE.mount = (root, options) => {
    followTheme();
    return mount(root, options);
  };
  if (window.rooflineLiveManual) return;  // the notebook's widget: it mounts its own figure
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
