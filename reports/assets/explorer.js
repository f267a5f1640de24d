// The price explorer: filter, sort and download the offers of offers.js (no server). The view
// (filters, order, columns) lives in the address's #fragment, so a view can be shared.
"use strict";
(function () {
  const $ = (id) => document.getElementById(id);
  const data = window.chipcostData;
  // Beside a price of the GPU alone, as `chipcost index` marks a level: the page carries it
  // (reports/explorer_page.py, from chipcost.core.vocabulary.ALONE_MARK).
  const ALONE_MARK = $("offers").dataset.aloneMark;
  if (!data) {
    $("count").textContent = "offers.js did not load: keep it beside index.html.";
    return;
  }
  // offers.json's columns: a text column is spelled once per distinct value, each row an index
  // (or, for a text cut into phrases, a list of them).
  const word = (c, i) => (Array.isArray(i) ? i.map((j) => c.dictionary[j]).join(c.separator) :
    c.dictionary[i]);
  const decode = (c) => Array.isArray(c) ? c : c.codes.map((i) => (i === null ? null : word(c, i)));
  const table = (t) => Object.fromEntries(Object.entries(t).map(([k, c]) => [k, decode(c)]));
  const col = table(data.offers);
  const cols = data.columns;
  const n = data.count;
  const throughput = {};  // "model|workload" -> chip -> figure
  const tp = table(data.throughput);
  (tp.chip || []).forEach((chip, i) => {
    const figure = Object.fromEntries(Object.keys(tp).map((k) => [k, tp[k][i]]));
    (throughput[figure.model + "|" + figure.workload] ??= {})[chip] = figure;
  });
  // The prices' own currency, and the others the page converts them to: each at the newest ECB
  // rate the warehouse held when the page was made (units per US dollar, and its day).
  const base = data.currency || "USD";
  const rates = data.rates || { [base]: { per_usd: null, day: null } };
  const perHours = data.per_hours || { hour: 1 };

  // The table's columns, in order; `show`: in view until the column picker says otherwise.
  // A column of offers.json not named here joins the picker under its own name, hidden.
  // `money`: a price, shown in the chosen currency (from `from`, else the prices' own), and
  // for "hour" per the chosen unit too ({money} and {per} in its label say which).
  const COLUMNS = [
    { key: "chip", label: "Chip", show: true, help: "The accelerator (chips per instance below)." },
    { key: "offer_label", label: "Pricing", show: true, wrap: true,
      help: "How the price is paid: on demand, reserved, savings plan, commitment, capacity " +
        "block, spot or flex-start, with its term and upfront payment (legend below)." },
    { key: "price_per_chip_hour", label: "{money} / chip-{per}", num: 4, money: "hour", show: true,
      help: "The instance's price an hour divided by its chips; commitments spread their " +
        "upfront fee over the term." },
    { key: "cost", label: "{money} / M tokens", num: 4, money: "token", show: true,
      help: "Per million tokens of the model chosen in 'Cost per token for': per chip-hour ÷ " +
        "(tokens/s per chip × 3600) × 10⁶. Grey with (needs N): the instance cannot hold the " +
        "model; N of them would." },
    { key: "provider", label: "Provider", show: true,
      help: "The cloud or marketplace that sells the instance." },
    { key: "region", label: "Region", show: true, wrap: true,
      help: "Where the instance runs, in the provider's own name for it." },
    { key: "instance_type", label: "Instance", show: true, wrap: true,
      help: "The instance type (or machine, plan) as the provider names it." },
    { key: "chip_count", label: "Chip count", num: 0, most: 3, show: true,
      help: "Chips per instance; a fraction is a slice of one GPU." },
    { key: "price_per_hour", label: "{money} / instance-{per}", num: 4, money: "hour", show: true,
      help: "The price of the whole instance an hour (or month, as chosen)." },
    { key: "upfront", label: "{money} upfront", num: 2, money: "once", show: true,
      help: "The whole instance's fee paid upfront for its term (all or partial upfront); " +
        "the prices per hour already spread it over the term." },
    { key: "memory_gb", label: "GB / chip", num: 0, help: "Memory per chip (chip catalog)." },
    { key: "zone", label: "Zone", help: "Spot is priced per zone." },
    { key: "interruption", label: "Spot interruption (AWS)",
      help: "AWS Spot Instance Advisor's frequency of interruption over the last month." },
    { key: "source", label: "Source", help: "The chipcost source that read this price." },
    { key: "last_seen_at", label: "Last seen", help: "When a collection last saw this price." },
    { key: "discount", label: "Your discount", show: true,
      help: "Your discount off the list price, from your discounts file." },
    { key: "list_price_per_chip_hour_usd", label: "List {money} / chip-{per}", num: 4,
      money: "hour", from: "USD" },
    { key: "vcpus", label: "vCPUs", num: 0,
      help: "vCPUs of the whole instance, as its source publishes them (empty: not published)." },
    { key: "ram_gb", label: "RAM GB", num: 0,
      help: "Host memory of the whole instance, GB as its source writes them (not chip memory)." },
    { key: "disk_gb", label: "Disk GB", num: 0,
      help: "Local disk of the whole instance, GB as its source writes them (0: network storage only)." },
    { key: "stated_currency", label: "Stated currency",
      help: "The currency the provider states the price in; a price stated in another than the " +
        "page's was converted at the ECB rate of the day it was last seen." },
  ].filter((c) => c.key === "cost" || c.key in col);
  const declared = new Set(COLUMNS.map((c) => c.key));
  // Said in other cells, the page's banner, and the Download CSV's marks.
  const SKIP = new Set(
    ["pricing_model", "estimate", "sample", "currency", "spot_doubt", "gpu_alone"]);
  for (const key of cols) {
    if (!declared.has(key) && !SKIP.has(key)) {
      const numeric = typeof col[key].find((v) => v != null) === "number";
      COLUMNS.push({ key, label: key, num: numeric ? 0 : undefined, most: 2,
        help: `offers.json's column ${key}.` });
    }
  }
  const byKey = Object.fromEntries(COLUMNS.map((c) => [c.key, c]));
  const SHOWN = COLUMNS.filter((c) => c.show).map((c) => c.key);

  // The view: what a visitor comes for first, the cheapest on demand per token of the
  // default model (per chip-hour where no throughput figure is held for it).
  const tokensDefault = data.default_model in throughput ? data.default_model :
    Object.keys(throughput).sort()[0] || "";
  // In the address: pricing_model= a pricing model's code, model= the model and workload
  // ("llama-3-70b|inference") costs per token are for, as `chipcost cost --model` names it.
  // view=chip: each chip's cheapest offer of the pricing model chosen (any: of every model),
  // the rows offers.js names under `cheapest` (chipcost's rule of `prices --by chip`: no slice
  // of a GPU, no government, China or sovereign region); view=offer: every offer.
  const cheapest = Object.fromEntries(Object.entries(data.cheapest || {})
    .map(([model, rows]) => [model, new Set(rows)]));
  const DEFAULTS = { view: data.cheapest ? "chip" : "offer", chip: "", provider: "", region: "",
    pricing_model: "on_demand", memory: "",
    price: "", search: "", model: tokensDefault, per: "hour", currency: base,
    sort: tokensDefault ? "cost" : "price_per_chip_hour", dir: "asc", cols: SHOWN.join(",") };
  const FIELDS = ["view", "chip", "provider", "region", "pricing_model", "memory", "price",
    "search", "model", "per", "currency"];
  const state = { ...DEFAULTS, rows: [], limit: 0 };
  // "Every offer" (Show: every offer, or the link at the top) shows every offer: a pricing
  // model still on the on demand the page opened on goes to all; one chosen by hand stays.
  const everyOffer = (s) => ({ ...s, view: "offer",
    pricing_model: s.pricing_model === DEFAULTS.pricing_model ? "" : s.pricing_model });
  function showEveryOffer() {
    Object.assign(state, everyOffer(state));
    for (const key of ["view", "pricing_model"]) $(key).value = state[key];
  }
  const PAGE = 100;  // rows drawn at once: drawing thousands is what made the page slow
  const counted = (k) => k.toLocaleString("en-US");  // 2,707, as the page's first line

  function fill(select, values, label) {
    for (const v of values) {
      const option = document.createElement("option");
      option.value = v;
      option.textContent = label ? label(v) : v;
      select.appendChild(option);
    }
  }
  const distinct = (c) => (data.offers[c].dictionary || [...new Set(col[c])]).slice().sort();
  fill($("chip"), distinct("chip"));
  fill($("provider"), distinct("provider"));
  fill($("region"), distinct("region"));
  fill($("pricing_model"), distinct("pricing_model"), (v) => data.model_labels[v] || v);
  fill($("model"), Object.keys(throughput).sort(), (v) => v.replace("|", ", "));
  fill($("per"), Object.keys(perHours), (v) => perHours[v] === 1 ? v :
    `${v} (${perHours[v].toLocaleString("en-US")} h)`);
  fill($("currency"), Object.keys(rates).sort());

  // A price column's factor: the chosen unit's hours, the chosen currency's rate.
  const rateOf = (from) => from === state.currency ? 1 :
    rates[state.currency].per_usd / rates[from].per_usd;
  const scaleOf = (column) => !column.money ? 1 : rateOf(column.from || base) *
    (column.money === "hour" ? perHours[state.per] : 1);
  const labelOf = (column) => column.label.replace("{money}", state.currency)
    .replace("{per}", state.per);

  const figureOf = (i) => (throughput[state.model] || {})[col.chip[i]];
  // A throughput figure neither measured nor published: a cost per token resting on one is
  // marked with its kind, in the table and the Download CSV.
  const ESTIMATED = new Set(["derived", "estimate"]);
  const estimatedKind = (i) => {
    const kind = figureOf(i)?.kind;
    return ESTIMATED.has(kind) ? kind : "";
  };
  // A derived figure's range: the tokens/s its derivation's error, measured out of sample,
  // allows (as cost and compare say it); '' for any other figure or an error not known.
  const whole = (v) => Math.round(v).toLocaleString("en-US");
  const rangeOf = (figure) => figure.range_low == null ? "" :
    `Range ${whole(figure.range_low)}-${whole(figure.range_high)} tokens/s per chip (its ` +
    "derivation's error measured out of sample). ";
  function costOf(i) {
    const figure = figureOf(i);
    if (!figure) return null;
    return col.price_per_chip_hour[i] / (figure.tokens_per_second_per_chip * 3600 / 1e6);
  }
  // Whether the offer's instance holds the chosen model: null when unknown (no figure, or
  // the model's size or the chip's memory unknown). The memory needed comes with the figure.
  function fitOf(i) {
    const figure = figureOf(i);
    const needed = figure && figure.memory_needed_gb;
    const memory = col.memory_gb[i], chips = col.chip_count[i];
    if (needed == null || memory == null || !chips) return null;
    const has = memory * chips;
    return { fits: needed <= has, needed, has, instances: Math.ceil(needed / has) };
  }
  const cannot = (i) => fitOf(i)?.fits === false;
  const value = (i, key) => (key === "cost" ? costOf(i) : col[key][i]);
  // What one chip slot of the offer gives: a fraction of a GPU gives that share of its memory.
  const memoryPerChip = (i) => (col.memory_gb[i] ?? 0) * Math.min(col.chip_count[i], 1);
  let haystack = null;  // each offer's text, for the search: made on the first search
  const textOf = (i) => (haystack ??= Array.from({ length: n },
    (_, r) => cols.map((c) => col[c][r] ?? "").join(" ").toLowerCase()))[i];

  // Whether offer i is a row of view `s` (the view shown unless said).
  function matches(i, s = state) {
    const want = (key, c) => !s[key] || col[c][i] === s[key];
    const memory = parseFloat(s.memory), price = parseFloat(s.price);
    const text = s.search.trim().toLowerCase();
    const inView = s.view !== "chip" || cheapest[s.pricing_model]?.has(i);
    return inView && want("chip", "chip") && want("provider", "provider") &&
      want("region", "region") &&
      want("pricing_model", "pricing_model") &&
      (isNaN(memory) || memoryPerChip(i) >= memory) &&
      (isNaN(price) || col.price_per_chip_hour[i] * scaleOf(byKey.price_per_chip_hour) <= price) &&
      (!text || textOf(i).includes(text));
  }
  const blank = (v) => v === null || v === undefined || v === "";
  function order(key, dir, a, b) {
    const x = value(a, key), y = value(b, key);
    if (x === y) return 0;
    if (blank(x)) return 1;  // blanks last either way
    if (blank(y)) return -1;
    return (x < y ? -1 : 1) * dir;
  }
  function compare(a, b) {
    // Costs of offers that cannot hold the model come after the others, either way.
    if (state.sort === "cost" && cannot(a) !== cannot(b)) return cannot(a) ? 1 : -1;
    const dir = state.dir === "desc" ? -1 : 1;
    return order(state.sort, dir, a, b) || order("price_per_chip_hour", 1, a, b);
  }

  // One rounding rule with the command line's (Python's format): the number's exact stored
  // value to the nearest, a tie to the even digit. 5.37275 is stored as 5.3727499999...:
  // 5.3727, as `chipcost prices` prints it (Intl.NumberFormat rounds the shortest decimal,
  // 5.37275, up to 5.3728).
  function fixed(v, digits) {
    const size = Math.abs(v);
    let text = size.toFixed(digits);  // the exact value to the nearest, a tie away from zero
    const exact = size.toFixed(100);  // the whole expansion, where a tie can be
    const rest = exact.slice(exact.indexOf(".") + 1 + digits);
    if (/^50*$/.test(rest) && /[13579]$/.test(text)) {  // a tie taken to an odd digit
      const units = String(BigInt(text.replace(".", "")) - 1n).padStart(digits + 1, "0");
      text = digits ? `${units.slice(0, -digits)}.${units.slice(-digits)}` : units;
    }
    return (v < 0 && /[1-9]/.test(text) ? "-" : "") + text;
  }
  function format(v, fewest, most) {
    const [whole, part = ""] = fixed(v, most).split(".");
    let kept = part;
    while (kept.length > fewest && kept.endsWith("0")) kept = kept.slice(0, -1);
    const grouped = whole.replace(/\B(?=(\d{3})+(?!\d))/g, ",");
    return kept ? `${grouped}.${kept}` : grouped;
  }
  function mark(td, text, className, title) {
    const span = document.createElement("span");
    span.className = className;
    span.textContent = text;
    td.appendChild(span);
    td.title = title + (td.title ? " " + td.title : "");
  }
  // What a cell shows: a price in the chosen currency and unit, anything else as it is.
  const shown = (i, column) => {
    const v = value(i, column.key);
    return blank(v) || !column.money ? v : v * scaleOf(column);
  };
  // Per hour, four decimals show a small move; a month's or a year's price needs two.
  const decimalsOf = (column) => column.money === "hour" && state.per !== "hour" ? 2 : column.num;
  function cell(i, column, label) {
    const { key, most } = column;
    const num = decimalsOf(column);
    const td = document.createElement("td");
    td.dataset.label = label;  // a phone's card layout names each value
    const v = shown(i, column);
    // A cost below a cent keeps 3 significant digits, as chipcost's other outputs
    // (chipcost.transform.cost.cost_decimals): $0.000712, not a $0.0007 tied with others.
    const decimals = key === "cost" && v > 0 && v < 0.01 ?
      Math.max(num, 2 - Math.floor(Math.log10(v))) : num;
    td.textContent = blank(v) ? "" : num !== undefined ? format(v, decimals, most ?? decimals) : v;
    if (num !== undefined) td.className = "num";
    else if (column.wrap) td.className = "wrap";
    if (key === "offer_label" && col.interruption?.[i]) {
      mark(td, ` interruption ${col.interruption[i]}`, "bucket", "AWS Spot Instance Advisor: " +
        `AWS took back spot capacity of this type here ${col.interruption[i]} of the time ` +
        "over the last month.");
    }
    if (key === "offer_label" && col.spot_doubt?.[i]) {
      mark(td, " (!)", "doubt", "A spot price not below its offer's on-demand price (no " +
        "discount: stale or mislabelled at the source): " + col.spot_doubt[i]);
    }
    if (key === "offer_label" && col.gpu_alone?.[i]) {
      mark(td, ALONE_MARK, "alone", "The price is the GPU's alone: the host's vCPUs, " +
        "memory and disk are billed beside it, so an instance costs more than shown.");
    }
    if (key === "price_per_chip_hour" && col.estimate?.[i]) {
      mark(td, " (estimate)", "estimate", "An estimate, not a quoted price: " + col.estimate[i]);
    }
    if (key === "cost" && v !== null) {
      const figure = figureOf(i);
      td.title = `${Math.round(figure.tokens_per_second_per_chip)} tokens/s per chip, ` +
        `${figure.kind}: ${figure.source}. ${rangeOf(figure)}The chip's own figure: chipcost ` +
        "cost and compare cost a chip set against another at the figure matched with the " +
        "other's (same submitter, scale and software), which can differ.";
      const kind = estimatedKind(i);
      if (kind) {
        mark(td, ` (${kind})`, "estimate", kind === "derived" ?
          "Not a measured or published throughput: chipcost derived it from other figures." :
          "Not a measured or published throughput: its author's estimate.");
      }
      const fit = fitOf(i);
      if (fit && !fit.fits) {
        mark(td, ` (needs ${fit.instances})`, "needs", `The model needs ` +
          `${Math.round(fit.needed)} GB; this instance has ${Math.round(fit.has)} GB: ` +
          `${fit.instances} of them would hold it.`);
        td.classList.add("nofit");
      }
    }
    return td;
  }

  const visible = () => COLUMNS.filter((c) => state.cols.split(",").includes(c.key));
  function drawHead() {
    const head = $("offers").tHead.rows[0];
    head.replaceChildren();
    for (const column of visible()) {
      const th = document.createElement("th");
      // "USD / chip-hour" breaks after the "/" if at all, never inside "chip-hour".
      const [money, unit] = labelOf(column).split(" / ");
      if (unit) {
        const span = document.createElement("span");
        span.className = "unit";
        span.textContent = unit;
        th.append(money + " / ", span);
      } else th.textContent = labelOf(column);
      th.dataset.key = column.key;
      th.title = column.help;
      th.tabIndex = 0;
      const sort = () => {
        state.dir = state.sort === column.key && state.dir === "asc" ? "desc" : "asc";
        state.sort = column.key;
        render();
      };
      th.addEventListener("click", sort);
      th.addEventListener("keydown", (e) => { if (e.key === "Enter") sort(); });
      head.appendChild(th);
    }
  }

  function drawRows() {
    const body = document.createElement("tbody");
    const columns = visible();
    const labels = columns.map(labelOf);
    for (const i of state.rows.slice(0, state.limit)) {
      const tr = document.createElement("tr");
      columns.forEach((column, c) => tr.appendChild(cell(i, column, labels[c])));
      body.appendChild(tr);
    }
    $("offers").replaceChild(body, $("offers").tBodies[0]);
    const left = Math.max(state.rows.length - state.limit, 0);
    $("more").hidden = !left;
    $("more").textContent = left ? `Show ${Math.min(left, PAGE)} more of ${counted(left)}` : "";
  }

  // How many rows, and in the first view what they are and where every offer is.
  function countWords() {
    if (state.view !== "chip") return `${counted(state.rows.length)} of ${counted(n)} offers`;
    const model = state.pricing_model ? (data.model_labels[state.pricing_model] ||
      state.pricing_model) + " " : "";
    const every = Array.from({ length: n }, (_, i) => i)
      .filter((i) => matches(i, everyOffer(state))).length;
    return `${state.rows.length} chips, each its cheapest ${model}offer anywhere (the rule of ` +
      "chipcost prices --by chip: no slice of a GPU, no government, China or sovereign " +
      `region). Show "every offer" for ${every === n ? `all ${counted(n)} offers` :
        `the ${counted(every)} offer${every === 1 ? "" : "s"} these filters keep (of ` +
        `${counted(n)})`}.`;
  }

  function describe() {
    const column = byKey[state.sort];
    const [model, workload] = state.model.split("|");
    const by = state.sort === "cost" ? `per million tokens of ${model} ${workload}` :
      (column ? labelOf(column) : state.sort);
    const first = state.dir === "asc" ? "lowest" : "highest";
    return `Ordered by ${by}, ${first} first. Click a heading to sort by it.`;
  }

  // The currency said once above the table; a converted one with its rate and the rate's day.
  function moneyWords() {
    if (state.currency === base) return `Prices in ${base}.`;
    const rate = rateOf(base);
    return `Prices in ${state.currency}, converted from ${base} at ` +
      `${format(rate, 4, 4)} ${state.currency} per ${base === "USD" ? "US dollar" : base}: ` +
      `the ECB reference rate of ${rates[state.currency].day}, the newest the warehouse held ` +
      "when this page was made.";
  }

  function render() {
    state.rows = Array.from({ length: n }, (_, i) => i).filter((i) => matches(i)).sort(compare);
    state.limit = PAGE;
    drawHead();
    drawRows();
    $("count").textContent = countWords();
    $("order").textContent = describe();
    for (const th of $("offers").tHead.rows[0].cells) {
      const sorted = th.dataset.key === state.sort;
      th.setAttribute("aria-sort", sorted ? (state.dir === "asc" ? "ascending" : "descending") : "none");
    }
    for (const figure of document.querySelectorAll("figure[data-chip]")) {
      figure.hidden = Boolean(state.chip) && figure.dataset.chip !== state.chip;
    }
    for (const box of $("columns").querySelectorAll("input")) {
      box.checked = state.cols.split(",").includes(box.value);
      box.nextSibling.textContent = " " + labelOf(byKey[box.value]);
    }
    $("price-label").textContent = labelOf(byKey.price_per_chip_hour);
    $("money").textContent = moneyWords();
    save();
  }

  // The view in the address: only what differs from the defaults, so a plain address opens
  // on the defaults and a shared one on what its sender saw.
  function save() {
    const params = new URLSearchParams();
    for (const key of Object.keys(DEFAULTS)) {
      if (state[key] !== DEFAULTS[key]) params.set(key, state[key]);
    }
    // Commas (between columns) and "|" (model|workload) read better as themselves.
    const hash = params.toString().replace(/%2C/g, ",").replace(/%7C/g, "|");
    if (hash !== location.hash.slice(1)) {
      history.replaceState(null, "", hash ? "#" + hash : location.pathname + location.search);
    }
  }
  function restore() {
    const params = new URLSearchParams(location.hash.slice(1));
    // Addresses of the last release, read for this one: model= a pricing model (its values
    // never hold the "|" of a model and workload), tokens= the model, the column "pricing".
    const old = params.get("model");
    if (old !== null && !old.includes("|") && !params.has("pricing_model")) {
      params.set("pricing_model", old);
      params.delete("model");
    }
    if (params.has("tokens") && !params.has("model")) params.set("model", params.get("tokens"));
    params.delete("tokens");
    for (const key of ["cols", "sort"]) {
      if (params.has(key)) params.set(key, params.get(key).replace(/\bpricing\b/, "offer_label"));
    }
    for (const key of Object.keys(DEFAULTS)) state[key] = params.get(key) ?? DEFAULTS[key];
    if (!byKey[state.sort]) state.sort = DEFAULTS.sort;
    if (!state.cols.split(",").some((k) => byKey[k])) state.cols = DEFAULTS.cols;
    for (const key of FIELDS) {
      $(key).value = state[key];
      if ($(key).value !== state[key]) {  // not an option here (a chip no longer sold)
        state[key] = DEFAULTS[key];
        $(key).value = state[key];
      }
    }
  }

  for (const column of COLUMNS) {
    const label = document.createElement("label");
    const box = document.createElement("input");
    box.type = "checkbox";
    box.value = column.key;
    label.title = column.help;
    label.append(box, " " + labelOf(column));
    $("columns").appendChild(label);
  }
  $("columns").addEventListener("change", () => {
    const chosen = [...$("columns").querySelectorAll("input:checked")].map((b) => b.value);
    state.cols = COLUMNS.map((c) => c.key).filter((k) => chosen.includes(k)).join(",");
    render();
  });
  $("more").addEventListener("click", () => {
    state.limit += PAGE;
    drawRows();
  });

  // Text starting like a formula (after any spaces) is text to a spreadsheet, not something
  // to run; numbers are left as they are.
  const safe = (v) => {
    const s = v === null || v === undefined ? "" : String(v);
    const t = typeof v === "string" && /^(\s*[=+\-@]|[\t\r])/.test(s) ? "'" + s : s;
    return /[",\n]/.test(t) ? '"' + t.replace(/"/g, '""') + '"' : t;
  };
  // The CSV is the table: its columns as shown (headed as shown, in the chosen currency and
  // unit), every row of the view in its order, the prices as numbers; then the marks the
  // cells show as words, each a column of its own: what an estimated price rests on (empty
  // for a published one), whether the price is the bundled sample's, an AWS spot price's
  // interruption bucket (unless its column is in view), why a spot price is doubtful and
  // whether the price is the GPU's alone (its host billed beside it), and,
  // with the cost per token, the kind of an estimated throughput figure it rests on (derived
  // or estimate) and a derived figure's range.
  const plainNumber = (v) => (typeof v === "number" ? Number(v.toPrecision(10)) : v);
  function marks(columns) {
    const kept = [
      { label: "Price estimate", of: (i) => col.estimate?.[i] ?? "" },
      { label: "Sample data", of: (i) => Boolean(col.sample?.[i] ?? data.sample) },
    ];
    if (col.interruption && !columns.some((c) => c.key === "interruption")) {
      kept.push({ label: byKey.interruption.label, of: (i) => col.interruption[i] ?? "" });
    }
    kept.push({ label: "Spot doubt", of: (i) => col.spot_doubt?.[i] ?? "" });
    kept.push({ label: "GPU alone", of: (i) => Boolean(col.gpu_alone?.[i]) });
    if (columns.some((c) => c.key === "cost")) {
      kept.push({ label: "Cost estimate", of: estimatedKind });
      kept.push({ label: "Throughput range (tokens/s per chip)", of: (i) => {
        const figure = figureOf(i);
        return figure?.range_low == null ? "" :
          `${Math.round(figure.range_low)}-${Math.round(figure.range_high)}`;
      } });
    }
    return kept;
  }
  $("download").addEventListener("click", () => {
    const columns = visible();
    const marked = marks(columns);
    const lines = [[...columns.map(labelOf), ...marked.map((m) => m.label)].map(safe).join(",")];
    for (const i of state.rows) {
      lines.push([...columns.map((c) => safe(plainNumber(shown(i, c)))),
        ...marked.map((m) => safe(m.of(i)))].join(","));
    }
    const blob = new Blob([lines.join("\n") + "\n"], { type: "text/csv" });
    const link = document.createElement("a");
    link.href = URL.createObjectURL(blob);
    link.download = "chipcost-offers.csv";
    document.body.appendChild(link);
    link.click();
    link.remove();
  });
  $("filters").addEventListener("input", (event) => {
    for (const key of FIELDS) state[key] = $(key).value;
    if (event.target === $("view") && state.view === "offer") showEveryOffer();
    render();
  });
  // Reset goes back to the view the page opens on (on demand, the default model and order),
  // at once: the browser's own reset (each select to its first option) is not let run, so no
  // moment shows, or a script reads, the first model of the list instead of the default.
  $("filters").addEventListener("reset", (event) => {
    event.preventDefault();
    history.replaceState(null, "", location.pathname + location.search);
    restore();
    render();
  });
  window.addEventListener("hashchange", () => {
    restore();
    render();
  });
  // The link bar's "Every offer": the table of every offer, scrolled to.
  document.querySelector('nav.contents a[href^="#view=offer"]')?.addEventListener("click", (e) => {
    e.preventDefault();
    showEveryOffer();
    render();
    $("filters").scrollIntoView();
  });
  restore();
  render();
})();
