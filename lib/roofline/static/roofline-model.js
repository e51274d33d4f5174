/* Your own model on the published page: a config.json read in the browser, offered by the live figures.
 *
 * Nothing is sent anywhere: the file (or the pasted text) is read here, by the program roofline.hf declares for
 * its family (window.RooflineGenerated.reader, written by roofline.web: the keys each family reads, their kinds
 * and defaults, the checks, the counting formulas printed from the library's sympy expressions, the mapping to
 * the Model's fields and the messages), so the page gets the Model roofline.hf.from_hf_config would give, field
 * for field. The model's KV bytes and attention FLOPs come from roofline.models.FORMULAS (prefill's from
 * roofline.prefill.FORMULAS), its deployment's values from roofline.deployment.MODEL_VALUES, its chip count from
 * roofline.deployment.DEFAULT_CHIPS, its expert layouts from roofline.moe.LAYOUT_CHIPS and its longest prompt from
 * the search roofline.figures.prefill.PROMPT_WALL declares, all printed from the library: this file runs them and
 * types no formula.
 *
 * The figures whose model control can take it (reader.data.offered: chapters 1, 2, 4 and 8) get one more option,
 * the reader's model, with its values added to their tables: one more model index in deployments (and, chapter 8,
 * prompt_wall), and its entry in windows, experts and layout_chips (chapter 2) and prompt (chapter 8). The figures
 * whose model is a set of sliders (reader.sliders: chapters 5, 6 and 7) get a button that moves them to the stops
 * nearest the model's values.
 * The model is kept in localStorage (it travels from chapter to chapter) and, once loaded, its fields (not the
 * config) go into the page's address as ?yours=..., so every "link to these settings" carries it.
 *
 * A config that cannot be read gives the message Python gives, naming the field and what was expected, under
 * the loader; nothing else on the page changes. For tests: window.rooflineModel.read(text, where) returns the
 * Model's fields or throws a ConfigError; .load(text, where) reads and offers it; .current() is the model shown.
 *
 * This script runs before roofline-live.js (both deferred, in that order), so the figures mount with the model.
 */
