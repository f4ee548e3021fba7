// The status page (docs/contract.md, "/"): fetches the node's JSON endpoints and draws per-port
// charts with dygraphs (Debian's libjs-dygraphs). No build chain: this file is served as is.
"use strict";

const WINDOW_SECONDS = 300;
const REFRESH_MS = 5000;
// One chart per entry and port: which families, how each series is named, how values are scaled.
const CHARTS = [
  { title: "pause fraction per priority", families: ["fabricmon_pfc_pause_seconds_total"],
    name: (s) => "prio " + (s.labels.priority || "?") + (s.labels.direction ? " " + s.labels.direction : "") },
  { title: "ECN marks and CNPs per second",
    families: ["fabricmon_roce_ecn_marked_packets_total", "fabricmon_roce_cnp_sent_total",
               "fabricmon_roce_cnp_handled_total", "fabricmon_roce_cnp_ignored_total"],
    name: (s) => s.name.replace("fabricmon_roce_", "").replace("_total", "") },
  { title: "errors and loss per second",
    families: ["fabricmon_port_symbol_errors_total", "fabricmon_phy_symbol_errors_total",
               "fabricmon_phy_pcs_symbol_errors_total", "fabricmon_port_link_downed_total", "fabricmon_netdev_carrier_changes_total",
               "fabricmon_roce_out_of_sequence_total", "fabricmon_roce_local_ack_timeouts_total",
               "fabricmon_priority_discards_total"],
    name: (s) => s.name.replace("fabricmon_", "").replace("_total", "") +
                 (s.labels.priority ? " prio " + s.labels.priority : "") +
                 (s.labels.direction ? " " + s.labels.direction : "") },
  // The physical layer (docs/rules.md, link_ber): corrected bits per second over received bits per
  // second, sample by sample (both are one NIC read, so their points share their times).
  { title: "pre-FEC bit error rate", logscale: true,
    families: ["fabricmon_phy_corrected_bit_errors_total", "fabricmon_phy_received_bytes_total"],
    derive: preFecBer, name: (s) => s.name },
  // The module's received optical power per lane (transceiver collector); absent without modules.
  { title: "Rx power per lane (W)", logscale: true, optional: true,
    families: ["fabricmon_transceiver_rx_power_watts"],
    name: (s) => "lane " + (s.labels.lane || "?") },
];

// One "pre-FEC BER" series per interface from its corrected-bit and received-byte rate series.
function preFecBer(series) {
  const bits = new Map(), bytes = new Map();
  for (const s of series) {
    const m = s.name === "fabricmon_phy_corrected_bit_errors_total" ? bits : bytes;
    m.set(s.labels.interface, s);
  }
  const out = [];
  for (const [iface, b] of bits) {
    const r = bytes.get(iface);
    if (!r || !b.points || !r.points) continue;
    const rx = new Map(r.points.map(([t, v]) => [t, v]));
    const points = [];
    for (const [t, v] of b.points) {
      const bytesPerSecond = rx.get(t);
      if (bytesPerSecond > 0) points.push([t, v / (8 * bytesPerSecond)]);
    }
    out.push({ name: "pre-FEC BER", labels: b.labels, points });
  }
  return out;
}

function text(el, value) { el.textContent = value; return el; }
function cell(row, value, cls) { const td = row.insertCell(); text(td, value); if (cls) td.className = cls; return td; }
function where(labels) {
  let w = labels.interface || "";
  if (!w && labels.device) w = labels.device + " port " + labels.port;
  if (labels.priority) w += " priority " + labels.priority;
  return w;
}
function portOf(labels) {
  if (labels.interface) return labels.interface;
  if (labels.device) return labels.device + " port " + (labels.port || "1");
  return "node";
}
async function getJson(path) {
  const r = await fetch(path, { credentials: "same-origin", cache: "no-store" });
  if (!r.ok) throw new Error(path + ": HTTP " + r.status);
  return r.json();
}

