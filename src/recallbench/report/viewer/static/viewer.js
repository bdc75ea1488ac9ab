/* recallbench viewer: plain JS, no build step. Data arrive as scripts (data/*.js calling
   RB.put) so the page works from file:// as well as from `recallbench view --serve`. Only the
   overview is loaded at start; case lists, case details and the comparison matrix are loaded
   in chunks when a page needs them. */
"use strict";

const RB = (() => {
  const store = {}, pending = {};
  const live = location.protocol.startsWith("http");
  const bust = live ? "?t=" + Date.now() : "";
  function put(name, value) {
    store[name] = value;
    if (pending[name]) { pending[name].resolve(value); }
  }
  function load(name) {
    if (name in store) return Promise.resolve(store[name]);
    if (pending[name]) return pending[name].promise;
    let resolve, reject;
    const promise = new Promise((res, rej) => { resolve = res; reject = rej; });
    pending[name] = { promise, resolve, reject };
    const s = document.createElement("script");
    s.src = "data/" + name + ".js" + bust;
    s.onload = () => { s.remove(); delete pending[name]; if (!(name in store)) reject(new Error("empty " + name)); };
    s.onerror = () => { s.remove(); delete pending[name]; reject(new Error("cannot load data/" + name + ".js")); };
    document.head.appendChild(s);
    return promise;
  }
  return { put, load, store, live };
})();

const esc = (v) => String(v ?? "").replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }[c]));
const pct = (v, d = 1) => (v === null || v === undefined ? "n/a" : (100 * v).toFixed(d));
const fmtCI = (s) => (!s || s.value === null || s.value === undefined ? "n/a"
  : `${pct(s.value)} [${pct(s.lo)}, ${pct(s.hi)}]`);
const num = (v, d = 3) => (v === null || v === undefined ? "–" : Number(v).toFixed(d));
const pad3 = (n) => String(n).padStart(3, "0");
let OV = null;