(function () {
  "use strict";
  const GEN = window.RooflineGenerated;
  if (!GEN || !GEN.reader) return;
  const R = GEN.reader, D = R.data;
  const STORE = "roofline-your-model", PARAM = "yours", SUFFIX = " (yours)";
  const MAX_INT = R.limits.max_int;

  /* A count as the library writes it (roofline.figures.live.count, by its COUNT_RULE: 5.13B, 1.03T): the one
   * roofline-live.js runs, which loads after this script; before it has (a link read as the page loads), three
   * significant figures with the same units. */
  function count(x) {
    const live = window.rooflineLive && window.rooflineLive._internals;
    if (live && live.count) return live.count(x);
    const units = [[1e12, "T"], [1e9, "B"], [1e6, "M"], [1e3, "K"]], u = units.find(([scale]) => x >= scale);
    return u ? `${+(x / u[0]).toPrecision(3)}${u[1]}` : `${+x.toPrecision(3)}`;
  }

  class ConfigError extends Error {
    constructor(message, key) {
      super(message);
      this.name = "ConfigError";
      this.key = key || null;
    }
  }

  // -- values as Python writes them in a message ----------------------------------------------------
  /* JSON.parse keeps no difference between 4096 and 4096.0, nor an integer beyond 2**53 exact: the parse below
   * wraps those (from the number's source text) so that they are refused as Python refuses them. */
  class PyFloat { constructor(x) { this.value = x; } }
  class PyBigInt { constructor(text) { this.text = text; } }

  function pyFloat(x) {  // Python's repr of a float
    if (!isFinite(x)) return x > 0 ? "inf" : x < 0 ? "-inf" : "nan";
    if (x === 0) return Object.is(x, -0) ? "-0.0" : "0.0";
    const [mant, ex] = x.toExponential().split("e"), e = +ex;
    if (e < -4 || e >= 16) return `${mant}e${e < 0 ? "-" : "+"}${String(Math.abs(e)).padStart(2, "0")}`;
    const s = String(x);
    return s.indexOf(".") < 0 ? s + ".0" : s;
  }
  function pyStr(s) {  // Python's repr of a str
    const q = s.indexOf("'") >= 0 && s.indexOf('"') < 0 ? '"' : "'";
    const body = s.replace(/\\/g, "\\\\").replace(/\n/g, "\\n").replace(/\r/g, "\\r").replace(/\t/g, "\\t");
    return q + (q === "'" ? body.replace(/'/g, "\\'") : body) + q;
  }
  function pyRepr(v, depth) {  // reprlib's, as roofline._check.short uses it: 8 items of a container, 80 characters
    depth = depth || 0;
    const cut = (s) => (s.length > 80 ? s.slice(0, 38) + "..." + s.slice(s.length - 39) : s);
    if (v === null) return "None";
    if (v === true) return "True";
    if (v === false) return "False";
    if (v instanceof PyFloat) return pyFloat(v.value);
    if (v instanceof PyBigInt) return cut(v.text);
    if (typeof v === "number") return String(v);
    if (typeof v === "string") return depth ? cut(pyStr(v)) : pyStr(v);
    if (depth >= 6) return Array.isArray(v) ? "[...]" : "{...}";
    if (Array.isArray(v)) {
      const items = v.slice(0, 8).map((x) => pyRepr(x, depth + 1));
      return "[" + items.join(", ") + (v.length > 8 ? ", ..." : "") + "]";
    }
    const keys = Object.keys(v);
    const items = keys.slice(0, 8).map((k) => `${pyRepr(k, depth + 1)}: ${pyRepr(v[k], depth + 1)}`);
    return "{" + items.join(", ") + (keys.length > 8 ? ", ..." : "") + "}";
  }
  function pyType(v) {
    if (v === null) return "NoneType";
    if (typeof v === "boolean") return "bool";
    if (v instanceof PyFloat) return "float";
    if (v instanceof PyBigInt || typeof v === "number") return "int";
    if (typeof v === "string") return "str";
    return Array.isArray(v) ? "list" : "dict";
  }
  const shown = (v) => { const s = pyRepr(v); return s.length <= R.limits.max_shown ? s : s.slice(0, R.limits.max_shown - 3) + "..."; };
  const got = (v) => `got ${shown(v)} of type ${pyType(v)}`;
  const fill = (template, values) => template.replace(/\{(\w+)\}/g, (m, k) => (k in values && values[k] !== null ? String(values[k]) : m));
  const supported = () => Object.keys(R.families).map((k) => `${pyStr(k)} (${R.families[k]})`).join(", ");
  const isInt = (v) => typeof v === "number" && Number.isInteger(v);

  // -- reading a config.json -------------------------------------------------------------------------
  function parse(text, where) {
    if (typeof text !== "string") throw new ConfigError(`${where}: the config must be text`);
    if (new Blob([text]).size > R.limits.max_bytes) {
      throw new ConfigError(fill(R.messages.too_large, {where: where, mib: R.limits.max_bytes / 2 ** 20}));
    }
    if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);  // a byte-order mark, as Python's utf-8-sig
    let data;
    try {
      data = JSON.parse(text, function (key, value, context) {
        if (typeof value !== "number" || !context || typeof context.source !== "string") return value;
        if (/[.eE]/.test(context.source)) return new PyFloat(value);
        if (Number.isSafeInteger(value)) return value;
        const exact = BigInt(context.source);  // 2**53 itself is a size Python accepts; 2**53 + 1 rounds to it here
        return exact <= 2n ** 53n && exact >= -(2n ** 53n) ? value : new PyBigInt(context.source);
      });
    } catch (e) {
      throw new ConfigError(fill(R.messages.not_json, {where: where, error: e.message}));
    }
    if (data === null || typeof data !== "object" || Array.isArray(data) || data instanceof PyFloat || data instanceof PyBigInt) {
      throw new ConfigError(fill(R.messages.not_object, {where: where, type: pyType(data)}));
    }
    return data;
  }

  function family(data, where) {
    const f = data.model_type;
    if (f === undefined || f === null) throw new ConfigError(fill(R.messages.no_model_type, {where: where, supported: supported()}), "model_type");
    if (typeof f !== "string") {
      throw new ConfigError(fill(R.messages.model_type_type, {where: where, supported: supported(), got: got(f)}), "model_type");
    }
    if (!(f in R.programs)) {
      throw new ConfigError(fill(R.messages.model_type_unknown, {where: where, value: shown(f), supported: supported()}), "model_type");
    }
    return f;
  }

  /* The environment a formula reads: every name, an absent one (null) as 0. */
  const envOf = (env) => new Proxy(env, {get: (t, k) => (t[k] === null || t[k] === undefined ? 0 : t[k])});
  const has = Object.prototype.hasOwnProperty;
  const truth = (f, env) => (typeof f === "function" ? !!f(envOf(env)) : f === undefined ? null : !!f);

  /* roofline.hf._run and _read: the family's steps over the config. */
  function run(data, where, fam) {
    const env = {}, texts = {};
    const fail = (kind, key, values) => new ConfigError(fill(R.messages[kind], Object.assign({where: where, key: key}, values)), key);
    for (const step of R.programs[fam].steps) {
      if (step.op === "count_end") continue;
      if (step.op === "let") {
        env[step.name] = step.expr(envOf(env));
      } else if (step.op === "check") {
        if (!step.cond(envOf(env))) throw fail("check", null, {message: fill(step.message, env)});
      } else if (step.op === "kinds") {
        const kinds = has.call(data, step.key) ? data[step.key] : null, layers = env[step.layers];
        const counts = {};
        step.values.forEach((k) => { counts[k] = 0; });
        if (kinds !== null) {
          if (!Array.isArray(kinds)) throw fail("kinds_type", step.key, {got: got(kinds)});
          if (kinds.length !== layers) throw fail("kinds_length", step.key, {layers_key: step.layers_key, layers: layers, length: kinds.length});
          for (const kind of kinds) {
            if (typeof kind !== "string" || !has.call(counts, kind)) {
              throw fail("kinds_entry", step.key, {values: step.values.map(pyStr).join(", "), got: got(kind)});
            }
            counts[kind] += 1;
          }
        }
        env[`${step.name}_present`] = kinds === null ? 0 : 1;
        for (const k in counts) env[`${step.name}_${k}`] = counts[k];
      } else {
        read(step, data, env, texts, fail, fam);
      }
    }
    return {env: env, texts: texts};
  }

  function read(step, data, env, texts, fail, fam) {
    const kind = step.kind || "int", minimum = step.minimum === undefined ? 1 : step.minimum;
    const dflt = step.default === undefined ? "required" : step.default;
    if (step.when && !truth(step.when, env)) { env[step.name] = null; return; }
    const value = has.call(data, step.key) ? data[step.key] : undefined;
    const mayBeAbsent = dflt !== "required" || (step.optional ? truth(step.optional, env) : false);
    if (value === undefined || (value === null && mayBeAbsent)) {
      if (dflt === "required" && !mayBeAbsent) {
        throw fail("missing", step.key, {family: fam, supported: supported()});
      }
      const d = dflt === "required" ? null : dflt;
      if (kind === "str") { texts[step.name] = d; env[step.name] = d === step.truth ? 1 : 0; }
      else env[step.name] = d === null ? null : typeof d === "function" ? d(envOf(env)) : d;
      return;
    }
    if (kind === "int") {
      if (!isInt(value) || !(minimum <= value && value <= MAX_INT)) throw fail("int", step.key, {minimum: minimum, got: got(value)});
      env[step.name] = value;
    } else if (kind === "flag") {
      if (typeof value !== "boolean") throw fail("flag", step.key, {got: got(value)});
      env[step.name] = value ? 1 : 0;
    } else if (kind === "str") {
      if (typeof value !== "string") throw fail("str", step.key, {got: got(value)});
      texts[step.name] = value;
      env[step.name] = value === (step.truth || "") && step.truth ? 1 : 0;
    } else {  // int_list: its distinct members where the predicate holds
      if (!Array.isArray(value) || !value.every((x) => isInt(x) || x instanceof PyBigInt)) throw fail("int_list", step.key, {got: got(value)});
      const seen = new Set(value.map((x) => (x instanceof PyBigInt ? Infinity : x)));
      let n = 0;
      seen.forEach((i) => { if (step.predicate(envOf(Object.assign({}, env, {i: i})))) n += 1; });
      env[step.name] = n;
    }
  }

  /* roofline.hf.from_hf_config: the Model's fields, its parts and name, from the text of a config.json. */
  function readConfig(text, where, name) {
    where = where || "config.json";
    const data = parse(text, where), fam = family(data, where);
    const {env, texts} = run(data, where, fam);
    const program = R.programs[fam], parts = {};
    program.parts.forEach(([part, stored, active, included]) => {
      if (included(envOf(env))) parts[part] = [stored(envOf(env)), active(envOf(env))];
    });
    const model = {};
    for (const field in program.fields) {
      const source = program.fields[field];
      if (Array.isArray(source)) model[field] = source.find(([, cond]) => cond(envOf(env)))[0];
      else model[field] = source === null ? null : (env[source] === undefined ? null : env[source]);
    }
    // the name: the one given, the config's _name_or_path, a file's own name (not "config.json"), else the family
    // and the size ("gpt_oss 117B")
    const file = /\.json$/i.test(where) ? where.replace(/^.*[\\/]/, "").replace(/\.json$/i, "") : "";
    const size = count(env.total);
    const label = (name || (texts.name_or_path || "").trim() || (file.toLowerCase() !== "config" && file) ||
                   `${fam} ${size}`).slice(0, 80);
    model.key = model.name = label;
    model.total_params = env.total;
    model.active_params = env.active;
    model.source = fill(R.source, {file: where, family: fam});
    model.kv_bytes_published = model.pretrain_tokens = null;  // a config publishes neither
    model.confidence = "config";
    model.notes = R.notes + (env.mtp ? fill(R.mtp_note, {mtp: env.mtp.toLocaleString("en-US")}) : "");
    if (!(model.active_params > 0 && model.active_params <= model.total_params && isFinite(model.total_params))) {
      throw new ConfigError(`${where}: the counts (total ${model.total_params}, active ${model.active_params}) are not a model's`);
    }
    return {model: model, parts: parts, mtp: env.mtp, family: fam};
  }

  // -- what the library derives from a Model (roofline.models.FORMULAS) ----------------------------------------
  function sizes(m) {
    const v = {};
    ["layers", "n_kv_heads", "head_dim", "kv_lora_rank", "qk_rope_head_dim", "n_q_heads", "hidden_size"].forEach((k) => { v[k] = m[k] || 0; });
    v.full_layers = m.full_attention_layers || m.layers;
    v.window = m.sliding_window || 0;
    return v;
  }
  const windowLayers = (m) => m.layers - (m.full_attention_layers || m.layers);
  const kvPerLayer = (m, b) => R.formulas[`kv_bytes_per_layer[${m.attention}]`](Object.assign(sizes(m), {bytes_per_elem: b}));
  const attnPerLayer = (m) => R.formulas[`attention_flops_per_layer[${m.attention}]`](sizes(m));
  const kept = (m, L) => R.formulas.kept_token_layers(Object.assign(sizes(m), {len_ctx: L}));
  /* Model.kv_bytes_per_token and attention_flops_per_token: the growth of a long context, or at context L (a
   * Deployment's kv_bytes_at / attn_flops_at: an empty context counts as one token) */
  function kvBytes(m, L) {
    const b = D.kv_bytes_per_elem, per = kvPerLayer(m, b);
    if (L === undefined || !windowLayers(m)) return per * sizes(m).full_layers;
    const l = Math.max(L, 1);
    return per * kept(m, l) / l;
  }
  function attnFlops(m, L) {
    const per = attnPerLayer(m);
    if (L === undefined || !windowLayers(m)) return per * sizes(m).full_layers;
    const l = Math.max(L, 1);
    return per * kept(m, l) / l;
  }
  function quantities(m) {  // the Model's attributes MODEL_VALUES names
    const moe = !m.routed_experts ? 0 : m.dense_layers === null ? null : R.formulas.moe_layers({layers: m.layers, dense_layers: m.dense_layers});
    const expert = !moe || !m.moe_ffn_dim || !m.hidden_size ? null
      : R.formulas.expert_params({hidden_size: m.hidden_size, moe_ffn_dim: m.moe_ffn_dim, moe_layers: moe});
    return Object.assign({}, m, {moe_layers: moe, routed_params: expert === null ? null : m.routed_experts * expert,
                                 kv_bytes: kvBytes(m)});
  }
  /* Deployment.values that come from the model: MODEL_VALUES (where the model gives them), DENSE_VALUES for a dense
   * model, KV bytes and attention FLOPs of a long context */
  function modelValues(m) {
    const q = quantities(m), out = {};
    for (const k in D.model_values) if (q[D.model_values[k]]) out[k] = q[D.model_values[k]];
    if (!m.routed_experts) Object.assign(out, D.dense_values);
    out.kv_bytes = kvBytes(m);
    out.attn_flops = attnFlops(m);
    return out;
  }
  /* roofline.prefill.prefill_attn_flops and prefill_latent_flops: a fresh prompt's attention FLOPs a (query, key) pair,
   * all layers (a prompt of L tokens; without L, a long prompt's), and the FLOPs a cached token's latent costs */
  function prefillAttn(m, L) {
    const s = sizes(m), per = R.formulas[`prefill_attn_flops_per_pair[${m.attention}]`](s);
    if (L === undefined || !windowLayers(m)) return per * s.full_layers;
    const pairs = R.formulas.prefill_pairs({pass_len: L});
    return per * R.formulas.prefill_pair_layers(Object.assign(s, {pass_len: L, pairs: pairs})) / pairs;
  }
  const latentFlops = (m) => (m.attention !== "MLA" ? 0
    : R.formulas["prefill_latent_flops_per_layer[MLA]"](sizes(m)) * sizes(m).full_layers);

  /* roofline.figures.prefill.prompt_wall: the search PROMPT_WALL declares, over the deployment's values `v` */
  function promptWall(m, v) {
    const S = D.prompt_wall, eq = GEN.equations[S.equation];
    const holds = (L) => {
      const at = Object.assign({}, v, {len_ctx: L, kv_bytes: kvBytes(m, L)});
      if (windowLayers(m)) at.attn_flops = attnFlops(m, L);
      return eq.f.apply(null, eq.args.map((a) => at[a])) >= S.at_least;
    };
    const limit = m.context_tokens || S.default_limit;
    if (holds(limit)) return limit;
    let lo = 0, hi = limit;
    for (let i = 0; i < S.steps; i++) {
      const mid = (lo + hi) / 2;
      if (holds(Math.max(mid, 1))) lo = mid;
      else hi = mid;
    }
    return lo;
  }

  /* roofline.deployment.default_chips: DEFAULT_CHIPS of the weights' bytes and the chip's domain and HBM. */
  function defaultChips(m, chip, bytesPerParam) {
    const c = D.chips[chip];
    return R.default_chips({weight_bytes: m.total_params * bytesPerParam, scaleup_domain: c.scaleup_domain, hbm_bytes: c.hbm_bytes});
  }

  // -- offering the model in a figure ----------------------------------------------------------------
  const tableValues = GEN.deployment;  // a factored table's values (roofline.web.DEPLOYMENT_JS)

  const optionOf = (m) => m.name + SUFFIX;
  const control = (spec, name) => spec.controls.find((c) => c.name === name);

  /* Figure `key`'s spec without a reader's model: its option (always the control's last) and its entries in the
   * figure's tables removed; the control's start value back if it was the model. */
  function withdraw(key, spec) {
    const c = D.offered[key] && control(spec, D.offered[key]), T = spec.data && spec.data.deployments;
    if (!c || !T || !String(c.options[c.options.length - 1]).endsWith(SUFFIX)) return;
    const name = c.options.pop(), mi = c.options.length;
    if (c.labels) c.labels.pop();
    for (const k in T.by_model) T.by_model[k].length = mi;
    for (const k in T.full) T.full[k].length = mi;
    if (spec.data.prompt_wall) spec.data.prompt_wall.length = mi;
    ["windows", "experts", "prompt"].forEach((t) => { if (spec.data[t]) delete spec.data[t][name]; });
    if (spec.data.layout_chips) for (const chip in spec.data.layout_chips) delete spec.data.layout_chips[chip][name];
    if (c.value === name) c.value = c._start === undefined ? c.options[0] : c._start;
  }

  /* Figure `key`'s spec with the reader's model `m` as its model control's last option (an earlier reader's model
   * withdrawn first): one more model index in its deployments table, the model's windows and, for chapters 2 and
   * 8, its experts, layouts, prompts and prompt walls. False where the figure's data needs what the page cannot
   * derive for this model (a dense model in chapter 2's): the figure is then left without it. */
  function offer(key, spec, m) {
    withdraw(key, spec);
    const cname = D.offered[key], c = cname && control(spec, cname);
    const T = spec.data && spec.data.deployments;
    if (!c || !T) return false;
    const mi = c.options.length, values = modelValues(m), name = optionOf(m);
    const byModel = {};
    for (const k in T.by_model) {
      const col = T.by_model[k];
      if (k in values) byModel[k] = values[k];
      else if (col.every((x) => x === col[0])) byModel[k] = col[0];  // the same for every model: not the model's
      else return false;
    }
    const chips = control(spec, "chip");
    const full = {};
    for (const k in T.full) {
      if (k !== "n_chips" || !chips) return false;
      full[k] = chips.options.map((chip, h) => T.full[k][0][h].map((_, p) => {
        const b = T.by_chip.bytes_per_param ? T.by_chip.bytes_per_param[h][p] : T.full.bytes_per_param[0][h][p];
        return defaultChips(m, chip, b);
      }));
    }
    // chapter 2's tables: the model's routed experts, and its GPUs and racks of each layout (moe.LAYOUT_CHIPS)
    const racks = D.layout_racks[key] && control(spec, D.layout_racks[key]);
    if (spec.data.experts || spec.data.layout_chips) {
      if (!m.routed_experts || !racks || !spec.data.experts || !spec.data.layout_chips) return false;
      if (!Object.keys(spec.data.layout_chips).every((chip) => chip in D.chips)) return false;
    }
    // chapter 8's: what a fresh prompt's pass takes, and the longest prompt a sequence holds
    const prompt = D.prompt_tables[key] && control(spec, D.prompt_tables[key]);
    const eq = GEN.equations[D.prompt_wall.equation];
    if (spec.data.prompt || spec.data.prompt_wall) {
      if (!prompt || !spec.data.prompt || !spec.data.prompt_wall || !D.prompt_panels[key] || !chips || !eq) return false;
    }
    for (const k in byModel) T.by_model[k][mi] = byModel[k];
    for (const k in full) T.full[k][mi] = full[k];
    if (prompt) {
      const one = (xs) => (xs.every((x) => x === xs[0]) ? xs[0] : xs);  // one number where every prompt gives it
      const at = (grid) => ({attn_flops: one(grid.map((L) => prefillAttn(m, L))), kv_bytes: one(grid.map((L) => kvBytes(m, L)))});
      spec.data.prompt[name] = {latent_flops: latentFlops(m), panel: at(D.prompt_panels[key]), control: at(prompt.grid)};
      const precision = control(spec, "precision"), ps = precision ? precision.options : [null];
      spec.data.prompt_wall[mi] = chips.options.map((_, h) => ps.map((__, p) => promptWall(m, tableValues(T, mi, h, p))));
    }
    if (racks) {
      spec.data.experts[name] = m.routed_experts;
      for (const chip in spec.data.layout_chips) {
        const at = {};
        for (const layout in R.layouts) {
          at[layout] = racks.grid.map((r) => R.layouts[layout].map((f) => f({n_experts: m.routed_experts,
            scaleup_domain: D.chips[chip].scaleup_domain, n_racks: r})));
        }
        spec.data.layout_chips[chip][name] = at;
      }
    }
    if (spec.data.windows && windowLayers(m)) {
      const ctx = control(spec, (spec.plot && spec.plot.keywords && spec.plot.keywords.len_ctx) || "context");
      const w = {kv_bytes: ctx.grid.map((L) => kvBytes(m, L))};
      if ("attn_flops" in T.by_model) w.attn_flops = ctx.grid.map((L) => attnFlops(m, L));
      spec.data.windows[name] = w;
    }
    c.options.push(name);
    if (c.labels) c.labels.push(name);
    return true;
  }

  /* Figure `key`'s sliders set from model `m`: each to its stop nearest the model's value (in ratio on a log
   * slider). Returns [[label, stop as shown, the model's value]]. */
  function sliderValues(key, spec, m) {
    const out = {}, q = quantities(m), notes = [];
    for (const name in R.sliders[key]) {
      const c = control(spec, name), x = R.sliders[key][name](q);
      const d = c.log ? (s) => Math.abs(Math.log(s / x)) : (s) => Math.abs(s - x);
      const stop = c.grid.reduce((best, s) => (d(s) < d(best) ? s : best), c.grid[0]);
      out[name] = stop;
      const end = x < Math.min(...c.grid) ? "low" : x > Math.max(...c.grid) ? "high" : "";  // outside the range
      notes.push([c.label, c.readouts ? c.readouts[c.grid.indexOf(stop)] : String(stop), x, end]);
    }
    return {values: out, notes: notes};
  }

  // -- keeping the model: localStorage and the page's address -------------------------------------------
  const LINK_FIELDS = ["name", "total_params", "active_params", "layers", "attention", "n_kv_heads", "head_dim",
    "kv_lora_rank", "qk_rope_head_dim", "q_lora_rank", "full_attention_layers", "sliding_window", "hidden_size",
    "n_q_heads", "routed_experts", "shared_experts", "active_routed_experts", "moe_ffn_dim", "dense_ffn_dim",
    "dense_layers", "vocab", "context_tokens"];
  const ZERO_OK = {shared_experts: 1, dense_layers: 1};

  function encode(m) {
    return LINK_FIELDS.map((k) => (m[k] === null || m[k] === undefined ? "" : String(m[k]).replace(/~/g, "-"))).join("~");
  }
  /* The model a link or the storage holds, checked as the Model's fields are (null if it is not one). */
  function decode(text) {
    if (typeof text !== "string" || text.length > 2000) return null;
    const cells = text.split("~");
    if (cells.length !== LINK_FIELDS.length) return null;
    const m = {};
    for (let i = 0; i < cells.length; i++) {
      const k = LINK_FIELDS[i], s = cells[i];
      if (k === "name") { if (!s.trim()) return null; m.name = m.key = s.slice(0, 80); continue; }
      if (k === "attention") { if (["MHA", "GQA", "MLA"].indexOf(s) < 0) return null; m.attention = s; continue; }
      if (s === "") { m[k] = null; continue; }
      if (!/^\d+(\.\d+)?(e\+?\d+)?$/.test(s)) return null;
      const x = +s;
      if (!isFinite(x) || x > 1e18 || (k !== "total_params" && k !== "active_params" && (!Number.isInteger(x) || x > MAX_INT))) return null;
      if (x < (ZERO_OK[k] ? 0 : 1)) return null;
      m[k] = x;
    }
    const need = m.attention === "MLA" ? ["kv_lora_rank", "qk_rope_head_dim"] : ["n_kv_heads", "head_dim"];
    if (!m.total_params || !m.active_params || m.active_params > m.total_params || !m.layers || need.some((k) => m[k] === null)) return null;
    if (m.full_attention_layers !== null && (m.full_attention_layers > m.layers || (m.full_attention_layers < m.layers && !m.sliding_window))) return null;
    if (m.dense_layers !== null && m.dense_layers > m.layers) return null;
    if (m.routed_experts !== null && m.active_routed_experts !== null && m.active_routed_experts > m.routed_experts) return null;
    m.source = "a shared link";
    m.confidence = "config";
    m.notes = "";
    return m;
  }

  function stored() {
    try {
      const s = JSON.parse(window.localStorage.getItem(STORE) || "null");
      return s && typeof s === "object" ? s : null;
    } catch (e) {
      return null;
    }
  }
  function save(m, chosen) {
    try {
      if (m) window.localStorage.setItem(STORE, JSON.stringify({model: encode(m), chosen: !!chosen}));
      else window.localStorage.removeItem(STORE);
    } catch (e) { /* storage off: the model stays for this page only */ }
  }
  function setAddress(m) {
    const params = new URLSearchParams(window.location.search);
    if (m) params.set(PARAM, encode(m));
    else params.delete(PARAM);
    const q = params.toString();
    window.history.replaceState(window.history.state, "", window.location.pathname + (q ? "?" + q : "") + window.location.hash);
  }

  // -- the state: the reader's model and whether the figures show it -------------------------------------
  let current = null, chosen = false;
  (function start() {
    const linked = decode(new URLSearchParams(window.location.search).get(PARAM));
    const kept = stored();
    if (linked) {
      current = linked;
      chosen = true;
    } else if (kept) {
      current = decode(kept.model);
      chosen = !!(current && kept.chosen);
    }
    if (current) {
      save(current, chosen);
      setAddress(chosen ? current : null);
      applyToSpecs();
    }
  })();

  /* Every offered figure's spec with the current model; its start value too where the reader has chosen it. */
  function applyToSpecs() {
    const offered = [];
    for (const key in GEN.figures) {
      const spec = GEN.figures[key], c = D.offered[key] && control(spec, D.offered[key]);
      if (!c) continue;
      if (c._start === undefined) c._start = c.value;  // the chapter's own start, for when the reader's is gone
      if (!current) { withdraw(key, spec); continue; }
      if (!offer(key, spec, current)) continue;
      c.value = chosen ? optionOf(current) : c._start;
      offered.push(key);
    }
    return offered;
  }

  // -- the loader -----------------------------------------------------------------------------------------
  const fmt = (x) => (x === null || x === undefined ? "—" : typeof x === "number" ? x.toLocaleString("en-US") : String(x));
  const panels = [];

  function summary(m) {
    const q = quantities(m);
    return `${m.name}: ${count(m.total_params)} parameters (${count(m.active_params)} active), ${m.layers} layers, ` +
      `${m.attention}${m.routed_experts ? `, ${m.routed_experts} routed experts (${m.active_routed_experts} a token)` : ", dense"}` +
      `${windowLayers(m) ? `, ${windowLayers(m)} sliding-window layers of ${fmt(m.sliding_window)} tokens` : ""}; ` +
      `KV cache ${fmt(q.kv_bytes)} bytes a token (BF16)`;
  }

  /* A loader beside `root` (a live figure's placeholder, or the appendix's div.roofline-model-reader). */
  function loader(root, key) {
    const box = document.createElement(key ? "details" : "div");
    box.className = "roofline-model" + (key ? "" : " roofline-model-page");
    const head = document.createElement(key ? "summary" : "p");
    head.className = "roofline-model-head";
    const body = document.createElement("div");
    body.className = "roofline-model-body";
    const file = document.createElement("input");
    file.type = "file";
    file.accept = ".json,application/json";
    file.className = "roofline-model-file";
    const fileLabel = document.createElement("label");
    fileLabel.append("config.json file: ", file);
    const text = document.createElement("textarea");
    text.className = "roofline-model-text";
    text.rows = key ? 4 : 8;
    text.placeholder = "or paste a config.json here";
    text.setAttribute("aria-label", "config.json text");
    const button = (name, label) => {  // a plain button (not a form's submit), its class roofline-model-NAME
      const b = document.createElement("button");
      b.type = "button";
      b.className = `roofline-model-${name}`;
      b.textContent = label;
      return b;
    };
    const readBtn = button("read", "read the pasted config");
    const forget = button("forget", "forget my model");
    const error = document.createElement("p");
    error.className = "roofline-model-error";
    error.setAttribute("role", "alert");
    const info = document.createElement("p");
    info.className = "roofline-model-info";
    info.setAttribute("aria-live", "polite");
    const setBtn = button("sliders", "");
    const privacy = document.createElement("p");
    privacy.className = "roofline-model-privacy";
    privacy.textContent = "Read in your browser: nothing is sent anywhere. The model's sizes (not the file) are kept in " +
      "this browser and in the page's address, so the other chapters and a shared link show it too.";
    const buttons = document.createElement("p");
    buttons.append(readBtn, " ", forget);
    body.append(fileLabel, text, buttons, error, info);
    if (key && R.sliders[key]) body.append(setBtn);
    body.append(privacy);
    box.append(head, body);
    // after the figure: roofline-live.js hides the static frame just above the placeholder, with only text between
    if (key) root.parentNode.insertBefore(box, root.nextSibling);
    else root.appendChild(box);

    const show = () => {
      head.textContent = current ? `Your model: ${current.name}` : "Your model: load a config.json";
      info.textContent = current ? summary(current) : "";
      if (key && current && D.offered[key] && !offers(key)) info.textContent += ". This figure cannot offer it.";
      forget.disabled = !current;
      setBtn.disabled = !current;
      setBtn.textContent = current ? `set the sliders from ${current.name} (nearest stops)` : "set the sliders from your model";
      if (current && key && !opened) { box.open = true; opened = true; }  // the model's box, open once it has one
      if (key && !D.offered[key] && !R.sliders[key] && current) {
        info.textContent += `. This figure does not offer it: ${D.not_offered[key] || "it has no model"}.`;
      }
    };
    const take = (content, where) => {
      error.textContent = "";
      try {
        load(content, where);
      } catch (e) {
        if (!(e instanceof ConfigError)) throw e;
        error.textContent = e.message;
        box.dataset.errorKey = e.key || "";
        if (current) info.textContent = `That config was not read, so the model is still ${current.name}: ${summary(current)}`;
      }
    };
    file.addEventListener("change", () => {
      const f = file.files && file.files[0];
      if (!f) return;
      if (f.size > R.limits.max_bytes) {
        error.textContent = fill(R.messages.too_large, {where: f.name, mib: R.limits.max_bytes / 2 ** 20});
        return;
      }
      f.text().then((content) => take(content, f.name));
    });
    readBtn.addEventListener("click", () => take(text.value, "the pasted config"));
    forget.addEventListener("click", () => { error.textContent = ""; clear(); });
    setBtn.addEventListener("click", () => setSliders(key, info));
    let opened = false;
    const entry = {show: show, error: error, info: info, key: key, box: box};
    panels.push(entry);
    show();
    return entry;
  }

  const offers = (key) => !!(current && D.offered[key] && control(GEN.figures[key], D.offered[key]).options.indexOf(optionOf(current)) >= 0);

  /* The sliders of figure `key` moved to the current model's nearest stops, saying so. */
  function setSliders(key, info) {
    const live = window.rooflineLive && window.rooflineLive[key];
    if (!current || !live) return null;
    const {values, notes} = sliderValues(key, live.spec, current);
    live.set(values);
    info.textContent = `Set from ${current.name}, to the nearest stops: ` + notes.map(([label, stop, x, end]) =>
      `${label} ${stop} (the model's ${count(x)}` +
      (end ? `, ${end === "low" ? "below" : "above"} the slider's range: the stop is its ${end === "low" ? "lowest" : "highest"})` : ")")
    ).join("; ") + ".";
    return values;
  }

  /* The figures on this page drawn again, keeping their settings, with the model control at `value` if given. */
  function remount(value) {
    const LIVE = window.rooflineLive;
    if (!LIVE || !LIVE.mount) return;
    document.querySelectorAll("div.roofline-live[data-figure]").forEach((root) => {
      const key = root.dataset.figure;
      if (!D.offered[key] || !LIVE[key]) return;
      const state = Object.assign({}, LIVE[key].state);
      const c = control(GEN.figures[key], D.offered[key]);
      if (value !== undefined) state[c.name] = value;
      if (c.options.indexOf(state[c.name]) < 0) state[c.name] = c.value;
      LIVE.mount(root);
      window.rooflineLive[key].set(state);
    });
  }

  /* Read `text`, make it the reader's model, chosen, in every figure on the page and the next ones. */
  function load(text, where, name) {
    const got = readConfig(text, where, name);
    current = got.model;
    chosen = true;
    save(current, true);
    setAddress(current);
    applyToSpecs();
    remount(optionOf(current));
    panels.forEach((p) => p.show());
    return got;
  }

  function clear() {
    const was = current;
    current = null;
    chosen = false;
    save(null);
    setAddress(null);
    if (was) {
      applyToSpecs();  // withdrawn from every figure
      remount(undefined);
    }
    panels.forEach((p) => p.show());
  }

  /* The reader picks a model in a figure: whether it is theirs is the choice the next chapter starts with. */
  document.addEventListener("change", (e) => {
    const t = e.target;
    if (!current || !t || t.tagName !== "SELECT" || !t.closest("div.roofline-live")) return;
    const key = t.closest("div.roofline-live").dataset.figure;
    if (!D.offered[key] || t.name !== D.offered[key]) return;
    chosen = t.value === optionOf(current);
    save(current, chosen);
    setAddress(chosen ? current : null);
    for (const k in GEN.figures) {
      const c = D.offered[k] && control(GEN.figures[k], D.offered[k]);
      if (c && c.options.indexOf(optionOf(current)) >= 0) c.value = chosen ? optionOf(current) : c._start || c.value;
    }
  });

  function mountLoaders() {
    document.querySelectorAll("div.roofline-live[data-figure]").forEach((root) => {
      const key = root.dataset.figure;
      if (D.offered[key] || R.sliders[key]) loader(root, key);
    });
    document.querySelectorAll("div.roofline-model-reader").forEach((root) => loader(root, null));
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", mountLoaders);
  else mountLoaders();

  window.rooflineModel = {
    read: (text, where, name) => readConfig(text, where, name), load: load, clear: clear,
    current: () => current, chosen: () => chosen, option: () => (current ? optionOf(current) : null),
    modelValues: modelValues, kvBytes: kvBytes, attnFlops: attnFlops, defaultChips: defaultChips,
    prefillAttn: prefillAttn, latentFlops: latentFlops,
    sliderValues: (key, m) => sliderValues(key, GEN.figures[key], m || current), encode: encode, decode: decode,
    setSliders: (key) => setSliders(key, panels.find((p) => p.key === key).info), ConfigError: ConfigError,
  };
})();