function showStatus(st) {
  text(document.getElementById("host"), "on " + st.hostname);
  text(document.getElementById("build"), "version " + st.version + " (" + st.revision + "), up " +
       Math.round(st.uptime_seconds) + " s");
  const cfg = document.querySelector("#config tbody");
  cfg.replaceChildren();
  for (const [k, v] of Object.entries(st.config)) { const r = cfg.insertRow(); cell(r, k); cell(r, String(v)); }
  const col = document.querySelector("#collectors tbody");
  col.replaceChildren();
  for (const c of st.collectors) {
    const r = col.insertRow();
    cell(r, c.name); cell(r, c.up ? "yes" : "no", c.up ? "state-ok" : "state-problem");
    cell(r, c.last_success_age_seconds === null ? "never" : c.last_success_age_seconds.toFixed(1) + " s ago");
    cell(r, String(c.errors));
  }
  const v = document.getElementById("verdict");
  v.replaceChildren();
  const head = document.createElement("p");
  if (!st.verdict) {
    // The window is off (window.enabled: false): no verdict and no charts, and the page says why.
    text(head, st.window && !st.window.enabled ? "No verdict: " + st.window.note : "No verdict yet.");
    v.appendChild(head);
    return;
  }
  if (st.verdict.wrong) {
    const top = st.verdict.checks[0];
    head.className = "state-problem";
    text(head, top.title + (top.where ? " on " + top.where : "") + ": " + top.summary);
    v.dataset.cause = top.id;
  } else {
    head.className = "state-ok";
    text(head, "nothing wrong: no check is a problem");
    v.dataset.cause = "";
  }
  v.appendChild(head);
  const t = document.createElement("table");
  for (const c of st.verdict.checks) {
    const r = t.insertRow();
    cell(r, c.step + ". " + c.title); cell(r, c.state, "state-" + c.state.replace(" ", "-"));
    cell(r, (c.where ? c.where + ": " : "") + c.summary);
    cell(r, Object.entries(c.numbers).map(([k, x]) => k + " " + x).join(", "));
  }
  v.appendChild(t);
  showDriverRecords(st.driver_records || []);
}

// The last kernel log record of each driver message pattern per port (nic_driver_log); fatal and
// recoverable ones first, then the newest.
function showDriverRecords(records) {
  const rank = { fatal: 0, recoverable: 1, info: 2 };
  const body = document.querySelector("#driver-records tbody");
  body.replaceChildren();
  records.sort((a, b) => (rank[a.severity] - rank[b.severity]) || (a.age_seconds - b.age_seconds));
  for (const x of records) {
    const r = body.insertRow();
    r.className = "driver-record";
    cell(r, where(x)); cell(r, x.pci_address + " (" + x.driver + ")"); cell(r, x.pattern);
    cell(r, x.severity, x.severity === "fatal" ? "severity-critical" : x.severity === "recoverable" ? "severity-warning" : "");
    cell(r, String(x.count)); cell(r, Math.max(0, x.age_seconds).toFixed(0) + " s ago"); cell(r, x.text);
  }
  document.getElementById("no-driver-records").hidden = records.length > 0;
}

function showFindings(f) {
  const body = document.querySelector("#findings tbody");
  body.replaceChildren();
  for (const x of f.findings) {
    const r = body.insertRow();
    r.className = "finding";
    r.dataset.rule = x.rule;
    cell(r, x.rule + (x.labels.reason ? "/" + x.labels.reason : ""));
    cell(r, x.severity, "severity-" + x.severity);
    cell(r, where(x.labels)); cell(r, x.since); cell(r, x.summary);
    cell(r, Object.entries(x.evidence).map(([k, v]) => k + "=" + v).join(", "));
  }
  document.getElementById("no-findings").hidden = f.findings.length > 0;
}

