// Memory view: renders memoryd's state through the gateway's /memory/view/api routes.
// Hand-written, no dependencies. Memory text is only ever put into the page with textContent (never innerHTML),
// and every state-changing request carries the page's CSRF token.
"use strict";

(() => {
  const API = "/memory/view/api";
  const CLEAR_PHRASE = "clear all memory";
  const TOKEN = document.querySelector('meta[name="csrf-token"]').content;
  const state = { agents: [], agent: "", inspected: null };

  const $ = (id) => document.getElementById(id);

  /** An element with attributes and children (strings become text nodes). */
  function el(tag, attrs = {}, ...children) {
    const node = document.createElement(tag);
    for (const [key, value] of Object.entries(attrs)) {
      if (value === undefined || value === null || value === false) continue;
      if (key === "class") node.className = value;
      else if (key === "dataset") Object.assign(node.dataset, value);
      else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
      else node.setAttribute(key, value === true ? "" : value);
    }
    for (const child of children.flat()) {
      if (child === undefined || child === null || child === false) continue;
      node.append(child instanceof Node ? child : document.createTextNode(String(child)));
    }
    return node;
  }

  /** The grey line under a row: each non-empty part in its own span, so the flex gap separates them. */
  function metaLine(...parts) {
    return el("span", { class: "row-meta" },
      parts.flat().filter((p) => p !== null && p !== undefined && p !== false && p !== "")
        .map((p) => (p instanceof Node ? p : el("span", {}, p))));
  }

  function clear(node) { while (node.firstChild) node.removeChild(node.firstChild); return node; }

  function say(message, isError = false) {
    const box = $("status");
    box.textContent = message;
    box.classList.toggle("error", isError);
  }

  class ApiError extends Error {
    constructor(status, body) {
      const info = (body && (body.error || body.detail)) || {};
      const reason = info.reason || info.code || `HTTP ${status}`;
      const detail = typeof info === "string" ? info : (info.message || (Array.isArray(body && body.detail) ? "invalid input" : ""));
      super(detail ? `${reason}: ${detail}` : reason);
      this.status = status;
      this.reason = reason;
    }
  }

  async function api(method, path, body) {
    const init = { method, headers: { Accept: "application/json" }, credentials: "same-origin" };
    if (method !== "GET") {
      init.headers["Content-Type"] = "application/json";
      init.headers["X-CSRF-Token"] = TOKEN;
      init.body = JSON.stringify(body || {});
    }
    const response = await fetch(API + path, init);
    let parsed = null;
    try { parsed = await response.json(); } catch (_) { parsed = null; }
    if (!response.ok) throw new ApiError(response.status, parsed);
    return parsed;
  }

  /** Run an action, reporting progress and errors in the status line. */
  async function act(label, work) {
    say(`${label}…`);
    try {
      const result = await work();
      say(`${label}: done`);
      return result;
    } catch (error) {
      say(`${label} failed — ${error.message}`, true);
      return undefined;
    }
  }

  // ------------------------------------------------------------------------------------------------ formatting
  function bytes(n) {
    const units = ["B", "KiB", "MiB", "GiB", "TiB"];
    let value = Number(n) || 0, unit = 0;
    while (value >= 1024 && unit < units.length - 1) { value /= 1024; unit += 1; }
    return `${value.toFixed(unit === 0 ? 0 : 1)} ${units[unit]}`;
  }
  const percent = (x) => `${(100 * (Number(x) || 0)).toFixed(1)} %`;
  const ms = (x) => `${(Number(x) || 0).toFixed(0)} ms`;
  const day = (iso) => (iso ? iso.slice(0, 10) : "");
  const when = (iso) => (iso ? iso.replace("T", " ").slice(0, 16) + " UTC" : "");

  function salienceBar(value) {
    const v = Math.max(0, Math.min(1, Number(value) || 0));
    const fill = el("span", { class: "bar-fill" });
    fill.style.width = `${(v * 100).toFixed(0)}%`;  // through CSSOM: the CSP refuses inline style attributes
    return el("span", { class: "salience", title: `salience ${v.toFixed(2)}` },
      el("span", { class: "bar-track" }, fill), v.toFixed(2));
  }

  function statusBadge(status) {
    if (!status || status === "active") return null;
    return el("span", { class: `badge ${status}` }, status);
  }

  function redactionBadge(kinds) {
    if (!kinds || !kinds.length) return null;
    return el("span", { class: "badge", title: "redacted before display" }, `redacted: ${kinds.join(", ")}`);
  }

  /** A button that needs a second click within four seconds (for Forget). */
  function twoStep(label, armedLabel, onConfirm, attrs = {}) {
    let timer = null;
    const button = el("button", { type: "button", class: "destructive", ...attrs }, label);
    button.addEventListener("click", async () => {
      if (!button.classList.contains("armed")) {
        button.classList.add("armed");
        button.textContent = armedLabel;
        timer = setTimeout(() => { button.classList.remove("armed"); button.textContent = label; }, 4000);
        return;
      }
      clearTimeout(timer);
      button.classList.remove("armed");
      button.textContent = label;
      await onConfirm();
    });
    return button;
  }

  // -------------------------------------------------------------------------------------------------- actions
  async function setDisabled(kind, id, isDisabled) {
    const verb = isDisabled ? "disable" : "enable";
    const done = await act(`${verb[0].toUpperCase()}${verb.slice(1)} ${kind} ${id}`,
      () => api("POST", `/items/${kind}/${encodeURIComponent(id)}/${verb}`));
    if (done !== undefined) await refreshAfterChange(kind, id);
  }

  async function forget(kind, id) {
    const done = await act(`Forget ${kind} ${id}`, () => api("POST", `/items/${kind}/${encodeURIComponent(id)}/forget`));
    if (done === undefined) return;
    if (state.inspected && state.inspected.kind === kind && state.inspected.id === id) showInspection(null);
    for (const row of document.querySelectorAll(`li[data-kind="${CSS.escape(kind)}"][data-id="${CSS.escape(id)}"]`)) row.remove();
    await loadAll();
  }

  async function refreshAfterChange(kind, id) {
    if (state.inspected && state.inspected.kind === kind && state.inspected.id === id) await inspect(kind, id, false);
    if (lastSearch) await runSearch(lastSearch);
    await loadAll();
  }

  function rowActions(kind, id, status) {
    const canDisable = kind === "pinned" || kind === "episode";
    const isDisabled = status === "disabled";
    return el("span", { class: "row-actions" },
      el("button", { type: "button", class: "inspect", onclick: () => inspect(kind, id, true) }, "Inspect"),
      canDisable && (isDisabled
        ? el("button", { type: "button", class: "enable", onclick: () => setDisabled(kind, id, false) }, "Enable")
        : el("button", { type: "button", class: "disable", onclick: () => setDisabled(kind, id, true) }, "Disable")),
      twoStep("Forget", "Really forget?", () => forget(kind, id), { "data-action": "forget" }));
  }

  // ------------------------------------------------------------------------------------------------- overview
  async function loadOverview() {
    const data = await api("GET", `/overview?agent_id=${encodeURIComponent(state.agent)}`);
    state.agents = data.agents;
    if (!state.agent && data.agents.length) {
      const preferred = data.agents.find((a) => a.agent_id === "default") || data.agents[0];
      state.agent = preferred.agent_id;
      return loadOverview();  // identity is per agent: fetch it for the chosen one
    }
    renderAgents(data);
    renderStats(data);
    renderIdentity(data.identity);
    return data;
  }

  function renderStats(data) {
    $("stat-db").textContent = bytes(data.database_bytes);
    $("stat-calls").textContent = String(data.processing.total_calls);
    $("stat-success").textContent = data.processing.total_calls ? percent(data.processing.success_rate) : "–";
    $("stat-duration").textContent = data.processing.total_calls ? ms(data.processing.mean_duration_ms) : "–";
    $("stat-pending").textContent = `${data.pending_signals}${data.dead_letter_signals ? ` (+${data.dead_letter_signals} dead)` : ""}`;
    $("stat-superseded").textContent = String(data.processing.superseded_facts);
    const dropped = clear($("dropped-table").tBodies[0]);
    const entries = Object.entries(data.processing.items_dropped);
    if (!entries.length) dropped.append(el("tr", {}, el("td", { colspan: "2", class: "muted" }, "nothing dropped")));
    for (const [reason, n] of entries) dropped.append(el("tr", {}, el("td", {}, reason), el("td", { class: "num" }, n)));
  }

  function renderAgents(data) {
    const body = clear($("agent-table").tBodies[0]);
    if (!data.agents.length) body.append(el("tr", {}, el("td", { colspan: "7", class: "muted" }, "no agents yet")));
    for (const a of data.agents) {
      body.append(el("tr", { dataset: { agent: a.agent_id }, class: a.agent_id === state.agent ? "current" : "" },
        el("td", {}, a.display_name ? `${a.display_name} (${a.agent_id})` : a.agent_id),
        el("td", { class: "num" }, a.pinned_facts), el("td", { class: "num" }, a.episodes),
        el("td", { class: "num" }, a.transcript_turns), el("td", { class: "num" }, a.pending_signals),
        el("td", {}, a.memory_enabled ? "on" : "off"), el("td", {}, a.search_memory_enabled ? "on" : "off")));
    }
    for (const [select, withAll] of [[$("agent-select"), false], [$("search-agent"), true]]) {
      const keep = select.value;
      clear(select);
      if (withAll) select.append(el("option", { value: "" }, "Every agent"));
      for (const a of data.agents) select.append(el("option", { value: a.agent_id }, a.agent_id));
      select.value = withAll ? keep : state.agent;
    }
  }

  function renderIdentity(identity) {
    $("identity-narrative").textContent = identity.content || "No narrative yet: consolidation writes one from this agent's identity facts.";
    $("identity-narrative").classList.toggle("muted", !identity.content);
    const meta = [];
    if (identity.model) meta.push(`by ${identity.model}`);
    if (identity.version) meta.push(`version ${identity.version}`);
    if (identity.generate_time) meta.push(when(identity.generate_time));
    $("identity-meta").textContent = meta.join(" · ");
    const list = clear($("override-list"));
    if (!identity.overrides.length) list.append(el("li", { class: "empty" }, "No overrides."));
    for (const o of identity.overrides) {
      list.append(el("li", { dataset: { override: o.id } },
        el("span", { class: "row-text" }, o.text),
        el("span", { class: "row-actions" },
          el("button", { type: "button", class: "remove-override", onclick: () => removeOverride(o.id) }, "Remove")),
        metaLine(when(o.create_time))));
    }
    const facts = clear($("identity-facts"));
    if (!identity.facts.length) facts.append(el("li", { class: "empty" }, "No identity facts for this agent."));
    for (const f of identity.facts) {
      facts.append(el("li", { dataset: { kind: "identity_fact", id: f.id } },
        el("span", { class: "row-text" }, f.text),
        rowActions("identity_fact", f.id, "active"),
        metaLine(`from ${f.source_count} session${f.source_count === 1 ? "" : "s"}`, day(f.create_time))));
    }
  }

  async function loadRows() {
    if (!state.agent) {
      for (const id of ["pinned-list", "episode-list"]) clear($(id)).append(el("li", { class: "empty" }, "No agent selected."));
      return;
    }
    const data = await api("GET", `/rows?agent_id=${encodeURIComponent(state.agent)}&limit=50`);
    $("pinned-count").textContent = `${data.pinned.length} of ${data.pinned_total}${data.truncated ? "+" : ""} · ${state.agent}`;
    $("episodes-count").textContent = `${data.episodes.length} of ${data.episodes_total}${data.truncated ? "+" : ""} · ${state.agent}`;
    const pinned = clear($("pinned-list"));
    if (!data.pinned.length) pinned.append(el("li", { class: "empty" }, "No pinned facts yet."));
    for (const p of data.pinned) {
      pinned.append(el("li", { class: p.status === "active" ? "" : p.status, dataset: { kind: "pinned", id: p.id } },
        el("span", { class: "row-text" }, p.preview),
        rowActions("pinned", p.id, p.status),
        metaLine(salienceBar(p.salience), `used ${p.use_count}×`, statusBadge(p.status),
          redactionBadge(p.redactions), day(p.time))));
    }
    const episodes = clear($("episode-list"));
    if (!data.episodes.length) episodes.append(el("li", { class: "empty" }, "No episodes yet."));
    for (const e of data.episodes) {
      const topics = e.topics && e.topics.length ? `topics: ${e.topics.join(", ")}` : "";
      episodes.append(el("li", { class: e.status === "active" ? "" : e.status, dataset: { kind: "episode", id: e.id } },
        el("span", { class: "row-text" }, e.preview),
        rowActions("episode", e.id, e.status),
        metaLine(day(e.time), salienceBar(e.salience), topics, statusBadge(e.status),
          redactionBadge(e.redactions))));
    }
  }

  async function loadAll() {
    document.body.dataset.loading = "1";  // tests and screenshots wait for the page to settle
    try {
      await loadOverview();
      await loadRows();
    } catch (error) {
      say(`Loading memory failed — ${error.message}`, true);
    } finally {
      delete document.body.dataset.loading;
    }
  }

  async function addOverride(event) {
    event.preventDefault();
    const input = $("override-text");
    const text = input.value.trim();
    if (!text) return;
    const done = await act("Add override", () => api("POST", "/overrides", { text }));
    if (done !== undefined) { input.value = ""; await loadOverview(); }
  }

  async function removeOverride(id) {
    const done = await act("Remove override", () => api("DELETE", `/overrides/${encodeURIComponent(id)}`));
    if (done !== undefined) await loadOverview();  // the reply is the global identity; the page shows the agent's
  }

  // -------------------------------------------------------------------------------------------- maintenance
  async function syncNow() {
    const done = await act("Sync Now", () => api("POST", "/sync", { agent_id: "" }));
    if (done === undefined) return;
    const list = clear($("sync-outcomes"));
    if (!done.outcomes.length) list.append(el("li", { class: "muted" }, "Nothing was pending."));
    for (const o of done.outcomes) list.append(el("li", {}, `${o.agent_id} / ${o.conversation_id}: `, el("code", {}, o.outcome)));
    $("sync-panel").hidden = false;
    await loadAll();
  }

  async function consolidateNow() {
    const button = $("consolidate-now");
    button.disabled = true;
    try {
      const report = await act("Run Consolidation", () => api("POST", "/consolidate"));
      if (report === undefined) return;
      $("consolidation-summary").textContent =
        `${report.trigger} pass started ${when(report.start_time)}, took ${report.duration_ms} ms`;
      const body = clear($("consolidation-steps").tBodies[0]);
      for (const s of report.steps) {
        const note = s.error ? `error: ${s.error}` : s.skip_reason ? `skipped: ${s.skip_reason}` : "";
        body.append(el("tr", { dataset: { step: s.name } },
          el("td", {}, s.name), el("td", { class: "num" }, s.rows_changed), el("td", { class: "num" }, s.vectors_deleted),
          el("td", { class: "num" }, `${s.duration_ms} ms`), el("td", { class: s.error ? "bad" : "muted" }, note)));
      }
      $("consolidation-panel").hidden = false;
      await loadAll();
    } finally {
      button.disabled = false;
    }
  }

  async function clearAll(event) {
    event.preventDefault();
    const input = $("clear-confirm");
    if (input.value !== CLEAR_PHRASE) return;
    const done = await act("Clear all memory", () => api("POST", "/clear", { confirm_text: input.value }));
    if (done === undefined) return;
    input.value = "";
    $("clear-all").disabled = true;
    say(`All memory cleared: ${done.rows_deleted} rows deleted.`);
    await loadAll();
  }

  // ------------------------------------------------------------------------------------------------- console
  let lastSearch = null;

  async function runSearch(request) {
    const data = await api("POST", "/search", request);
    lastSearch = request;
    const list = clear($("search-results"));
    if (!data.hits.length) list.append(el("li", { class: "empty" }, "No matches."));
    for (const h of data.hits) {
      const status = h.disabled ? "disabled" : "active";
      list.append(el("li", { class: h.disabled ? "disabled" : "", dataset: { kind: h.kind, id: h.id } },
        el("span", { class: "row-text" }, h.preview),
        rowActions(h.kind, h.id, status),
        metaLine(el("span", { class: "badge kind" }, h.kind), h.agent_id,
          `score ${Number(h.score).toFixed(2)}`, statusBadge(status), day(h.create_time))));
    }
    return data;
  }

  async function search(event) {
    event.preventDefault();
    const request = {
      query: $("search-query").value,
      scope: $("search-scope").value,
      agent_id: $("search-agent").value,
      include_disabled: $("search-disabled").checked,
      limit: 50,
    };
    if (!request.query.trim()) return;
    await act("Search", () => runSearch(request));
  }

  async function inspect(kind, id, switchTab) {
    if (switchTab) showTab("console");
    const found = await act(`Inspect ${kind} ${id}`, () => api("GET", `/items/${kind}/${encodeURIComponent(id)}`));
    if (found !== undefined) showInspection(found);
  }

  function showInspection(found) {
    state.inspected = found ? { kind: found.kind, id: found.id } : null;
    $("inspect-empty").hidden = !!found;
    $("inspect-body").hidden = !found;
    if (!found) return;
    $("inspect-ref").textContent = `${found.kind} ${found.id} · agent ${found.agent_id}${found.disabled ? " · disabled" : ""}`;
    $("inspect-preview").textContent = found.preview;
    $("inspect-redactions").textContent = found.redactions.length
      ? `Redacted before display: ${found.redactions.join(", ")}` : "Nothing needed redacting.";
    const canDisable = found.kind === "pinned" || found.kind === "episode";
    $("inspect-note").textContent = canDisable ? (found.has_vector ? "Indexed for vector search." : "No vector yet.")
      : "Transcript turns and identity facts have no disabled state; Forget deletes the row.";
    $("inspect-disable").hidden = !canDisable || found.disabled;
    $("inspect-enable").hidden = !canDisable || !found.disabled;
    const meta = clear($("inspect-metadata").tBodies[0]);
    meta.append(el("tr", {}, el("td", {}, "created"), el("td", {}, when(found.create_time))));
    for (const [key, value] of Object.entries(found.metadata)) meta.append(el("tr", {}, el("td", {}, key), el("td", {}, value)));
    const sources = clear($("inspect-sources"));
    if (!found.source_turns.length) sources.append(el("li", { class: "empty" }, "No source turns recorded for this row."));
    for (const t of found.source_turns) {
      sources.append(el("li", { dataset: { kind: t.kind, id: t.id } },
        el("span", { class: "row-text" }, t.preview),
        metaLine(el("span", { class: "badge" }, t.role), when(t.create_time))));
    }
  }

  async function preview(event) {
    event.preventDefault();
    if (!state.agent) { say("Choose an agent first.", true); return; }
    const request = { agent_id: state.agent, query: $("preview-query").value, max_tokens: Number($("preview-tokens").value) || 400 };
    const found = await act("Context preview", () => api("POST", "/preview", request));
    if (found === undefined) return;
    $("preview-meta").textContent = `agent ${state.agent} · section ${found.section} · ${found.reason} · ${found.block_tokens} tokens (cap ${found.max_tokens})`;
    $("preview-block").hidden = false;
    $("preview-block").textContent = found.block || "(empty: no memory applies to this message)";
  }

  async function diagnose() {
    const found = await act("Diagnose", () => api("GET", "/diagnostics"));
    if (found === undefined) return;
    const box = clear($("diagnostics-body"));
    const healthy = found.store_state === "healthy";
    box.append(el("p", {},
      el("strong", { class: healthy ? "ok" : "bad" }, `store ${found.store_state}`),
      ` · schema v${found.schema_version} · ${bytes(found.database_bytes)} · ${found.encrypted ? "encrypted" : "plaintext"}`,
      ` · ${found.pending_signals} pending, ${found.dead_letter_signals} dead-lettered signals`),
    found.degraded_reason ? el("p", { class: "bad" }, found.degraded_reason) : "");
    const totals = found.table_counts.filter((c) => !c.agent_id);
    box.append(el("h3", {}, "Rows"), table(["Table", "Rows"], totals.map((c) => [c.table, c.rows])));
    box.append(el("h3", {}, "Full-text mirrors"), table(["Mirror", "Source rows", "Mirror rows", "Health"],
      found.fts.map((f) => [f.fts_table, f.source_rows, f.fts_rows, f.healthy ? "ok" : "mismatch"])));
    box.append(el("h3", {}, "Vector indexes"), table(["Agent", "Model", "Vectors", "Rows", "State"],
      found.vector_indexes.map((v) => [v.agent_id, v.model, v.vectors, v.rows, v.stale ? "stale" : "current"])));
    box.append(el("h3", {}, "Recent storage errors"), found.recent_errors.length
      ? table(["When", "Operation", "Error"], found.recent_errors.map((e) => [when(e.occur_time), e.operation, e.message]))
      : el("p", { class: "muted small" }, "none"));
  }

  function table(headers, rowsOf) {
    return el("table", { class: "grid compact" },
      el("thead", {}, el("tr", {}, headers.map((h) => el("th", {}, h)))),
      el("tbody", {}, rowsOf.length ? rowsOf.map((r) => el("tr", {}, r.map((c) => el("td", {}, c))))
        : el("tr", {}, el("td", { colspan: String(headers.length), class: "muted" }, "none"))));
  }

  // ---------------------------------------------------------------------------------------------------- wiring
  function showTab(name) {
    for (const tab of document.querySelectorAll("[data-tab]")) tab.setAttribute("aria-selected", String(tab.dataset.tab === name));
    for (const view of document.querySelectorAll("[data-view]")) view.hidden = view.dataset.view !== name;
  }

  document.addEventListener("DOMContentLoaded", () => {
    for (const tab of document.querySelectorAll("[data-tab]")) tab.addEventListener("click", () => showTab(tab.dataset.tab));
    $("agent-select").addEventListener("change", async (event) => { state.agent = event.target.value; await loadAll(); });
    $("override-form").addEventListener("submit", addOverride);
    $("sync-now").addEventListener("click", syncNow);
    $("consolidate-now").addEventListener("click", consolidateNow);
    $("clear-confirm").addEventListener("input", (event) => { $("clear-all").disabled = event.target.value !== CLEAR_PHRASE; });
    $("clear-form").addEventListener("submit", clearAll);
    $("search-form").addEventListener("submit", search);
    $("preview-form").addEventListener("submit", preview);
    $("diagnose").addEventListener("click", diagnose);
    for (const button of document.querySelectorAll("[data-dismiss]")) {
      button.addEventListener("click", () => { $(button.dataset.dismiss).hidden = true; });
    }
    $("inspect-disable").addEventListener("click", () => state.inspected && setDisabled(state.inspected.kind, state.inspected.id, true));
    $("inspect-enable").addEventListener("click", () => state.inspected && setDisabled(state.inspected.kind, state.inspected.id, false));
    const forgetButton = $("inspect-forget");
    forgetButton.replaceWith(twoStep("Forget", "Really forget?", () => state.inspected && forget(state.inspected.kind, state.inspected.id), { id: "inspect-forget" }));
    loadAll().then(() => document.body.classList.add("ready"));
  });
})();
