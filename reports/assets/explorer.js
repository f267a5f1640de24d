// The price explorer: filter, sort and download the offers embedded in the page (no server).
"use strict";
(function () {
  const data = JSON.parse(document.getElementById("data").textContent);
  const cols = data.columns;
  const at = Object.fromEntries(cols.map((c, i) => [c, i]));
  const offers = data.offers;
  const throughput = {};  // "model|workload" -> chip -> figure
  for (const t of data.throughput) {
    (throughput[t.model + "|" + t.workload] ??= {})[t.chip] = t;
  }
  const $ = (id) => document.getElementById(id);
  const state = { key: "price_per_chip_hour", dir: 1, rows: [] };
  // The table's columns: [key, label, numeric, decimals, most decimals]; "cost" is computed
  // per row.
  // The prices come right after what they are for, so that a laptop's width shows them
  // without scrolling sideways; where the offer is follows.
  // Your currency (chipcost site --currency); your discount, where a discounts file applied.
  const money = data.currency || "USD";
  const shown = [
    ["chip", "Chip"], ["memory_gb", "GB / chip", true, 0], ["pricing", "Pricing"],
    ["price_per_chip_hour", money + " / chip-hour", true, 4],
    ["cost", money + " / M tokens", true, 4], ["provider", "Provider"],
    ["region", "Region"], ["zone", "Zone"], ["instance_type", "Instance"],
    ["chip_count", "Chips", true, 0, 3], ["price_per_hour", money + " / instance-hour", true, 4],
    ["interruption", "Spot interrupted (AWS)"], ["source", "Source"],
  ];
  if ("discount" in at) shown.splice(4, 0, ["discount", "Your discount"]);

  function fill(select, values, label) {
    for (const v of values) {
      const option = document.createElement("option");
      option.value = v;
      option.textContent = label ? label(v) : v;
      select.appendChild(option);
    }
  }
  const distinct = (c) => [...new Set(offers.map((r) => r[at[c]]))].sort();
  fill($("chip"), distinct("chip"));
  fill($("provider"), distinct("provider"));
  fill($("region"), distinct("region"));
  fill($("model"), distinct("pricing_model"), (v) => data.model_labels[v] || v);
  fill($("tokens"), Object.keys(throughput).sort(), (v) => v.replace("|", ", "));

  const figureOf = (row) => (throughput[$("tokens").value] || {})[row[at.chip]];
  function costOf(row) {
    const figure = figureOf(row);
    if (!figure) return null;
    return row[at.price_per_chip_hour] / (figure.tokens_per_second_per_chip * 3600 / 1e6);
  }
  // Whether the offer's instance holds the chosen model: null when unknown (no figure, or
  // the model's size or the chip's memory unknown). The memory needed comes with the figure.
  function fitOf(row) {
    const figure = figureOf(row);
    const needed = figure && figure.memory_needed_gb;
    const memory = row[at.memory_gb], chips = row[at.chip_count];
    if (needed == null || memory == null || !chips) return null;
    const has = memory * chips;
    return { fits: needed <= has, needed, has, instances: Math.ceil(needed / has) };
  }
  const cannot = (row) => fitOf(row)?.fits === false;
  const value = (row, key) => (key === "cost" ? costOf(row) : row[at[key]]);
  // What one chip slot of the offer gives: a fraction of a GPU gives that share of its memory.
  const memoryPerChip = (row) => (row[at.memory_gb] ?? 0) * Math.min(row[at.chip_count], 1);

  function matches(row) {
    const want = (id, c) => !$(id).value || row[at[c]] === $(id).value;
    const memory = parseFloat($("memory").value);
    const price = parseFloat($("price").value);
    const text = $("search").value.trim().toLowerCase();
    return want("chip", "chip") && want("provider", "provider") && want("region", "region") &&
      want("model", "pricing_model") &&
      (isNaN(memory) || memoryPerChip(row) >= memory) &&
      (isNaN(price) || row[at.price_per_chip_hour] <= price) &&
      (!text || row.join(" ").toLowerCase().includes(text));
  }

  function compare(a, b) {
    // Costs of offers that cannot hold the model come after the others, either way.
    if (state.key === "cost" && cannot(a) !== cannot(b)) return cannot(a) ? 1 : -1;
    const x = value(a, state.key), y = value(b, state.key);
    if (x === y) return 0;
    if (x === null || x === undefined || x === "") return 1;  // blanks last either way
    if (y === null || y === undefined || y === "") return -1;
    return (x < y ? -1 : 1) * state.dir;
  }

  function cell(row, column) {
    const [key, , numeric, fixed, most] = column;
    const td = document.createElement("td");
    const v = value(row, key);
    // A cost below a cent keeps 3 significant digits, as chipcost's other outputs
    // (chipcost.transform.cost.cost_decimals): $0.000712, not a $0.0007 tied with others.
    const decimals = key === "cost" && v > 0 && v < 0.01 ?
      Math.max(fixed, 2 - Math.floor(Math.log10(v))) : fixed;
    td.textContent = v === null || v === undefined ? "" :
      numeric ? v.toLocaleString("en-US", { minimumFractionDigits: decimals,
        maximumFractionDigits: most ?? decimals }) : v;
    if (numeric) td.className = "num";
    if (key === "pricing") td.className = "wrap";
    if (key === "price_per_chip_hour" && row[at.estimate]) {
      // No public page gives this price: marked, and what it rests on said on hover.
      const mark = document.createElement("span");
      mark.className = "estimate";
      mark.textContent = " (estimate)";
      td.appendChild(mark);
      td.title = "An estimate, not a quoted price: " + row[at.estimate];
    }
    if (key === "cost" && v !== null) {
      const figure = figureOf(row);
      td.title = `${Math.round(figure.tokens_per_second_per_chip)} tokens/s per chip, ` +
        `${figure.kind}: ${figure.source}`;
      const fit = fitOf(row);
      if (fit && !fit.fits) {
        const needs = document.createElement("span");
        needs.className = "needs";
        needs.textContent = ` (needs ${fit.instances})`;
        td.appendChild(needs);
        td.classList.add("nofit");
        td.title = `The model needs ${Math.round(fit.needed)} GB; this instance has ` +
          `${Math.round(fit.has)} GB: ${fit.instances} of them would hold it. ` + td.title;
      }
    }
    return td;
  }

  function render() {
    state.rows = offers.filter(matches).sort(compare);
    const body = document.createElement("tbody");
    for (const row of state.rows) {
      const tr = document.createElement("tr");
      for (const column of shown) tr.appendChild(cell(row, column));
      body.appendChild(tr);
    }
    $("offers").replaceChild(body, $("offers").tBodies[0]);
    $("count").textContent = `${state.rows.length} of ${offers.length} offers`;
    for (const th of $("offers").tHead.rows[0].cells) {
      const sorted = th.dataset.key === state.key;
      th.setAttribute("aria-sort", sorted ? (state.dir > 0 ? "ascending" : "descending") : "none");
    }
    for (const figure of document.querySelectorAll("figure[data-chip]")) {
      figure.hidden = Boolean($("chip").value) && figure.dataset.chip !== $("chip").value;
    }
  }

  const head = $("offers").tHead.rows[0];
  for (const column of shown) {
    const th = document.createElement("th");
    th.textContent = column[1];
    th.dataset.key = column[0];
    th.tabIndex = 0;
    const sort = () => {
      state.dir = state.key === column[0] ? -state.dir : 1;
      state.key = column[0];
      render();
    };
    th.addEventListener("click", sort);
    th.addEventListener("keydown", (e) => { if (e.key === "Enter") sort(); });
    head.appendChild(th);
  }

  // Text starting like a formula (after any spaces) is text to a spreadsheet, not something
  // to run; numbers are left as they are.
  const safe = (v) => {
    const s = v === null || v === undefined ? "" : String(v);
    const t = typeof v === "string" && /^(\s*[=+\-@]|[\t\r])/.test(s) ? "'" + s : s;
    return /[",\n]/.test(t) ? '"' + t.replace(/"/g, '""') + '"' : t;
  };
  $("download").addEventListener("click", () => {
    const keys = [...cols, "usd_per_million_tokens", "holds_model"];
    const lines = [keys.join(",")];
    for (const row of state.rows) {
      const fit = fitOf(row);
      lines.push([...row, costOf(row), fit ? fit.fits : null].map(safe).join(","));
    }
    const blob = new Blob([lines.join("\n") + "\n"], { type: "text/csv" });
    const link = document.createElement("a");
    link.href = URL.createObjectURL(blob);
    link.download = "chipcost-offers.csv";
    document.body.appendChild(link);
    link.click();
    link.remove();
  });
  $("filters").addEventListener("input", render);
  // Reset clears the filters; the model for cost per token goes back to the default, not
  // to the first in the list.
  const chooseDefaultModel = () => {
    $("tokens").value = data.default_tokens || $("tokens").value;
  };
  $("filters").addEventListener("reset", () => setTimeout(() => {
    chooseDefaultModel();
    render();
  }));
  chooseDefaultModel();
  render();
})();