const graphs = new Map();
function drawCharts(windows) {
  const container = document.getElementById("charts");
  const note = document.getElementById("charts-note");
  if (typeof Dygraph === "undefined") {
    note.hidden = false;
    text(note, "Charts need the dygraphs library (Debian package libjs-dygraphs) on the node.");
    return;
  }
  // port -> chart index -> series
  const ports = new Map();
  CHARTS.forEach((chart, i) => {
    const series = chart.derive ? chart.derive(windows[i].series) : windows[i].series;
    for (const s of series) {
      if (!s.points || s.points.length === 0) continue;
      const port = portOf(s.labels);
      if (!ports.has(port)) ports.set(port, CHARTS.map(() => []));
      ports.get(port)[i].push(s);
    }
  });
  for (const [port, perChart] of [...ports.entries()].sort()) {
    let box = container.querySelector(`.port[data-port="${CSS.escape(port)}"]`);
    if (!box) {
      box = document.createElement("div");
      box.className = "port";
      box.dataset.port = port;
      box.appendChild(text(document.createElement("h3"), port));
      const row = document.createElement("div");
      row.className = "charts-row";
      box.appendChild(row);
      container.appendChild(box);
    }
    const row = box.querySelector(".charts-row");
    perChart.forEach((series, i) => {
      if (series.length === 0) return;
      const key = port + "/" + i;
      // Align every series on the union of sample times; dygraphs draws nulls as gaps.
      const times = [...new Set(series.flatMap((s) => s.points.map((p) => p[0])))].sort((a, b) => a - b);
      const index = new Map(times.map((t, k) => [t, k]));
      const data = times.map((t) => [new Date(t * 1000), ...series.map(() => null)]);
      series.forEach((s, j) => { for (const [t, v] of s.points) data[index.get(t)][j + 1] = v; });
      const labels = ["time", ...series.map(CHARTS[i].name)];
      let entry = graphs.get(key);
      if (!entry) {
        const wrap = document.createElement("div");
        wrap.appendChild(text(document.createElement("div"), CHARTS[i].title)).className = "chart-title";
        const div = document.createElement("div");
        div.className = "chart";
        wrap.appendChild(div);
        row.appendChild(wrap);
        const log = Boolean(CHARTS[i].logscale);
        entry = { div, graph: new Dygraph(div, data, { labels, connectSeparatedPoints: true, legend: "onmouseover",
                                                       labelsSeparateLines: false, includeZero: !log, logscale: log }) };
        graphs.set(key, entry);
      } else {
        entry.graph.updateOptions({ file: data, labels });
      }
      entry.div.dataset.points = String(data.length * series.length);
      entry.div.dataset.series = labels.slice(1).join(",");
    });
  }
}

async function refresh() {
  try {
    const st0 = await getJson("/api/v1/status");
    if (st0.window && !st0.window.enabled) {
      showStatus(st0);
      showFindings(await getJson("/api/v1/findings"));
      const note = document.getElementById("charts-note");
      note.hidden = false;
      text(note, "No charts: " + st0.window.note);
      document.body.dataset.loaded = "1";
      return;
    }
    const [findings, ...windows] = await Promise.all([
      getJson("/api/v1/findings"),
      ...CHARTS.map((c) => Promise.all(c.families.map((f) => {
        const got = getJson(`/api/v1/window?seconds=${WINDOW_SECONDS}&points=1&family=${f}`);
        // A family this node does not keep (no transceiver collector) leaves its chart out.
        return c.optional ? got.catch(() => ({ series: [], poll_seconds: 0 })) : got;
      })).then((parts) => ({
          series: parts.flatMap((p) => p.series), poll: parts[0].poll_seconds }))),
    ]);
    showStatus(st0);
    showFindings(findings);
    text(document.getElementById("window-seconds"), String(WINDOW_SECONDS));
    text(document.getElementById("poll"), windows[0].poll ? windows[0].poll.toFixed(2) : "?");
    drawCharts(windows);
    document.body.dataset.loaded = "1";
  } catch (e) {
    console.error("status page refresh failed: " + e.message);
  }
}

refresh();
setInterval(refresh, REFRESH_MS);