function params() {
  const [route, query] = location.hash.replace(/^#/, "").split("?");
  return { route: route || "overview", q: new URLSearchParams(query || "") };
}
function setStatus(text) { document.getElementById("status").textContent = text; }
function table(header, rows, leftCols = 1, leftAlso = []) {
  const left = (i) => i < leftCols || leftAlso.includes(i);  // text columns; numbers go right
  const th = header.map((h, i) => `<th class="${left(i) ? "l" : ""}">${h}</th>`).join("");
  const body = rows.map((r) => "<tr>" + r.map((c, i) => `<td class="${left(i) ? "l" : ""}">${c}</td>`).join("") + "</tr>").join("");
  return `<table><thead><tr>${th}</tr></thead><tbody>${body}</tbody></table>`;
}
function agentCard(bench, agent) { return OV.agents.find((a) => a.benchmark === bench && a.agent === agent) || {}; }
function agentLabel(bench, agent) {
  const card = agentCard(bench, agent);
  return card.privileged ? `${esc(agent)} <span class="priv" title="${esc(card.privileged)}">★ privileged</span>` : esc(agent);
}

/* ---------------------------------------------------------------- overview */
function renderOverview() {
  const o = OV;
  const parts = [`<h1>${o.kind === "comparison" ? "Agent comparison" : "Run"}: ${esc(o.name || o.source)}</h1>`,
    `<p class="meta">written ${esc(o.written)} by recallbench ${esc(o.viewer_version)} &middot; ${o.n_cases} case records &middot; ` +
    (o.live ? "served live: refreshes as the run log grows" : "opened from disk: the state when it was written") +
    (o.report ? ` &middot; <a href="${esc(o.report)}">report.html</a>` : "") + `</p>`,
    `<p class="meta">suite: ${esc(o.suite)}</p>`];
  if (o.warnings.length) parts.push(`<div class="warn" id="warnings"><strong>Warnings</strong><ul>${o.warnings.map((w) => `<li>${esc(w)}</li>`).join("")}</ul></div>`);
  for (const [bench, b] of Object.entries(o.benchmarks)) {
    parts.push(`<h2>${esc(b.title)}</h2>`);
    if (b.empty) { parts.push("<p>No agent of this benchmark has recorded cases.</p>"); continue; }
    const cards = o.agents.filter((a) => a.benchmark === bench);
    const m0 = (cards.find((a) => a.manifest && Object.keys(a.manifest).length) || {}).manifest || {};
    const setting = b.page === "frames" ? `K = ${esc(m0.frames ?? "?")} offered frames, scoring ${esc(m0.scoring ?? "published")}`
      : `max steps ${esc((cards[0] || {}).max_steps ?? "per test")}, thresholds ${esc(JSON.stringify((cards[0] || {}).thresholds || {}))}`;
    const hasFacts = b.facts && Object.keys(b.facts).length;  // the suite in numbers, else the settings
    parts.push(`<p class="meta">suite ${esc(o.suites[bench] || m0.data || o.suite)}${hasFacts ? "" : " &middot; " + setting}</p>`);
    if (hasFacts) parts.push(`<div class="facts">${kv(b.facts)}</div>`);
    const header = ["agent", "n", ...b.metrics.map((m) => `${esc(b.labels[m])} % [95% CI]`), "failure modes", "run"];
    const rows = cards.map((c) => {
      const a = b.agents[c.agent];
      if (!a) return [agentLabel(bench, c.agent), "–", ...b.metrics.map(() => "–"), esc(`${c.status}: ${c.note}`), ""];
      const fails = Object.entries(a.failures).map(([k, v]) => `${esc(k)}=${v}`).join(", ");
      return [agentLabel(bench, c.agent), a.n, ...b.metrics.map((m) => fmtCI(a.metrics[m])), fails,
        c.run ? `<a href="${esc(c.run)}">folder</a>` : ""];
    });
    parts.push(table(header, rows, 1, [header.length - 2, header.length - 1]));
    const priv = cards.filter((c) => c.privileged);
    if (priv.length) parts.push(`<p class="small"><span class="priv">★ privileged</span>: ${priv.map((c) => `${esc(c.agent)} ${esc(c.privileged)}`).join("; ")}. Not a memory result: a ceiling or a diagnostic.</p>`);
    parts.push("<h3>Metric definitions</h3><dl class='kv'>" + b.metrics.map((m) => `<dt>${esc(b.labels[m])}</dt><dd>${esc(b.definitions[m])}</dd>`).join("") + "</dl>");
    parts.push(`<p class="small">Intervals: 95% percentile bootstrap over cases (2,000 resamples). Paired tests: see <a href="#compare">Comparison</a>.</p>`);
  }
  const first = o.agents.find((a) => a.manifest && a.manifest.packages) || {};
  if (first.manifest) {
    const m = first.manifest;
    parts.push("<h2>Versions and manifest</h2><dl class='kv'>" +
      ["recallbench", "python", "platform", "mujoco_gl", "started"].map((k) => `<dt>${k}</dt><dd>${esc(m[k])}</dd>`).join("") +
      Object.entries(m.packages || {}).map(([k, v]) => `<dt>${esc(k)}</dt><dd>${esc(v ?? "not installed")}</dd>`).join("") + "</dl>");
    parts.push("<details><summary>every agent's manifest</summary>" + o.agents.map((a) =>
      `<h3>${esc(a.benchmark)} / ${esc(a.agent)}</h3><pre>${esc(JSON.stringify({ target: a.target, ...a.manifest }, null, 1))}</pre>`).join("") + "</details>");
  }
  return parts.join("\n");
}

/* ---------------------------------------------------------------- breakdowns */
function barChart(title, names, agents, cells) {
  // horizontal bars: one group per slice value, one bar per agent, 95% interval whiskers
  const rowH = 12, gap = 8, left = 170, width = 620, plotW = width - left - 20;
  const groupH = agents.length * rowH + gap;
  const height = names.length * groupH + 40;
  const colors = ["#1d4ed8", "#d97706", "#17803d", "#9333ea", "#b3261e", "#0891b2", "#4d7c0f", "#be185d"];
  let svg = `<svg width="${width}" height="${height}" role="img" aria-label="${esc(title)}">`;
  for (let t = 0; t <= 100; t += 25) {
    const x = left + (t / 100) * plotW;
    svg += `<line x1="${x}" x2="${x}" y1="10" y2="${height - 25}" stroke="#eee"/><text x="${x}" y="${height - 10}" font-size="10" text-anchor="middle">${t}%</text>`;
  }
  names.forEach((name, i) => {
    const y0 = 10 + i * groupH;
    svg += `<text x="${left - 6}" y="${y0 + groupH / 2}" font-size="11" text-anchor="end">${esc(name.slice(0, 28))}</text>`;
    agents.forEach((agent, j) => {
      const s = cells[name][agent];
      if (!s || s.value === null || s.value === undefined) return;
      const y = y0 + j * rowH;
      svg += `<rect x="${left}" y="${y}" width="${s.value * plotW}" height="${rowH - 2}" fill="${colors[j % colors.length]}"><title>${esc(agent)}: ${fmtCI(s)} (n=${s.n})</title></rect>`;
      svg += `<line x1="${left + s.lo * plotW}" x2="${left + s.hi * plotW}" y1="${y + rowH / 2 - 1}" y2="${y + rowH / 2 - 1}" stroke="#000"/>`;
    });
  });
  svg += "</svg>";
  const legend = agents.map((a, j) => `<span><i class="sw" style="background:${colors[j % colors.length]}"></i>${esc(a)}</span>`).join("") +
    `<span><i class="sw" style="height:0;border-top:2px solid #000"></i>95% interval (bootstrap)</span><span>bar length: % of the slice's cases</span>`;
  return `<div class="legend">${legend}</div>${svg}`;
}

function renderBreakdowns() {
  const parts = ["<h1>Breakdowns</h1>"];
  for (const [bench, b] of Object.entries(OV.benchmarks)) {
    if (b.empty) continue;
    const agents = Object.keys(b.agents);
    for (const [field, label] of Object.entries(b.slices)) {
      const cells = b.breakdowns[field];
      const names = Object.keys(cells);
      parts.push(`<h2>${esc(b.title)}: ${esc(b.labels[b.primary])} by ${esc(label)}</h2>`);
      const rows = names.map((n) => [esc(n), ...agents.map((a) => cells[n][a] ? `${fmtCI(cells[n][a])} <span class="meta">n=${cells[n][a].n}</span>` : "–")]);
      parts.push(table([esc(label), ...agents.map((a) => agentLabel(bench, a))], rows));
      if (names.length <= 40) parts.push(barChart(`${b.title} by ${label}`, names, agents, cells));
    }
  }
  return parts.join("\n");
}

/* ---------------------------------------------------------------- case browser */
const PAGE = 50;
async function indexRows(needAll) {
  const chunks = needAll ? OV.index_chunks : 1;
  const lists = await Promise.all(Array.from({ length: chunks }, (_, k) => RB.load("index-" + pad3(k))));
  return lists.flat();
}
function filterOptions(name, values, current) {
  return `<select data-f="${name}"><option value="">${name}: all</option>${values.map((v) => `<option ${v === current ? "selected" : ""}>${esc(v)}</option>`).join("")}</select>`;
}
async function renderCases() {
  const { q } = params();
  const f = { bench: q.get("bench") || "", agent: q.get("agent") || "", category: q.get("category") || "",
    failure: q.get("failure") || "", success: q.get("success") || "", q: q.get("q") || "" };
  const page = Number(q.get("page") || 0);
  const filtered = Object.values(f).some((v) => v);
  const lastNeeded = Math.floor(((page + 1) * PAGE - 1) / OV.index_chunk);
  const rows = filtered ? await indexRows(true) : (await Promise.all(Array.from({ length: Math.min(OV.index_chunks, lastNeeded + 1) }, (_, k) => RB.load("index-" + pad3(k))))).flat();
  const needle = f.q.toLowerCase();
  const match = rows.filter((r) => (!f.bench || r[1] === f.bench) && (!f.agent || r[2] === f.agent) &&
    (!f.category || r[4] === f.category) && (!f.failure || r[8] === f.failure) &&
    (!f.success || String(r[7]) === (f.success === "success" ? "1" : "0")) &&
    (!needle || (r[3] + " " + r[9]).toLowerCase().includes(needle)));
  const total = filtered ? match.length : OV.n_cases;
  const shown = match.slice(page * PAGE, (page + 1) * PAGE);
  const fa = OV.facets;
  const controls = `<div class="filters" id="filters">${filterOptions("bench", fa.bench, f.bench)}${filterOptions("agent", fa.agent, f.agent)}` +
    `${filterOptions("category", fa.category, f.category)}${filterOptions("failure", fa.failure, f.failure)}` +
    `${filterOptions("success", ["success", "failure"], f.success)}<input id="search" type="search" placeholder="search id or question" value="${esc(f.q)}">` +
    `<span class="meta" id="count">${total} cases</span></div>`;
  const body = shown.map((r) => `<tr class="case" data-ref="${r[0]}"><td class="l">${esc(r[1])}</td><td class="l">${esc(r[2])}</td><td class="l">${esc(r[3])}</td>` +
    `<td class="l">${esc(r[4])}</td><td class="l">${esc(r[6])}</td><td class="${r[7] ? "ok" : "bad"}">${r[7] ? "success" : "fail"}</td><td class="l">${esc(r[8])}</td><td class="l">${esc(String(r[9]).slice(0, 90))}</td></tr>`).join("");
  const pages = Math.max(1, Math.ceil(total / PAGE));
  return `<h1>Cases</h1>${controls}<table id="cases"><thead><tr><th class="l">benchmark</th><th class="l">agent</th><th class="l">case</th><th class="l">category</th><th class="l">fixture / template</th><th>outcome</th><th class="l">failure</th><th class="l">question / instruction</th></tr></thead><tbody>${body}</tbody></table>` +
    `<div class="pager"><button data-page="${page - 1}" ${page <= 0 ? "disabled" : ""}>previous</button> page ${page + 1} of ${pages} <button data-page="${page + 1}" ${page + 1 >= pages ? "disabled" : ""}>next</button></div>`;
}
function wireCases() {
  const go = (changes) => {
    const { q } = params();
    for (const [k, v] of Object.entries(changes)) { if (v) q.set(k, v); else q.delete(k); }
    location.hash = "cases?" + q.toString();
  };
  document.querySelectorAll("#filters select").forEach((s) => s.addEventListener("change", () => go({ [s.dataset.f]: s.value, page: "" })));
  const search = document.getElementById("search");
  if (search) search.addEventListener("change", () => go({ q: search.value, page: "" }));
  document.querySelectorAll("tr.case").forEach((tr) => tr.addEventListener("click", () => { location.hash = "case/" + tr.dataset.ref; }));
  document.querySelectorAll(".pager button").forEach((b) => b.addEventListener("click", () => go({ page: b.dataset.page === "0" ? "" : b.dataset.page })));
}

/* ---------------------------------------------------------------- one case */
async function caseEntry(ref) {
  const chunk = await RB.load("cases-" + pad3(Math.floor(ref / OV.case_chunk)));
  return chunk.find((c) => c.ref === ref);
}
function kv(obj) {
  return "<dl class='kv'>" + Object.entries(obj).filter(([, v]) => v !== null && v !== undefined && v !== "")
    .map(([k, v]) => `<dt>${esc(k)}</dt><dd>${typeof v === "object" ? `<code>${esc(JSON.stringify(v))}</code>` : esc(v)}</dd>`).join("") + "</dl>";
}
function scaleFor(points, w, h, padding = 20) {
  const xs = points.map((p) => p[0]), ys = points.map((p) => p[1]);
  const x0 = Math.min(...xs), x1 = Math.max(...xs), y0 = Math.min(...ys), y1 = Math.max(...ys);
  const s = Math.min((w - 2 * padding) / Math.max(x1 - x0, 1e-6), (h - 2 * padding) / Math.max(y1 - y0, 1e-6));
  return (p) => [padding + (p[0] - x0) * s, h - padding - (p[1] - y0) * s];
}
function topDown(title, path, marks, second, rooms) {
  // path: [[x,y]...]; marks: [{xy, color, label, r, ring}]; second: another path (LL rollout);
  // rooms: [{name, bounds: [x0, y0, x1, y1]}] drawn as the floor plan
  const corners = (rooms || []).flatMap((r) => [[r.bounds[0], r.bounds[1]], [r.bounds[2], r.bounds[3]]]);
  const all = [...path, ...(second || []), ...corners, ...marks.map((m) => m.xy)].filter((p) => p && p[0] !== null);
  if (!all.length) return "";
  const w = 420, h = 340, tr = scaleFor(all, w, h);
  let svg = `<svg id="map" width="${w}" height="${h}" role="img" aria-label="${esc(title)}"><text x="6" y="14" font-size="11">${esc(title)} (top-down, x right, y up)</text>`;
  for (const r of rooms || []) {
    const [ax, ay] = tr([r.bounds[0], r.bounds[3]]), [bx, by] = tr([r.bounds[2], r.bounds[1]]);
    svg += `<rect class="room" x="${ax}" y="${ay}" width="${bx - ax}" height="${by - ay}" fill="#f4f1ea" stroke="#999"><title>${esc(r.name)}</title></rect><text x="${ax + 4}" y="${by - 4}" font-size="10" fill="#777">${esc(r.name)}</text>`;
  }
  const pts = path.filter((p) => p[0] !== null).map((p) => tr(p).map((v) => v.toFixed(1)).join(",")).join(" ");
  if (pts) svg += `<polyline points="${pts}" fill="none" stroke="#64748b" stroke-width="1.5"/>`;
  if (second && second.length) svg += `<polyline class="second" points="${second.map((p) => tr(p).map((v) => v.toFixed(1)).join(",")).join(" ")}" fill="none" stroke="#d97706" stroke-width="2"/>`;
  const first = path.find((p) => p[0] !== null), last = [...path].reverse().find((p) => p[0] !== null);
  if (first) { const [x, y] = tr(first); svg += `<rect x="${x - 4}" y="${y - 4}" width="8" height="8" fill="#64748b"><title>start</title></rect>`; }
  if (last) { const [x, y] = tr(last); svg += `<polygon points="${x},${y - 6} ${x - 5},${y + 4} ${x + 5},${y + 4}" fill="#111"><title>end</title></polygon>`; }
  for (const m of marks) {
    if (!m.xy) continue;
    const [x, y] = tr(m.xy);
    svg += m.ring ? `<circle cx="${x}" cy="${y}" r="${m.r || 9}" fill="none" stroke="${m.color}" stroke-width="3"><title>${esc(m.label)}</title></circle>`
      : `<circle cx="${x}" cy="${y}" r="${m.r || 3}" fill="${m.color}"><title>${esc(m.label)}</title></circle>`;
    if (m.text) svg += `<text x="${x + 6}" y="${y - 5}" font-size="9" fill="#333">${esc(m.text)}</text>`;
  }
  return svg + "</svg>";
}
function lineChart(id, title, steps, series, threshold, thresholdLabel) {
  const w = 420, h = 220, l = 40, r = 10, t = 20, b = 25;
  const vals = series.flatMap((s) => s.values).filter((v) => v !== null);
  if (!vals.length) return "";
  const ymax = Math.max(...vals, threshold || 0) * 1.1 || 1, xmax = Math.max(...steps, 1);
  const X = (s) => l + (s / xmax) * (w - l - r), Y = (v) => h - b - (v / ymax) * (h - t - b);
  const colors = ["#1d4ed8", "#d97706", "#9333ea", "#0891b2"];
  let svg = `<svg id="${id}" width="${w}" height="${h}" role="img" aria-label="${esc(title)}"><text x="${l}" y="13" font-size="11">${esc(title)}</text>`;
  svg += `<line x1="${l}" y1="${h - b}" x2="${w - r}" y2="${h - b}" stroke="#999"/><line x1="${l}" y1="${t}" x2="${l}" y2="${h - b}" stroke="#999"/>`;
  svg += `<text x="${w - r}" y="${h - 8}" font-size="10" text-anchor="end">step ${xmax}</text><text x="${l - 4}" y="${t + 8}" font-size="10" text-anchor="end">${ymax.toFixed(2)}</text>`;
  if (threshold !== null && threshold !== undefined) svg += `<line x1="${l}" x2="${w - r}" y1="${Y(threshold)}" y2="${Y(threshold)}" stroke="#b3261e" stroke-dasharray="5,3"/><text x="${w - r}" y="${Y(threshold) - 3}" font-size="10" fill="#b3261e" text-anchor="end">${esc(thresholdLabel)} ${threshold}</text>`;
  series.forEach((s, j) => {
    const pts = s.values.map((v, i) => (v === null ? null : `${X(steps[i]).toFixed(1)},${Y(v).toFixed(1)}`)).filter(Boolean).join(" ");
    svg += `<polyline points="${pts}" fill="none" stroke="${colors[j % colors.length]}" stroke-width="1.6"><title>${esc(s.name)}</title></polyline>`;
    svg += `<text x="${l + 4}" y="${t + 12 + 11 * j}" font-size="10" fill="${colors[j % colors.length]}">${esc(s.name)}</text>`;
  });
  return svg + "</svg>";
}

function sheetsSection(sheets) {
  // the day's contact sheets (generate writes them; the viewer copies them into sheets/)
  const fig = (url, title) => url ? `<figure><a href="${esc(url)}" target="_blank"><img loading="lazy" src="${esc(url)}" alt="${esc(title)}"></a><figcaption>${esc(title)} (click for full size)</figcaption></figure>` : "";
  return `<h2>Contact sheets of this day</h2><div class="sheets" id="sheets">${fig(sheets.frames, "the offered frames (position · frame)")}${fig(sheets.targets, "every question's target at its valid offered frames, outlined (frame · share of the frame)")}</div>`;
}

function renderFindingDory(c, path) {
  const d = c.detail, valid = new Set(d.valid_positions), chosen = new Set(d.chosen);
  const parts = [`<p><strong>Question:</strong> <span id="question">${esc(d.question)}</span></p>`,
    kv({ template: d.template, ordered: d.ordered, "answer space": d.answer_frames ? `${d.answer_frames}-frame subsampled` : "original frames",
      "failure mode": d.failure, "parse error": d.parse_error, "LL failure": d.ll_failure })];
  parts.push(`<h2>Offered frames (K = ${d.offered.length})</h2><div class="legend"><span><i class="sw" style="border:3px solid #1f9d55"></i>valid (${d.valid_positions.length})</span><span><i class="sw" style="outline:3px dashed #1d4ed8"></i>chosen by the agent (${d.chosen_total ?? d.chosen.length}${d.chosen_total > d.chosen.length ? `, the first ${d.chosen.length} drawn` : ""})</span></div>`);
  parts.push(`<div class="strip" id="timeline">` + d.offered.map((f, p) => {
    const cls = `cell${valid.has(p) ? " valid" : ""}${chosen.has(p) ? " chosen" : ""}`;
    const img = d.strip ? `<img loading="lazy" src="${esc(d.strip + f + ".jpg")}" alt="frame ${f}">` : "";
    return `<div class="${cls}" title="position ${p}, frame ${f}${valid.has(p) ? ", valid" : ""}${chosen.has(p) ? ", chosen" : ""}">${chosen.has(p) ? '<span class="tag">chosen</span>' : ""}${img}${p}</div>`;
  }).join("") + "</div>");
  if (!d.strip) parts.push(`<p class="meta">No video for this case on disk: frames are shown as positions only.</p>`);
  const anyValid = d.answer.some((g) => g.some((f) => f >= 0));
  if (!d.valid_positions.length) parts.push(`<p class="meta" id="novalid">${anyValid ? "None of the offered frames is valid: every valid frame fell between the K offered ones." : "This question has no valid frame at all (answer [-1]): no choice can succeed."}</p>`);
  parts.push("<h2>Chosen frames beside the nearest valid frames</h2>");
  if (!d.pairs.length) parts.push("<p>The agent chose no usable frame.</p>");
  parts.push(`<div class="pairs" id="pairs">` + d.pairs.map((pr) => `<div class="pair"><figure>${pr.thumb ? `<img class="chosen" src="${esc(pr.thumb)}" alt="chosen frame ${pr.frame}">` : ""}<figcaption>chosen: position ${pr.position}, frame ${esc(pr.frame)} <span class="${pr.valid ? "ok" : "bad"}">${pr.valid ? "valid" : "not valid"}</span></figcaption></figure>` +
    `<figure>${pr.nearest_thumb ? `<img class="valid" src="${esc(pr.nearest_thumb)}" alt="nearest valid frame ${pr.nearest}">` : ""}<figcaption>nearest valid: frame ${esc(pr.nearest ?? "none")}</figcaption></figure></div>`).join("") + "</div>");
  parts.push("<h2>Scores</h2>" + table(Object.keys(d.metrics), [Object.values(d.metrics).map((v) => (v === null ? "n/a" : num(v, 2)))], 0));
  parts.push("<h2>Agent transcript</h2>" + kv({ ...d.transcript, response: undefined }) + (d.transcript.response ? `<pre id="response">${esc(d.transcript.response)}</pre>` : ""));
  if (d.ll) parts.push("<h2>Low-level rollout</h2>" + kv({ ...d.ll, path: d.ll.path ? `${d.ll.path.length} points, drawn on the map below` : undefined }));
  if (d.map) {
    const ll = (d.ll && d.ll.path) || null;
    parts.push("<h2>Robot path in the video" + (ll ? " and the LL rollout" : "") + "</h2>" +
      `<div class="legend"><span><i class="sw" style="background:#64748b"></i>path in the video (square: start, triangle: end)</span>${ll ? '<span><i class="sw" style="background:#d97706"></i>LL rollout (stops: orange rings)</span>' : ""}<span><i class="sw" style="background:#1f9d55"></i>valid frames' poses</span><span><i class="sw" style="border:3px solid #1d4ed8;border-radius:50%"></i>chosen frames' poses</span><span><i class="sw" style="border:2px solid #111"></i>episode end = LL start</span></div>` +
      topDown("recorded path", path, [
        ...d.map.valid.map((xy) => ({ xy, color: "#1f9d55", label: "valid frame pose", r: 4 })),
        ...d.map.chosen.map((xy) => ({ xy, color: "#1d4ed8", label: "chosen frame pose", ring: true, r: 7 })),
        ...d.map.start.map((xy) => ({ xy, color: "#111", label: "episode end = LL start", ring: true, r: 11 })),
        ...((d.ll && d.ll.stops) || []).map((s) => ({ xy: s.pose.slice(0, 2), color: "#d97706", label: `LL stop at step ${s.step}`, ring: true, r: 6 }))],
      ll));
  }
  if (d.sheets) parts.push(sheetsSection(d.sheets));
  return parts.join("\n");
}

function renderSceneMem(c) {
  const d = c.detail, th = d.thresholds || {};
  const parts = [`<p><strong>Instruction:</strong> <span id="instruction">${esc(d.instruction ?? "(scenario not found)")}</span></p>`,
    kv({ task: d.task, "target fixture": d.fixture, "fixture type": d.fixture_type, "chosen fixture": d.chosen_fixture,
      "failure reason": d.error ? "error" : d.failed, error: d.error, steps: `${d.steps} of ${d.max_steps}`,
      "min distance (m)": num(d.min_distance), "max |qpos|": num(d.max_abs_qpos), "approach threshold (m)": th.approach_dist,
      "open threshold |qpos|": th.open_qpos, "policy info": d.policy_info })];
  if (d.strips) {
    parts.push(`<h2>Camera videos at subtask boundaries</h2><div class="legend"><span><i class="sw" style="border:3px solid #d97706"></i>the target was placed</span></div>`);
    for (const s of d.strips) {
      parts.push(`<div class="cam"><div class="meta">${esc(s.camera)}</div><div class="strip">` + s.frames.map((m) =>
        `<div class="cell${m.placed ? " placed" : ""}" title="${esc(m.label)}">${m.thumb ? `<img loading="lazy" src="${esc(m.thumb)}" alt="${esc(s.camera)} frame ${m.frame}">` : ""}${m.frame}${m.placed ? " placed" : ""}</div>`).join("") + "</div></div>");
    }
  }
  const tr = d.trace;
  if (!tr) {
    parts.push(`<p class="meta" id="notrace">This run has no per-step trace (recorded before run-format trace v1, or the worker failed): only the minimum distance and the maximum |qpos| above are known.</p>`);
    return parts.join("\n");
  }
  const fixtures = tr.fixtures || {};
  const marks = Object.entries(fixtures).map(([name, xy]) => ({
    xy, label: name, text: name, color: name === tr.target ? "#1f9d55" : name === d.chosen_fixture ? "#1d4ed8" : "#aaa",
    r: name === tr.target || name === d.chosen_fixture ? 5 : 3 }));
  if (fixtures[tr.target]) marks.push({ xy: fixtures[tr.target], color: "#1f9d55", label: "target " + tr.target, ring: true, r: 11 });
  if (d.chosen_fixture && fixtures[d.chosen_fixture]) marks.push({ xy: fixtures[d.chosen_fixture], color: "#1d4ed8", label: "chosen " + d.chosen_fixture, ring: true, r: 8 });
  parts.push(`<h2>Top-down map and signals</h2><div class="legend"><span><i class="sw" style="border:3px solid #1f9d55;border-radius:50%"></i>target fixture</span><span><i class="sw" style="border:3px solid #1d4ed8;border-radius:50%"></i>fixture the agent chose</span><span><i class="sw" style="background:#aaa;border-radius:50%"></i>other fixtures</span><span><i class="sw" style="background:#f4f1ea;border:1px solid #999"></i>rooms</span><span><i class="sw" style="background:#64748b"></i>base trajectory (square: start, triangle: end)</span><span><i class="sw" style="height:0;border-top:2px dashed #b3261e"></i>success threshold</span></div><div class="grid2">` +
    topDown("trajectory", tr.base.map((b) => [b[0], b[1]]), marks, null, tr.rooms) +
    lineChart("distance", "distance base to target fixture (m)", tr.step, [{ name: "distance", values: tr.distance }], th.approach_dist, "approach") +
    lineChart("qpos", "|qpos| of the target's joints", tr.step, tr.joints.map((j, i) => ({ name: j, values: tr.qpos[i].map((v) => (v === null ? null : Math.abs(v))) })), th.open_qpos, "open") + "</div>");
  return parts.join("\n");
}

async function renderCase(ref) {
  const c = await caseEntry(ref);
  if (!c) return `<p>No case ${ref}.</p>`;
  const bench = OV.benchmarks[c.bench] || {};  // its title and how its cases are drawn
  const head = `<h1>${esc(bench.title || c.bench)} case ${esc(c.id)}</h1>` +
    `<p class="meta">agent ${agentLabel(c.bench, c.agent)} &middot; category ${esc(c.category)} &middot; ${esc(c.group)} &middot; ${esc(c.kind)} &middot; ` +
    `<span id="outcome" class="${c.success ? "ok" : "bad"}">${c.success ? "success" : "failure" + (c.failure ? ": " + esc(c.failure) : "")}</span> &middot; <a href="#cases">all cases</a></p>`;
  if (bench.page !== "frames") return head + renderSceneMem(c);
  const path = c.detail.map ? await RB.load(c.detail.map.path) : null;
  return head + renderFindingDory(c, path);
}

/* ---------------------------------------------------------------- comparison */
async function renderCompare() {
  const parts = ["<h1>Comparison</h1>"];
  const { q } = params();
  for (const [bench, b] of Object.entries(OV.benchmarks)) {
    if (b.empty) continue;
    const p = b.paired, label = b.labels[b.primary];
    parts.push(`<h2>${esc(b.title)}: paired tests on ${esc(label)}</h2><p class="meta">${esc(p.test)}; difference interval: ${esc(p.interval)}. Over the cases both agents have.</p>`);
    if (!p.pairs.length) parts.push("<p>One agent only: nothing to compare.</p>");
    else parts.push(table(["agent A", "agent B", "n", "A %", "B %", "A − B (pp) [95% CI]", "only A", "only B", "McNemar p"], p.pairs.map((r) => r.n ? [
      agentLabel(bench, r.a), agentLabel(bench, r.b), r.n, pct(r.mean_a), pct(r.mean_b),
      `${pct(r.diff)} [${pct(r.lo)}, ${pct(r.hi)}]`, r.only_a ?? "–", r.only_b ?? "–", r.p === undefined ? "–" : r.p.toPrecision(3)] : [esc(r.a), esc(r.b), 0, "", "", "", "", "", ""]), 2));
    if (p.baseline) {
      parts.push(`<h3>Gain of each memory agent over the memoryless baseline (${esc(p.baseline)})</h3>`);
      parts.push(table(["agent", "n", "agent %", `${esc(p.baseline)} %`, "gain (pp) [95% CI]", "McNemar p"], p.gains.map((g) => [
        agentLabel(bench, g.agent), g.n, pct(g.mean_a), pct(g.mean_b), `${pct(g.diff)} [${pct(g.lo)}, ${pct(g.hi)}]`, g.p === undefined ? "–" : g.p.toPrecision(3)])));
    } else parts.push("<p class='meta'>No memoryless baseline (blind) in this comparison: no gains.</p>");
    const agents = Object.keys(b.agents), page = Number(q.get(bench) || 0), k = Math.floor((page * PAGE) / OV.matrix_chunk);
    const items = (await RB.load(`matrix-${bench}-${pad3(k)}`)).slice((page * PAGE) % OV.matrix_chunk, (page * PAGE) % OV.matrix_chunk + PAGE);
    parts.push(`<h3>Per case, side by side</h3><table class="matrix"><thead><tr><th class="l">case</th><th class="l">category</th>${agents.map((a) => `<th>${esc(a)}</th>`).join("")}</tr></thead><tbody>` +
      items.map(([id, cat, refs, ok]) => `<tr><td class="l">${esc(id)}</td><td class="l">${esc(cat)}</td>${refs.map((ref, j) => ref < 0 ? "<td>–</td>" : `<td><a class="${ok[j] ? "ok" : "bad"}" href="#case/${ref}">${ok[j] ? "✓" : "✗"}</a></td>`).join("")}</tr>`).join("") + "</tbody></table>");
    const total = Object.values(b.agents).reduce((m, a) => Math.max(m, a.n), 0), pages = Math.max(1, Math.ceil(total / PAGE));
    parts.push(`<div class="pager">${page > 0 ? `<a href="#compare?${bench}=${page - 1}">previous</a>` : ""} page ${page + 1} of ${pages} ${page + 1 < pages ? `<a href="#compare?${bench}=${page + 1}">next</a>` : ""}</div>`);
  }
  return parts.join("\n");
}

/* ---------------------------------------------------------------- router */
async function route() {
  const { route: r } = params();
  document.querySelectorAll("nav a").forEach((a) => a.classList.toggle("active", r.startsWith(a.dataset.route)));
  const app = document.getElementById("app");
  try {
    let html;
    if (r === "breakdowns") html = renderBreakdowns();
    else if (r === "cases") html = await renderCases();
    else if (r.startsWith("case/")) html = await renderCase(Number(r.slice(5)));
    else if (r === "compare") html = await renderCompare();
    else html = renderOverview();
    app.innerHTML = html;
    if (r === "cases") wireCases();
    window.scrollTo(0, 0);
    document.body.dataset.ready = r;
  } catch (err) {
    app.innerHTML = `<p class="bad">${esc(err.message)}</p>`;
    document.body.dataset.ready = "error";
  }
}

async function pollForChanges(written) {
  // only when served: a page opened from disk shows the state when it was written
  try {
    const res = await fetch("data/stamp.json", { cache: "no-store" });
    const stamp = await res.json();
    if (stamp.written !== written) { location.reload(); return; }
  } catch (err) { setStatus("server unreachable"); }
  setTimeout(() => pollForChanges(written), 2000);
}

RB.load("overview").then((o) => {
  OV = o;
  setStatus(`${o.n_cases} cases · written ${o.written}` + (o.live && RB.live ? " · live" : ""));
  window.addEventListener("hashchange", route);
  route();
  if (o.live && RB.live) setTimeout(() => pollForChanges(o.written), 2000);
}).catch((err) => { document.getElementById("app").innerHTML = `<p class="bad">${esc(err.message)}</p>`; });
